import Foundation
import Testing
@testable import Strata

@Suite("Statement cache")
struct StatementCacheTests {
    @Test("a statement cached for a key that is gone is never handed to a later key at the same address")
    func freedKeysAreNotReused() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(path: directory.path("keys.sqlite"), options: Connection.Options())
        defer { connection.close() }
        try connection.execute("CREATE TABLE t (x)")
        // Each key is released at once, as a replaced store context's keys are.
        for _ in 0..<64 { _ = try connection.statement(StatementKey("DELETE FROM t")) }
        let fresh = (0..<64).map { _ in StatementKey("SELECT 1") }
        for key in fresh { #expect(try connection.statement(key).sql == "SELECT 1") }
    }
}
