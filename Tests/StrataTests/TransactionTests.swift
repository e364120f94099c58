import Foundation
import Testing
import Synchronization
@testable import Strata

@Suite("Transactions", .timeLimit(.minutes(1)))
struct TransactionTests {
    @Test("create returns the object with its new ID, and reads see it after the commit", arguments: StoreKind.allCases)
    func createAndRead(kind: StoreKind) async throws {
        let (stack, directory) = try await makeStack(kind)
        let created = try await stack.perform { tx in
            try tx.create(Into<Person>()) { $0.name = "Ada"; $0.age = 36 }
        }
        #expect(created.id.isSaved)
        #expect(created.name == "Ada")
        let fetched = try await stack.fetchExisting(created.id)
        #expect(fetched == created)
        #expect(try await stack.fetchCount(From<Person>()) == 1)
        withExtendedLifetime(directory) {}
    }

    @Test("fetches inside a transaction see its own uncommitted changes")
    func fetchInsideTransaction() async throws {
        let (stack, _) = try await makeStack()
        let counts = try await stack.perform { tx in
            try tx.create(Into<Person>()) { $0.name = "A"; $0.age = 10 }
            try tx.create(Into<Person>()) { $0.name = "B"; $0.age = 20 }
            let adults = try tx.fetchAll(From<Person>().where(\.age >= 18))
            return (try tx.fetchCount(From<Person>()), adults.map(\.name))
        }
        #expect(counts.0 == 2)
        #expect(counts.1 == ["B"])
    }

    @Test("edit writes only the fields that changed and reports them")
    func editChangedFields() async throws {
        let (stack, _) = try await makeStack()
        let feed = stack.changeSets()
        let person = try await stack.perform { tx in
            try tx.create(Into<Person>()) { $0.name = "Ada"; $0.age = 36 }
        }
        let edited = try await stack.perform { tx in
            try tx.edit(person) { $0.age += 1; $0.name = "Ada" }
        }
        #expect(edited.age == 37)
        var iterator = feed.makeAsyncIterator()
        let insert = await iterator.next()
        #expect(insert?.insertedIDs(Person.self) == [person.id])
        let update = await iterator.next()
        #expect(update?.updatedIDs(Person.self) == [person.id])
        #expect(update?.changedFields(of: person.id) == ["age"])
    }

    @Test("an edit that changes nothing writes nothing and commits no change set")
    func editWithoutChange() async throws {
        let (stack, _) = try await makeStack()
        let person = try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Ada" } }
        let hadChanges = try await stack.perform { tx in
            try tx.edit(person.id) { $0.name = "Ada" }
            return tx.hasChanges
        }
        #expect(!hadChanges)
    }

    @Test("edit works from the stored version, not from a stale copy")
    func editUsesStoredVersion() async throws {
        let (stack, _) = try await makeStack()
        let stale = try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Ada"; $0.age = 1 } }
        try await stack.perform { tx in try tx.edit(stale) { $0.name = "Grace" } }
        let result = try await stack.perform { tx in try tx.edit(stale) { $0.age = 2 } }
        #expect(result.name == "Grace")
        #expect(result.age == 2)
    }

    @Test("editing a deleted object throws notFound, changing the ID throws invalidEdit")
    func editErrors() async throws {
        let (stack, _) = try await makeStack()
        let person = try await stack.perform { tx in try tx.create(Into<Person>()) }
        try await stack.perform { tx in try tx.delete(person) }
        let notFound = await expectStrataError(.notFound) {
            try await stack.perform { tx in try tx.edit(person) { $0.age = 3 } }
        }
        #expect(notFound?.entity == "Person")
        let other = try await stack.perform { tx in try tx.create(Into<Person>()) }
        await expectStrataError(.invalidEdit) {
            try await stack.perform { tx in try tx.edit(other) { $0.id = EntityID(rawValue: 999) } }
        }
    }

    @Test("delete removes objects by value or ID; deleteAll returns how many it removed")
    func deletes() async throws {
        let (stack, _) = try await makeStack()
        let feed = stack.changeSets()
        let people = try await stack.perform { tx in
            try (0..<10).map { index in try tx.create(Into<Person>()) { $0.age = index } }
        }
        let deleted = try await stack.perform { tx in
            try tx.delete(people[0])
            try tx.delete(people[1].id)
            try tx.delete(ids: [people[2].id, people[3].id])
            return try tx.deleteAll(From<Person>().where(\.age >= 8))
        }
        #expect(deleted == 2)
        let remaining = try await stack.fetchAll(From<Person>().orderBy(.ascending(\.age))).map(\.age)
        #expect(remaining == [4, 5, 6, 7])
        var iterator = feed.makeAsyncIterator()
        _ = await iterator.next()
        let deletion = await iterator.next()
        #expect(deletion?.deletedIDs(Person.self) == Set([0, 1, 2, 3, 8, 9].map { people[$0].id }))
    }

