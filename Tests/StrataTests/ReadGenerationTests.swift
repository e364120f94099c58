import Foundation
import Testing
@testable import Strata

/// Read generations: one committed state held across awaits, never blocking the writer, released by
/// its holder, its scope, its deinit or its task's cancellation.
@Suite("Read generations", .timeLimit(.minutes(1)))
struct ReadGenerationTests {
    func stack(
        _ kind: StoreKind = .inMemory, schema: Schema = testSchema, generations: Int = 4,
        configure: (inout DataStack.Configuration) -> Void = { _ in }
    ) async throws -> (DataStack, TemporaryDirectory?) {
        var configuration = DataStack.Configuration()
        configuration.maximumReadGenerations = generations
        configure(&configuration)
        return try await makeStack(kind, schema: schema, configuration: configuration)
    }

    static let ages = From<Person>().select(Int.self, .sum(\.age))

    @Test("separate fetches across awaits see the state pinned when the generation was taken", arguments: StoreKind.allCases)
    func pinnedAcrossAwaits(kind: StoreKind) async throws {
        let (stack, directory) = try await stack(kind)
        _ = directory
        try await stack.perform { tx in
            for (index, name) in ["Ada", "Bob", "Cy"].enumerated() {
                try tx.create(Into<Person>()) { $0.name = name; $0.age = 20 + index }
            }
        }
        let generation = try await stack.readGeneration()
        // A commit lands before the generation's first read: its state was pinned when it was taken.
        let ada = try await stack.perform { tx in
            let ada = try #require(try tx.fetchOne(From<Person>().where(\.name == "Ada")))
            try tx.edit(ada) { $0.age = 90 }
            try tx.create(Into<Person>()) { $0.name = "Dee"; $0.age = 40 }
            return ada.id
        }
        #expect(try await generation.fetchCount(From<Person>()) == 3)
        #expect(try await generation.fetchExisting(ada)?.age == 20)
        try await stack.perform { tx in try tx.deleteAll(From<Person>().where(\.name == "Bob")) }
        #expect(try await generation.queryValue(Self.ages) == 63)
        #expect(try await generation.fetchAll(From<Person>().orderBy(.ascending(\.name))).map(\.name) == ["Ada", "Bob", "Cy"])
        #expect(try await generation.fetchOne(From<Person>().where(\.name == "Dee")) == nil)
        #expect(try await generation.fetchIDs(From<Person>()).count == 3)
        let inOne = try await generation.read { r in (try r.fetchCount(From<Person>()), try r.queryValue(Self.ages)) }
        #expect(inOne.0 == 3 && inOne.1 == 63)
        // The stack itself reads the latest state.
        #expect(try await stack.fetchCount(From<Person>()) == 3)
        #expect(try await stack.fetchExisting(ada)?.age == 90)
        #expect(try await stack.queryValue(Self.ages) == 152)

        // Many reads of the generation, from several tasks, while commits land.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for index in 0..<20 {
                    try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "W\(index)"; $0.age = 1 } }
                }
            }
            for _ in 0..<6 {
                group.addTask {
                    for _ in 0..<10 {
                        let count = try await generation.fetchCount(From<Person>())
                        let ages = try await generation.queryValue(Self.ages)
                        #expect(count == 3 && ages == 63)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await stack.fetchCount(From<Person>()) == 23)
        await generation.release()
    }

    @Test("the pages of a list read through a generation add up to the list, while commits shift it", arguments: StoreKind.allCases)
    func pagesUnderConcurrentCommits(kind: StoreKind) async throws {
        let (stack, directory) = try await stack(kind)
        _ = directory
        let names = (0..<40).map { String(format: "p%02d", $0) }
        try await stack.perform { tx in for name in names { try tx.create(Into<Person>()) { $0.name = name } } }
        let list = From<Person>().orderBy(.ascending(\.name))
        let (total, paged) = try await stack.withReadGeneration { generation in
            let total = try await generation.fetchCount(From<Person>())
            // Another task commits all along: objects added before the pages and removed from them.
            let writer = Task {
                for index in 0..<30 {
                    try await stack.perform { tx in
                        try tx.create(Into<Person>()) { $0.name = "b\(index)" }
                        if let last = try tx.fetchOne(From<Person>().orderBy(.descending(\.name))) { try tx.delete(last) }
                    }
                }
            }
            var paged: [String] = []
            for offset in stride(from: 0, to: total, by: 7) {
                paged += try await generation.fetchAll(list.tweak(.offset(offset), .limit(7))).map(\.name)
                // And a commit between every two pages: one object in front, one page item gone.
                try await stack.perform { tx in
                    try tx.create(Into<Person>()) { $0.name = "a\(offset)" }
                    if let first = try tx.fetchOne(From<Person>().where(\.name >= "p").orderBy(.ascending(\.name))) {
                        try tx.delete(first)
                    }
                }
            }
            try await writer.value
            return (total, paged)
        }
        #expect(total == 40)
        #expect(paged == names)
        #expect(try await stack.fetchAll(list.limit(40)).map(\.name) != names)
    }

    @Test("moveToLatest pins the newest committed state, and only it")
    func moveToLatest() async throws {
        let (stack, _) = try await stack()
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "A" } }
        let generation = try await stack.readGeneration()
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "B" } }
        #expect(try await generation.fetchCount(From<Person>()) == 1)
        try await generation.moveToLatest()
        #expect(try await generation.fetchCount(From<Person>()) == 2)
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "C" } }
        #expect(try await generation.fetchAll(From<Person>().orderBy(.ascending(\.name))).map(\.name) == ["A", "B"])
        #expect(try await stack.fetchCount(From<Person>()) == 3)
        #expect(stack.generations.heldCount == 1)
        await generation.release()
        #expect(stack.generations.heldCount == 0)
    }

    @Test("the writer commits while generations are held, even one stopped in the middle of a read")
    func writerNeverBlocked() async throws {
        let (stack, directory) = try await stack(.file, schema: coreSchema, generations: 2)
        _ = directory
        let gate = DecodeGate.make()
        try await stack.perform { tx in try tx.create(Into<CorePet>()) { $0.name = "Rex"; $0.probe = Probe(gate) } }
        DecodeGate.arm(gate)
        let stopped = try await stack.readGeneration()
        let other = try await stack.readGeneration()
        async let held = stopped.fetchAll(From<CorePet>())
        await DecodeGate.reached(gate)
        // The generation's thread is stopped inside its statement. Small commits, then one that writes
        // past SQLite's automatic checkpoint (1000 pages), all complete.
        for index in 0..<20 {
            try await stack.perform { tx in try tx.create(Into<CorePet>()) { $0.name = "P\(index)" } }
        }
        let long = String(repeating: "x", count: 2_000)
        try await stack.perform { tx in
            for _ in 0..<3_000 { try tx.create(Into<CorePet>()) { $0.name = long } }
        }
        #expect(try await stack.fetchCount(From<CorePet>()) == 3_021)
        #expect(try await other.fetchCount(From<CorePet>()) == 1)
        DecodeGate.open(gate)
        #expect(try await held.map(\.name) == ["Rex"])
        #expect(try await stopped.fetchCount(From<CorePet>()) == 1)
        await stopped.release()
        await other.release()
    }

    @Test("release, the end of the scope and deinit give the connection back, clean")
    func releaseGivesConnectionBack() async throws {
        let (stack, _) = try await stack(generations: 1)
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "A" } }
        // A second generation waits while the only one is held, and gets it once released.
        let first = try await stack.readGeneration()
        #expect(try await first.fetchCount(From<Person>()) == 1)
        let waiting = Task {
            let generation = try await stack.readGeneration()
            defer { Task { await generation.release() } }
            return try await generation.fetchCount(From<Person>())
        }
        await stack.generationReaders.waitForWaiters()
        #expect(!first.isReleased)
        await first.release()
        await first.release()
        #expect(first.isReleased)
        #expect(try await waiting.value == 1)

        // The scope's end, whether the body returns or throws.
        #expect(try await stack.withReadGeneration { try await $0.fetchCount(From<Person>()) } == 1)
        #expect(stack.generations.heldCount == 0)
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await stack.withReadGeneration { generation -> Int in
                _ = try await generation.fetchCount(From<Person>())
                throw Stop()
            }
        }
        #expect(stack.generations.heldCount == 0)

        // The last reference going away.
        try await useAndDrop(stack)
        #expect(stack.generations.heldCount == 0)
        let last = try await stack.readGeneration()
        #expect(try await last.fetchCount(From<Person>()) == 1)
        await last.release()
        // One connection served them all: each came back clean, none was discarded.
        #expect(stack.generationReaders.openedCount == 1)
        #expect(stack.generationReaders.waiterCount == 0)
    }

    private func useAndDrop(_ stack: DataStack) async throws {
        let generation = try await stack.readGeneration()
        #expect(try await generation.fetchCount(From<Person>()) == 1)
    }

    @Test("cancelling the task releases a scoped generation at once, while its body awaits something else")
    func cancelledScope() async throws {
        let (stack, _) = try await stack(generations: 1)
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "A" } }
        let (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        let gate = OpenGate()
        let holder = Task {
            try await stack.withReadGeneration { generation in
                _ = try await generation.fetchCount(From<Person>())
                enteredContinuation.yield()
                await gate.wait()
                return try await generation.fetchCount(From<Person>())
            }
        }
        for await _ in entered { break }
        #expect(stack.generations.heldCount == 1)
        holder.cancel()
        // The cancellation handler released it synchronously; its connection comes back to the pool
        // (with room for one generation, taking another would wait forever otherwise).
        #expect(stack.generations.heldCount == 0)
        let next = try await stack.readGeneration()
        #expect(try await next.fetchCount(From<Person>()) == 1)
        await next.release()
        gate.open()
        await #expect(throws: CancellationError.self) { try await holder.value }
        #expect(stack.generationReaders.openedCount == 1)
    }

    @Test("cancelling the task interrupts a generation's read in the middle of its statement, and releases it")
    func cancelledRead() async throws {
        let (stack, _) = try await stack(schema: coreSchema, generations: 1)
        let gate = DecodeGate.make()
        try await stack.perform { tx in
            try tx.create(Into<CorePet>()) { $0.name = "Rex"; $0.probe = Probe(gate) }
            for index in 0..<500 { try tx.create(Into<CorePet>()) { $0.name = "P\(index)" } }
        }
        DecodeGate.arm(gate)
        let holder = Task {
            try await stack.withReadGeneration { try await $0.fetchAll(From<CorePet>().orderBy(.ascending(\.id))).count }
        }
        await DecodeGate.reached(gate)
        holder.cancel()
        DecodeGate.open(gate)
        await #expect(throws: CancellationError.self) { try await holder.value }
        let next = try await stack.readGeneration()
        #expect(try await next.fetchCount(From<CorePet>()) == 501)
        await next.release()
        #expect(stack.generationReaders.openedCount == 1)
    }

    @Test("uses of one generation take turns, and a use waiting for its turn is cancellable")
    func cancelledTurnWait() async throws {
        let (stack, _) = try await stack(schema: coreSchema)
        let gate = DecodeGate.make()
        try await stack.perform { tx in try tx.create(Into<CorePet>()) { $0.name = "Rex"; $0.probe = Probe(gate) } }
        DecodeGate.arm(gate)
        let generation = try await stack.readGeneration()
        let first = Task { try await generation.fetchAll(From<CorePet>()) }
        await DecodeGate.reached(gate)
        let second = Task { try await generation.fetchCount(From<CorePet>()) }
        await generation.turn.waitForWaiters()
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        #expect(generation.turn.waiterCount == 0)
        // The cancelled use released the generation; the read in progress still ends on its state.
        #expect(generation.isReleased)
        DecodeGate.open(gate)
        #expect(try await first.value.map(\.name) == ["Rex"])
        await expectStrataError(.transactionClosed) { try await generation.fetchCount(From<CorePet>()) }
    }

    @Test("a use from a cancelled task releases an unscoped generation and throws CancellationError")
    func cancelledUse() async throws {
        let (stack, _) = try await stack(generations: 1)
        let generation = try await stack.readGeneration()
        let use = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await generation.fetchCount(From<Person>())
        }
        await #expect(throws: CancellationError.self) { try await use.value }
        #expect(generation.isReleased)
        #expect(stack.generations.heldCount == 0)
        let error = await expectStrataError(.transactionClosed) { try await generation.fetchCount(From<Person>()) }
        #expect(error?.message.contains("cancelled") == true)
        let next = try await stack.readGeneration()
        #expect(try await next.fetchCount(From<Person>()) == 0)
        await next.release()
    }

    @Test("uses after release throw transactionClosed, saying what to do")
    func useAfterRelease() async throws {
        let (stack, _) = try await stack()
        let generation = try await stack.readGeneration()
        await generation.release()
        let error = await expectStrataError(.transactionClosed) { try await generation.fetchAll(From<Person>()) }
        #expect(error?.message.contains("readGeneration()") == true)
        await expectStrataError(.transactionClosed) { try await generation.read { try $0.fetchCount(From<Person>()) } }
        await expectStrataError(.transactionClosed) { try await generation.moveToLatest() }
        await generation.release()
        #expect(generation.isReleased)
    }

    @Test("a generation whose transaction ended never reads a newer state, until moveToLatest")
    func lostTransaction() async throws {
        let (stack, _) = try await stack()
        let generation = try await stack.readGeneration()
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "A" } }
        // Ends the read transaction from inside, as SQLite does after some errors; the count that follows
        // would see the newer state.
        let error = await expectStrataError(.transactionClosed) {
            try await generation.read { context in
                try context.connection.execute("COMMIT")
                return try context.fetchCount(From<Person>())
            }
        }
        #expect(error?.message.contains("moveToLatest()") == true)
        await expectStrataError(.transactionClosed) { try await generation.fetchCount(From<Person>()) }
        #expect(!generation.isReleased)
        try await generation.moveToLatest()
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "B" } }
        #expect(try await generation.fetchCount(From<Person>()) == 1)
        await generation.release()
    }

    @Test("closing the stack ends the generations held; their uses then throw stackClosed")
    func closedStack() async throws {
        let (stack, _) = try await stack()
        let generation = try await stack.readGeneration()
        #expect(try await generation.fetchCount(From<Person>()) == 0)
        await stack.close()
        #expect(generation.isReleased)
        await expectStrataError(.stackClosed) { try await generation.fetchCount(From<Person>()) }
        #expect(generation.isReleased)
        #expect(stack.generations.heldCount == 0)
        await expectStrataError(.stackClosed) { try await stack.readGeneration() }
    }

    @Test("maximumReadGenerations must be at least 1")
    func invalidConfiguration() async {
        var configuration = DataStack.Configuration()
        configuration.maximumReadGenerations = 0
        await expectStrataError(.invalidArgument) { try await DataStack(testSchema, configuration: configuration) }
    }
}

/// A gate that a task waits at until the test opens it; unlike an `AsyncStream`, cancelling the waiting
/// task does not let it through.
private final class OpenGate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
