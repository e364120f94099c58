import Foundation
import Synchronization
import Testing
@testable import Strata

/// Every read is one lease of one connection and one read transaction, and gives the connection back
/// clean, whatever happened inside it.
@Suite("Read leases", .timeLimit(.minutes(1)))
struct ReadLeaseTests {
    func oneReaderStack() async throws -> DataStack {
        var configuration = DataStack.Configuration()
        configuration.maximumReaderCount = 1
        return try await DataStack(coreSchema, configuration: configuration)
    }

    @Test("a fetchAll that fails while decoding leaves no stale reader: the next read sees new commits")
    func staleReaderAfterFetchAll() async throws {
        let stack = try await oneReaderStack()
        let bad = DecodeGate.poisoned()
        try await stack.perform { tx in
            try tx.create(Into<CorePet>()) { $0.name = "Rex" }
            try tx.create(Into<CorePet>()) { $0.name = "Odd"; $0.probe = Probe(bad) }
        }
        DecodeGate.poison(bad)
        await #expect(throws: (any Error).self) { try await stack.fetchAll(From<CorePet>()) }
        try await stack.perform { tx in try tx.create(Into<CorePet>()) { $0.name = "Max" } }
        #expect(try await stack.fetchCount(From<CorePet>()) == 3)
        #expect(stack.readers.openedCount == 1)
    }

    @Test("a fetchExisting that fails while decoding leaves no stale reader")
    func staleReaderAfterFetchExisting() async throws {
        let stack = try await oneReaderStack()
        let bad = DecodeGate.poisoned()
        let odd = try await stack.perform { tx in
            try tx.create(Into<CorePet>()) { $0.name = "Rex" }
            return try tx.create(Into<CorePet>()) { $0.name = "Odd"; $0.probe = Probe(bad) }.id
        }
        DecodeGate.poison(bad)
        await #expect(throws: (any Error).self) { try await stack.fetchExisting(odd) }
        try await stack.perform { tx in try tx.create(Into<CorePet>()) { $0.name = "Max" } }
        #expect(try await stack.fetchCount(From<CorePet>()) == 3)
        let ids = try await stack.fetchIDs(From<CorePet>())
        #expect(ids.count == 3)
    }

    @Test("closing the stack ends a fetchBatches iteration under way: its next batch throws stackClosed, and its connection is closed")
    func batchesAfterClose() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await DataStack(coreSchema, storage: SQLiteStore(path: directory.path("batches.sqlite")))
        try await stack.perform { tx in
            for index in 0..<100 { try tx.create(Into<CorePet>()) { $0.name = "P\(index)" } }
        }
        var batches = stack.fetchBatches(From<CorePet>().tweak(.batchSize(10))).makeAsyncIterator()
        #expect(try await batches.next()?.count == 10)
        let executors = stack.cursors.executors
        #expect(executors.count == 1)
        await stack.close()
        // The cursor's connection was closed with the stack: its thread ends without the iteration.
        for executor in executors { await executor.stopped() }
        await expectStrataError(.stackClosed) { _ = try await batches.next() }
        #expect(try await batches.next() == nil)
    }

    @Test("a read context whose closure throws halfway through a statement gives its reader back clean")
    func throwingReadContext() async throws {
        let stack = try await oneReaderStack()
        try await stack.perform { tx in
            for name in ["A", "B", "C"] { try tx.create(Into<CorePet>()) { $0.name = name } }
        }
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await stack.read { context in
                _ = try context.fetchAll(From<CorePet>())
                throw Stop()
            }
        }
        try await stack.perform { tx in try tx.create(Into<CorePet>()) { $0.name = "D" } }
        #expect(try await stack.fetchCount(From<CorePet>()) == 4)
    }

    @Test("a prefetching fetch sees one committed state even when a commit lands between its queries", arguments: StoreKind.allCases)
    func tornPrefetch(kind: StoreKind) async throws {
        let (stack, directory) = try await makeStack(kind, schema: coreSchema)
        _ = directory
        let gate = DecodeGate.make()
        try await Self.addRexOfAda(stack, gate: gate)
        // The fetch stops inside its main query, while decoding the pet; a commit renames both.
        async let fetched = stack.fetchAll(From<CorePet>().prefetching(\.owner))
        await DecodeGate.reached(gate)
        try await Self.renameToMaxOfBob(stack)
        DecodeGate.open(gate)
        let pets = try await fetched
        #expect(pets.map(\.name) == ["Rex"])
        #expect(pets.first?.owner?.name == "Ada")
        // The next fetch sees the commit whole.
        let now = try await stack.fetchAll(From<CorePet>().prefetching(\.owner))
        #expect(now.first?.name == "Max")
        #expect(now.first?.owner?.name == "Bob")
    }

    @Test("an observation fetch sees one committed state")
    func observationFetchIsOneTransaction() async throws {
        let stack = try await DataStack(coreSchema)
        let gate = DecodeGate.make()
        try await Self.addRexOfAda(stack, gate: gate)
        var iterator = stack.listPublisher(From<CorePet>().prefetching(\.owner)).makeAsyncIterator()
        async let first = iterator.next()
        await DecodeGate.reached(gate)
        try await Self.renameToMaxOfBob(stack)
        DecodeGate.open(gate)
        let snapshot = try #require(try await first)
        let pet = try #require(snapshot.items.first)
        #expect(pet.name == "Rex")
        #expect(pet.owner?.name == "Ada")
    }

    /// Pet Rex of owner Ada, whose next decoding stops at `gate`.
    static func addRexOfAda(_ stack: DataStack, gate: String) async throws {
        try await stack.perform { tx in
            let ada = try tx.create(Into<CoreOwner>()) { $0.name = "Ada" }
            try tx.create(Into<CorePet>()) { $0.name = "Rex"; $0.owner = ada.id; $0.probe = Probe(gate) }
        }
        DecodeGate.arm(gate)
    }

    /// One commit renames both: the pet to Max, its owner to Bob.
    static func renameToMaxOfBob(_ stack: DataStack) async throws {
        try await stack.perform { tx in
            let pet = try #require(try tx.fetchOne(From<CorePet>()))
            try tx.edit(pet) { $0.name = "Max" }
            let owner = try #require(try tx.fetchOne(From<CoreOwner>()))
            try tx.edit(owner) { $0.name = "Bob" }
        }
    }

    @Test("a connection is closed exactly once when opening it fails")
    func connectionClosedOnce() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("garbage.sqlite")
        try Data(repeating: 0x42, count: 8_192).write(to: URL(fileURLWithPath: path))
        let counter = Connection.HandleCounter()
        Connection.$handleCounter.withValue(counter) {
            #expect(throws: StrataError.self) { try Connection(path: path, options: Connection.Options()) }
        }
        #expect(counter.opened.load(ordering: .relaxed) == 1)
        #expect(counter.closed.load(ordering: .relaxed) == 1)
        // And a connection that opened is closed once, by close() or by its deinit, not both.
        let good = directory.path("good.sqlite")
        Connection.$handleCounter.withValue(counter) {
            do {
                let connection = try Connection(path: good, options: Connection.Options())
                connection.close()
                connection.close()
            } catch {
                Issue.record("\(error)")
            }
        }
        #expect(counter.opened.load(ordering: .relaxed) == 2)
        #expect(counter.closed.load(ordering: .relaxed) == 2)
    }
}