    @Test("inserted, updated and deleted IDs are tracked within the transaction")
    func trackedIDs() async throws {
        let (stack, _) = try await makeStack()
        let existing = try await stack.perform { tx in
            [try tx.create(Into<Person>()), try tx.create(Into<Person>())]
        }
        try await stack.perform { tx in
            #expect(!tx.hasChanges)
            let new = try tx.create(Into<Person>()) { $0.name = "new" }
            try tx.edit(new) { $0.age = 1 }
            try tx.edit(existing[0]) { $0.age = 5 }
            try tx.delete(existing[1])
            let transient = try tx.create(Into<Person>())
            try tx.delete(transient)
            #expect(tx.hasChanges)
            #expect(tx.insertedIDs(Person.self) == [new.id])
            #expect(tx.updatedIDs(Person.self) == [existing[0].id])
            #expect(tx.deletedIDs(Person.self) == [existing[1].id])
        }
    }

    @Test("a throwing body rolls back everything it did", arguments: StoreKind.allCases)
    func rollbackOnThrow(kind: StoreKind) async throws {
        struct Failure: Error {}
        let (stack, directory) = try await makeStack(kind)
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "kept" } }
        await #expect(throws: Failure.self) {
            try await stack.perform { tx in
                try tx.create(Into<Person>()) { $0.name = "lost" }
                try tx.deleteAll(From<Person>())
                throw Failure()
            }
        }
        #expect(try await stack.fetchAll(From<Person>()).map(\.name) == ["kept"])
        withExtendedLifetime(directory) {}
    }

    @Test("cancel() rolls back and throws a transactionCancelled error the caller can match")
    func cancelTransaction() async throws {
        let (stack, _) = try await makeStack()
        await expectStrataError(.transactionCancelled) {
            try await stack.perform { tx in
                try tx.create(Into<Person>())
                try tx.cancel()
            }
        }
        #expect(try await stack.fetchCount(From<Person>()) == 0)
    }

    @Test("a cancel() whose error the closure catches still cancels: nothing is kept, and perform throws transactionCancelled")
    func swallowedCancel() async throws {
        let (stack, _) = try await makeStack()
        await expectStrataError(.transactionCancelled) {
            try await stack.perform { tx in
                try tx.create(Into<Person>())
                do { try tx.cancel() } catch {}
                try tx.create(Into<Person>())
            }
        }
        #expect(try await stack.fetchCount(From<Person>()) == 0)
        // The next transaction is not cancelled.
        try await stack.perform { tx in try tx.create(Into<Person>()) }
        #expect(try await stack.fetchCount(From<Person>()) == 1)
    }

    @Test("a task cancelled while its transaction runs rolls back at the commit and throws CancellationError")
    func taskCancelledBeforeCommit() async throws {
        let (stack, _) = try await makeStack()
        // The body runs on the writer's thread: it waits there until the test has cancelled its task.
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let cancelled = DispatchSemaphore(value: 0)
        let task = Task {
            try await stack.perform { tx in
                _ = try tx.create(Into<Person>())
                startedContinuation.yield()
                cancelled.waitForTest()
                return try tx.fetchCount(From<Person>())
            }
        }
        for await _ in started { break }
        task.cancel()
        cancelled.signal()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await stack.fetchCount(From<Person>()) == 0)
    }

    @Test("once close() has begun, a new transaction throws stackClosed; the one running commits")
    func performDuringClose() async throws {
        let (stack, _) = try await makeStack()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let running = Task {
            try await stack.perform { tx in
                startedContinuation.yield()
                release.waitForTest()
                _ = try tx.create(Into<Person>())
            }
        }
        for await _ in started { break }
        var counts = stack.countPublisher(From<Person>()).makeAsyncIterator()
        #expect(try await counts.next() == 0)
        let closing = Task { await stack.close() }
        // close() marks the writer first thing, then ends the observations: once this iteration has
        // ended, the mark is made (an event to await, not a time).
        while try await counts.next() != nil {}
        let isClosing = stack.writer.isClosing.load(ordering: .acquiring)
        #expect(isClosing)
        await expectStrataError(.stackClosed) { try await stack.perform { tx in _ = try tx.create(Into<Person>()) } }
        // An observation that begins while the stack closes fails as one that begins after (it would
        // otherwise wait for commits that never come).
        await expectStrataError(.stackClosed) { for try await _ in stack.countPublisher(From<Person>()) {} }
        release.signal()
        try await running.value
        await closing.value
        let error = await #expect(throws: StrataError.self) { try await stack.fetchCount(From<Person>()) }
        #expect(error?.code == .stackClosed)
    }

    @Test("a task cancelled before its transaction starts runs nothing")
    func taskCancelledBeforeStart() async throws {
        let (stack, _) = try await makeStack()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await stack.perform { tx in try tx.create(Into<Person>()).id }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await stack.fetchCount(From<Person>()) == 0)
    }

    @Test("a cancelled task interrupts a long statement, and the writer stays usable")
    func cancellationInterruptsStatement() async throws {
        let (stack, _) = try await makeStack()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let task = Task {
            try await stack.perform { tx in
                startedContinuation.yield()
                // A statement that runs until interrupted: counts through a recursive CTE.
                _ = try tx.fetchCount(From<Person>())
                try tx.runForeverUntilInterrupted()
            }
        }
        for await _ in started { break }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let id = try await stack.perform { tx in try tx.create(Into<Person>()).id }
        #expect(try await stack.fetchExisting(id) != nil)
    }

    @Test("a cancelled task interrupts a long read, and the reader stays usable")
    func cancellationInterruptsRead() async throws {
        var configuration = DataStack.Configuration()
        configuration.maximumReaderCount = 1
        let (stack, _) = try await makeStack(configuration: configuration)
        try await stack.perform { tx in try tx.create(Into<Person>()) }
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let task = Task {
            try await stack.read { context in
                startedContinuation.yield()
                try context.runForeverUntilInterrupted()
            }
        }
        for await _ in started { break }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // The single reader was interrupted, released and works again.
        #expect(try await stack.fetchCount(From<Person>()) == 1)
    }

    @Test("a cancellation that lands between two statements still stops the next one", .timeLimit(.minutes(1)))
    func cancellationBetweenStatements() async throws {
        let (stack, _) = try await makeStack()
        // The task is cancelled while its body runs but before the long statement starts, so
        // sqlite3_interrupt alone would be lost. The body waits on its thread until the cancellation is done.
        let (readStarted, readStartedContinuation) = AsyncStream<Void>.makeStream()
        let readCancelled = DispatchSemaphore(value: 0)
        let read = Task {
            try await stack.read { context in
                readStartedContinuation.yield()
                readCancelled.waitForTest()
                try context.runForeverUntilInterrupted()
            }
        }
        for await _ in readStarted { break }
        read.cancel()
        readCancelled.signal()
        await #expect(throws: CancellationError.self) { try await read.value }
        let (writeStarted, writeStartedContinuation) = AsyncStream<Void>.makeStream()
        let writeCancelled = DispatchSemaphore(value: 0)
        let write = Task {
            try await stack.perform { tx in
                writeStartedContinuation.yield()
                writeCancelled.waitForTest()
                try tx.runForeverUntilInterrupted()
            }
        }
        for await _ in writeStarted { break }
        write.cancel()
        writeCancelled.signal()
        await #expect(throws: CancellationError.self) { try await write.value }
        #expect(try await stack.fetchCount(From<Person>()) == 0)
    }

    @Test("tx.cancel() in an unsafe transaction's block cancels that block alone, even when its error is caught")
    func cancelInUnsafeBlock() async throws {
        let (stack, _) = try await makeStack()
        let unsafe = try await stack.beginUnsafe()
        try await unsafe.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "kept" } }
        await expectStrataError(.transactionCancelled) {
            try await unsafe.perform { tx in
                _ = try tx.create(Into<Person>()) { $0.name = "cancelled" }
                try tx.cancel()
            }
        }
        // The cancellation caught in the block still cancels the block, and only it.
        await expectStrataError(.transactionCancelled) {
            try await unsafe.perform { tx in
                _ = try tx.create(Into<Person>()) { $0.name = "caught" }
                do { try tx.cancel() } catch {}
                _ = try? tx.create(Into<Person>()) { $0.name = "after" }
            }
        }
        try await unsafe.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "later" } }
        // Before, the unsafe transaction stayed cancelled: this commit threw and lost "kept" and "later".
        let committed = try await unsafe.commit()
        #expect(committed.insertedIDs(Person.self).count == 2)
        await unsafe.end()
        #expect(Set(try await stack.fetchAll(From<Person>()).map(\.name)) == ["kept", "later"])
    }

    @Test("create refuses an ID set by hand")
    func createWithID() async throws {
        let (stack, _) = try await makeStack()
        await expectStrataError(.invalidEdit) {
            try await stack.perform { tx in try tx.create(Into<Person>()) { $0.id = EntityID(rawValue: 5) } }
        }
    }

    @Test("IDs are never reused after a delete")
    func idsNotReused() async throws {
        let (stack, _) = try await makeStack()
        let first = try await stack.perform { tx in try tx.create(Into<Person>()) }
        try await stack.perform { tx in try tx.delete(first) }
        let second = try await stack.perform { tx in try tx.create(Into<Person>()) }
        #expect(second.id != first.id)
    }
}

extension ReadContext {
    /// Runs a statement that only ends when interrupted.
    func runForeverUntilInterrupted() throws {
        let statement = try connection.cachedStatement(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
        _ = try statement.step()
    }
}
