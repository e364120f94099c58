import Foundation
import Testing
@testable import Strata

/// What `close()` leaves behind: the database file, threads and connections.
@Suite("Closing")
struct CloseTests {
    @Test("after close(), the database file alone holds every commit, also when a reader closed after the writer")
    func closedFileHoldsEveryCommit() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let stack = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        try await stack.perform { tx in
            for index in 0..<200 { try tx.create(Into<Person>()) { $0.name = "p\(index)"; $0.age = index } }
        }
        // A read opens a reader connection, which closes after the writer's and cannot checkpoint.
        #expect(try await stack.fetchCount(From<Person>()) == 200)
        await stack.close()
        // The database file copied alone, as a user moving "the store" would.
        let copy = directory.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let reopened = try await DataStack(testSchema, storage: SQLiteStore(path: copy))
        // Before, the commits were still in app.sqlite-wal: the copy was an empty store.
        #expect(try await reopened.fetchCount(From<Person>()) == 200)
        await reopened.close()
    }

    @Test("a read generation released just before close() has its connection closed when close() returns")
    func releasedGenerationClosedByClose() async throws {
        for round in 0..<20 {
            let (stack, directory) = try await makeStack(.file)
            _ = directory
            try await Self.useAndRelease(stack)
            await stack.close()
            // Before, the connection went back in a task close() did not wait for (about 1 round in 5).
            let threadLeft = stack.generationReaders.executors.contains { $0.hasThread }
            #expect(!threadLeft, "round \(round)")
        }
    }

    private static func useAndRelease(_ stack: DataStack) async throws {
        let generation = try await stack.readGeneration()
        _ = try await generation.fetchCount(From<Person>())
    }

    @Test("two close() calls at once both return once everything is closed")
    func concurrentCloses() async throws {
        for round in 0..<20 {
            let (stack, directory) = try await makeStack(.file)
            _ = directory
            async let first = stack.fetchCount(From<Person>())
            async let second = stack.fetchCount(From<Person>())
            _ = try await (first, second)
            let other = Task { await stack.close() }
            await stack.close()
            // Before, the second call returned while the first still closed the idle readers.
            let threadLeft = stack.readers.executors.contains { $0.hasThread }
            #expect(!threadLeft, "round \(round)")
            await other.value
        }
    }
}
