import Foundation
import Testing
@testable import Strata

@Suite("WAL checkpoints")
struct CheckpointTests {
    static func fileSize(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test("a commit past the WAL's checkpoint size checkpoints after the commit gate is released, not inside COMMIT")
    func checkpointOutsideTheGate() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("wal.sqlite")
        var options = Connection.Options()
        options.commitGate = Locked(0)
        let connection = try Connection(path: path, options: options)
        defer { connection.close() }
        try connection.execute("CREATE TABLE t (x)")
        connection.checkpointAfterCommits()
        let before = try Self.fileSize(path)
        try connection.beginWrite()
        // About 2,000 pages of 4 KiB: past SQLite's 1,000-page automatic checkpoint.
        try connection.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
            + "INSERT INTO t SELECT randomblob(4000) FROM n")
        var sizeUnderGate = 0
        try connection.commitWrite { _ in sizeUnderGate = (try? Self.fileSize(path)) ?? -1 }
        #expect(sizeUnderGate == before, "the database file grew while the gate was held: a checkpoint ran in COMMIT")
        #expect(try Self.fileSize(path) > before + 4_000 * 1_000, "no checkpoint after the commit")
    }
}
