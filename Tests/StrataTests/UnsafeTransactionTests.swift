import Foundation
import Testing
@testable import Strata

@Suite("Unsafe transactions", .timeLimit(.minutes(1)))
struct UnsafeTransactionTests {
    @Test("an unsafe transaction commits several times, each commit visible to reads and published")
    func commitSeveralTimes() async throws {
        let (stack, _) = try await makeStack()
        let feed = stack.changeSets()
        let unsafe = try await stack.beginUnsafe()
        for chunk in 0..<3 {
            try await unsafe.perform { tx in
                for index in 0..<10 { try tx.create(Into<Person>()) { $0.age = chunk * 10 + index } }
            }
            #expect(try await unsafe.hasChanges)
            #expect(try await stack.fetchCount(From<Person>()) == chunk * 10)
            let committed = try await unsafe.commit()
            #expect(committed.insertedIDs(Person.self).count == 10)
            #expect(try await !unsafe.hasChanges)
            #expect(try await stack.fetchCount(From<Person>()) == (chunk + 1) * 10)
        }
        await unsafe.end()
        var iterator = feed.makeAsyncIterator()
        for _ in 0..<3 {
            #expect(await iterator.next()?.insertedIDs(Person.self).count == 10)
        }
    }

    @Test("rollback discards work since the last commit; a failing block leaves no trace")
    func rollbackAndFailingBlock() async throws {
        struct Failure: Error {}
        let (stack, _) = try await makeStack()
        let unsafe = try await stack.beginUnsafe()
        try await unsafe.perform { tx in try tx.create(Into<Person>()) { $0.name = "kept" } }
        try await unsafe.commit()
        try await unsafe.perform { tx in try tx.create(Into<Person>()) { $0.name = "rolled back" } }
        try await unsafe.rollback()
        try await unsafe.perform { tx in try tx.create(Into<Person>()) { $0.name = "pending" } }
        await #expect(throws: Failure.self) {
            try await unsafe.perform { tx in
                try tx.create(Into<Person>()) { $0.name = "failed" }
                throw Failure()
            }
        }
        let seenInside = try await unsafe.perform { tx in try tx.fetchAll(From<Person>().orderBy(.ascending(\.id))).map(\.name) }
        #expect(seenInside == ["kept", "pending"])
        let changes = try await unsafe.commit()
        #expect(changes.insertedIDs(Person.self).count == 1)
        await unsafe.end()
        #expect(try await stack.fetchAll(From<Person>().orderBy(.ascending(\.id))).map(\.name) == ["kept", "pending"])
    }

    @Test("other transactions wait for the unsafe transaction to end, then run in order")
    func othersWait() async throws {
        let (stack, _) = try await makeStack()
        let unsafe = try await stack.beginUnsafe()
        try await unsafe.perform { tx in try tx.create(Into<Counter>()) { $0.key = "c" } }
        let waiting = Task {
            try await stack.perform { tx in
                try tx.fetchOne(From<Counter>().where(\.key == "c"))?.value
            }
        }
        try await unsafe.perform { tx in
            let counter = try tx.fetchOne(From<Counter>())!
            try tx.edit(counter) { $0.value = 41 }
        }
        try await unsafe.commit()
        await unsafe.end()
        // The waiting transaction ran after the end, so it saw the committed value.
        #expect(try await waiting.value == 41)
    }

    @Test("a transaction waiting for its turn stops waiting when its task is cancelled")
    func cancelledWhileWaiting() async throws {
        let (stack, _) = try await makeStack()
        let unsafe = try await stack.beginUnsafe()
        let (waiting, waitingContinuation) = AsyncStream<Void>.makeStream()
        let blocked = Task {
            waitingContinuation.yield()
            return try await stack.perform { tx in try tx.create(Into<Person>()).id }
        }
        for await _ in waiting { break }
        blocked.cancel()
        // It returns while the unsafe transaction still holds the writer.
        await #expect(throws: CancellationError.self) { try await blocked.value }
        try await unsafe.perform { tx in try tx.create(Into<Counter>()) { $0.key = "still mine" } }
        try await unsafe.commit()
        await unsafe.end()
        #expect(try await stack.fetchCount(From<Person>()) == 0)
        #expect(try await stack.fetchCount(From<Counter>()) == 1)
        try await stack.perform { tx in try tx.create(Into<Person>()) }
        #expect(try await stack.fetchCount(From<Person>()) == 1)
    }

    @Test("ending rolls back uncommitted work, and an ended transaction refuses more work")
    func endRollsBack() async throws {
        let (stack, _) = try await makeStack()
        let unsafe = try await stack.beginUnsafe()
        try await unsafe.perform { tx in try tx.create(Into<Person>()) }
        await unsafe.end()
        #expect(try await stack.fetchCount(From<Person>()) == 0)
        await expectStrataError(.transactionClosed) {
            try await unsafe.perform { tx in try tx.create(Into<Person>()) }
        }
        await expectStrataError(.transactionClosed) { try await unsafe.commit() }
        // The writer is free again.
        try await stack.perform { tx in try tx.create(Into<Person>()) }
        #expect(try await stack.fetchCount(From<Person>()) == 1)
    }

    @Test("close() ends an open unsafe transaction: its uncommitted work is rolled back, its later calls throw stackClosed")
    func closeEndsOpenUnsafeTransaction() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("test.sqlite")
        let stack = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        let unsafe = try await stack.beginUnsafe()
        try await unsafe.perform { tx in try tx.create(Into<Person>()) { $0.name = "committed" } }
        try await unsafe.commit()
        try await unsafe.perform { tx in try tx.create(Into<Person>()) { $0.name = "pending" } }
        // Before, close() waited for end() forever (the test's time limit failed it).
        await stack.close()
        await expectStrataError(.stackClosed) {
            try await unsafe.perform { tx in try tx.create(Into<Person>()) }
        }
        await expectStrataError(.stackClosed) { try await unsafe.commit() }
        await unsafe.end()
        let reopened = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        #expect(try await reopened.fetchAll(From<Person>()).map(\.name) == ["committed"])
        await reopened.close()
    }

    @Test("a transaction queued behind an unsafe transaction still runs when close() ends it")
    func closeLetsQueuedTransactionRun() async throws {
        let (stack, _) = try await makeStack()
        let unsafe = try await stack.beginUnsafe()
        try await unsafe.perform { tx in try tx.create(Into<Person>()) { $0.name = "pending" } }
        let queued = Task { try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "queued" }.id } }
        await stack.writer.waitForTurnWaiters(1)
        await stack.close()
        // The queued transaction ran after the unsafe transaction's rollback, before the connection closed.
        _ = try await queued.value
        await expectStrataError(.stackClosed) { _ = try await stack.fetchCount(From<Person>()) }
        await expectStrataError(.stackClosed) { try await unsafe.commit() }
    }

    @Test("the owner of a beginUnsafe() transaction reads the history without waiting for its own transaction")
    func historyReadBesideOwnUnsafe() async throws {
        let (stack, _) = try await makeStack()
        let unsafe = try await stack.beginUnsafe()
        try await unsafe.perform { tx in _ = try tx.create(Into<Person>()) }
        // This stack keeps no history: the read says so, rather than waiting for the writer's turn.
        await expectStrataError(.historyUnavailable) { try await stack.history() }
        await expectStrataError(.historyUnavailable) { try await stack.currentHistoryToken() }
        try await unsafe.commit()
        await unsafe.end()
    }
}
