import Foundation
import Testing
@testable import Strata

@Suite("Concurrency", .timeLimit(.minutes(1)))
struct ConcurrencyTests {
    @Test("200 concurrent transactions that each increment one counter end at exactly 200", arguments: StoreKind.allCases)
    func concurrentIncrements(kind: StoreKind) async throws {
        let (stack, directory) = try await makeStack(kind)
        let counter = try await stack.perform { tx in try tx.create(Into<Counter>()) { $0.key = "hits" } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await stack.perform { tx in _ = try tx.edit(counter.id) { $0.value += 1 } }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await stack.fetchExisting(counter.id)?.value == 200)
        withExtendedLifetime(directory) {}
    }

    @Test("a failing transaction among successful ones leaves no trace")
    func failingAmongSuccessful() async throws {
        struct Failure: Error {}
        let (stack, _) = try await makeStack()
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                group.addTask {
                    do {
                        try await stack.perform { tx in
                            try tx.create(Into<Person>()) { $0.age = index }
                            if index == 25 { throw Failure() }
                        }
                        return true
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 49)
        let ages = Set(try await stack.fetchAll(From<Person>()).map(\.age))
        #expect(ages == Set(0..<50).subtracting([25]))
    }

    @Test("a read completes while a write transaction is held open, and sees the last committed state",
          arguments: StoreKind.allCases)
    func readDoesNotWaitForWrite(kind: StoreKind) async throws {
        let (stack, directory) = try await makeStack(kind)
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "committed" } }

        let (opened, openedContinuation) = AsyncStream<UnsafeTransaction>.makeStream()
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let writer = Task {
            let unsafe = try await stack.beginUnsafe()
            try await unsafe.perform { tx in
                try tx.create(Into<Person>()) { $0.name = "uncommitted" }
                try tx.deleteAll(From<Person>().where(\.name == "committed"))
            }
            openedContinuation.yield(unsafe)
            // Suspended with the write transaction open until the test has read.
            for await _ in release { break }
            try await unsafe.commit()
            await unsafe.end()
        }
        var openedIterator = opened.makeAsyncIterator()
        _ = await openedIterator.next()

        let seen = try await stack.fetchAll(From<Person>()).map(\.name)
        #expect(seen == ["committed"])
        let seenInSnapshot = try await stack.read { try $0.fetchAll(From<Person>()).map(\.name) }
        #expect(seenInSnapshot == ["committed"])

        releaseContinuation.yield()
        try await writer.value
        #expect(try await stack.fetchAll(From<Person>()).map(\.name) == ["uncommitted"])
        withExtendedLifetime(directory) {}
    }

    @Test("several fetches in one read see one committed state while writes commit")
    func consistentRead() async throws {
        let (stack, _) = try await makeStack()
        try await stack.perform { tx in
            for _ in 0..<10 { try tx.create(Into<Person>()) }
        }
        let (inside, insideContinuation) = AsyncStream<Void>.makeStream()
        let (committed, committedContinuation) = AsyncStream<Void>.makeStream()
        // The read blocks its own reader thread (not the cooperative pool) until a write has committed.
        let committedSignal = DispatchSemaphore(value: 0)
        let read = Task {
            try await stack.read { context in
                let before = try context.fetchCount(From<Person>())
                insideContinuation.yield()
                committedSignal.waitForTest()
                let after = try context.fetchCount(From<Person>())
                let ids = try context.fetchIDs(From<Person>())
                return (before, after, ids.count)
            }
        }
        for await _ in inside { break }
        try await stack.perform { tx in
            for _ in 0..<5 { try tx.create(Into<Person>()) }
        }
        committedContinuation.yield()
        committedSignal.signal()
        for await _ in committed { break }
        let (before, after, idCount) = try await read.value
        #expect(before == 10)
        #expect(after == 10)
        #expect(idCount == 10)
        #expect(try await stack.fetchCount(From<Person>()) == 15)
    }

    @Test("transactions run on the writer's own thread, not on Swift's cooperative pool")
    func writerExecutor() async throws {
        let (stack, _) = try await makeStack()
        let label = try await stack.perform { _ in currentQueueLabel() }
        #expect(label == "strata.writer")
        let readerLabel = try await stack.read { _ in currentQueueLabel() }
        #expect(readerLabel.hasPrefix("strata.reader."))
        let unsafe = try await stack.beginUnsafe()
        let unsafeLabel = try await unsafe.perform { _ in currentQueueLabel() }
        await unsafe.end()
        #expect(unsafeLabel == "strata.writer")
    }

    @Test("many concurrent reads share the bounded reader pool")
    func boundedPool() async throws {
        var configuration = DataStack.Configuration()
        configuration.maximumReaderCount = 2
        let (stack, _) = try await makeStack(configuration: configuration)
        try await stack.perform { tx in try tx.create(Into<Person>()) }
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask { try await stack.fetchCount(From<Person>()) }
            }
            return try await group.reduce(0, +)
        }
        #expect(counts == 100)
        #expect(stack.readers.openedCount <= 2)
    }
}

/// The label of the Strata executor whose thread the caller runs on.
func currentQueueLabel() -> String {
    ThreadExecutor.currentLabel ?? "not a Strata executor"
}
