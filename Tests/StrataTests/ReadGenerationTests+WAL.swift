import CSQLite
import Foundation
import Logging
import Testing
@testable import Strata

/// The warning about a generation held while the write-ahead log grows.
extension ReadGenerationTests {
    @Test("a generation held while the WAL grows past the threshold is logged once per pinned state, even unused")
    func walWarning() async throws {
        let logs = CapturedLogs()
        let (stack, directory) = try await stack(.file) {
            $0.logger = logs.logger()
            $0.readGenerationWALWarningSize = 1
        }
        let path = try #require(directory?.path("test.sqlite"))
        func warnings() -> [CapturedLogs.Record] { logs.all.filter { $0.level == .warning } }
        func commit() async throws { try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "secret" } } }
        // Without a generation held, commits are not reported.
        try await commit()
        #expect(warnings().isEmpty)
        // A generation held and never used is reported at the next commit, once.
        let generation = try await stack.readGeneration()
        try await commit()
        #expect(warnings().count == 1)
        let record = try #require(warnings().first)
        #expect(record.message.contains("read generation"))
        #expect(record.metadata["strata.held"] != nil)
        #expect(Int(record.metadata["strata.walSize"]?.description ?? "") ?? 0 > 1)
        #expect(record.metadata["strata.walWarningSize"]?.description == "1")
        #expect(record.metadata["strata.path"]?.description == path)
        #expect(record.metadata.keys.allSatisfy { $0.hasPrefix("strata.") })
        #expect(!(record.message + record.metadata.values.map(\.description).joined()).contains("secret"))
        for _ in 0..<3 { try await commit() }
        #expect(warnings().count == 1)
        // Another generation is reported on its own (taking it makes the next commit check the log), and
        // the first one is not reported again.
        let second = try await stack.readGeneration()
        try await commit()
        #expect(warnings().count == 2)
        #expect(warnings().last?.metadata["strata.generation"] != record.metadata["strata.generation"])
        // Moved to a newer state, the second one may be reported again; the first one still not.
        try await second.moveToLatest()
        try await commit()
        #expect(warnings().count == 3)
        #expect(warnings().last?.metadata["strata.generation"] == warnings()[1].metadata["strata.generation"])
        await generation.release()
        await second.release()
        // Once released, generations are not reported.
        let third = try await stack.readGeneration()
        await third.release()
        try await commit()
        #expect(warnings().count == 3)
        #expect(stack.generations.heldCount == 0)
    }

    @Test("a WAL file left large by earlier writes is not taken for growth while a generation is held")
    func walFileLeftLarge() async throws {
        let logs = CapturedLogs()
        let (stack, directory) = try await stack(.file) {
            $0.logger = logs.logger()
            $0.readGenerationWALWarningSize = 64 * 1024
        }
        let path = try #require(directory?.path("test.sqlite"))
        // Every commit checks the log (by default, at most one every 100 ms does).
        stack.generations.checkInterval = .zero
        func warnings() -> [CapturedLogs.Record] { logs.all.filter { $0.level == .warning } }
        func commit(_ rows: Int) async throws {
            let name = String(repeating: "n", count: 1_000)
            try await stack.perform { tx in for _ in 0..<rows { try tx.create(Into<Person>()) { $0.name = name } } }
        }
        // A burst of writes leaves the WAL file past the warning size; a checkpoint by another connection
        // then lets the next commit write the log from its start again (SQLite keeps the file's size).
        try await commit(200)
        var other: OpaquePointer?
        #expect(sqlite3_open(path, &other) == SQLITE_OK)
        #expect(sqlite3_exec(other, "PRAGMA wal_checkpoint(RESTART)", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(other)
        let left = stack.files.walFileSize
        #expect(left > 200_000)
        let generation = try await stack.readGeneration()
        try await commit(1)
        #expect(stack.files.walFileSize == left)
        #expect(warnings().isEmpty)
        // Commits that grow the file past its earlier size while the generation is held are reported.
        try await commit(400)
        #expect(stack.files.walFileSize > left)
        #expect(warnings().count == 1)
        await generation.release()
    }

    @Test("no WAL warning without a threshold, or while the log stays below it")
    func noWALWarning() async throws {
        for size in [nil, 1 << 30] as [Int?] {
            let logs = CapturedLogs()
            let (stack, directory) = try await stack(.file) {
                $0.logger = logs.logger()
                $0.readGenerationWALWarningSize = size
            }
            _ = directory
            let generation = try await stack.readGeneration()
            for index in 0..<5 { try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "\(index)" } } }
            #expect(logs.all.filter { $0.level == .warning }.isEmpty)
            await generation.release()
        }
    }
}
