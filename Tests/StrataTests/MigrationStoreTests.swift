import Foundation
import Testing
@testable import Strata

@Suite("Migrations: recreating stores on mismatch", .timeLimit(.minutes(1)))
struct MigrationRecreateTests {
    let history = SchemaHistory(migrationV1, migrationV2, steps: [stepV1V2])

    func version(_ path: String) throws -> String? {
        try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'")
    }

    @Test("a store at a version the app does not declare, or an edited one, is made anew when the store opts in")
    func recreatesMismatchedStores() async throws {
        let directory = try TemporaryDirectory()
        let newer = directory.path("newer.sqlite")
        let stack3 = try await DataStack(migrationV3, storage: SQLiteStore(path: newer))
        try await stack3.perform { tx in _ = try tx.create(Into<MV3.Writer>()) { $0.name = "Ada" } }
        await stack3.close()
        let stack = try await DataStack(history, storage: SQLiteStore(path: newer).recreatingOnSchemaMismatch())
        #expect(try await stack.fetchCount(From<MV2.Writer>()) == 0)
        try await stack.perform { tx in _ = try tx.create(Into<MV2.Writer>()) { $0.name = "Bob" } }
        await stack.close()
        #expect(try version(newer) == "V2")
        // A version edited since the store was made, opened with a single schema.
        let edited = directory.path("edited.sqlite")
        try await makeV1Store(at: edited)
        let changedV1 = Schema("V1", MV1.Author.self, MV1.Book.self)
        let reopened = try await DataStack(changedV1, storage: SQLiteStore(path: edited).recreatingOnSchemaMismatch())
        #expect(try await reopened.fetchCount(From<MV1.Author>()) == 0)
        await reopened.close()
        #expect(try storeValue(edited, "SELECT count(*) FROM sqlite_schema WHERE name = 'Draft'") == "0")
    }

    @Test("a store the app can migrate is migrated, not recreated; a file Strata did not make is never deleted")
    func keepsWhatItCan() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v1.sqlite")
        try await makeV1Store(at: path)
        let stack = try await DataStack(history, storage: SQLiteStore(path: path).recreatingOnSchemaMismatch())
        #expect(try await stack.fetchCount(From<MV2.Writer>()) == 2)
        await stack.close()
        let foreign = directory.path("foreign.sqlite")
        let connection = try Connection(path: foreign, options: Connection.Options())
        try connection.execute("CREATE TABLE notes (body TEXT)")
        try connection.execute("INSERT INTO notes VALUES ('keep me')")
        connection.close()
        await expectStrataError(.schemaMismatch) {
            try await DataStack(history, storage: SQLiteStore(path: foreign).recreatingOnSchemaMismatch())
        }
        #expect(try storeValue(foreign, "SELECT body FROM notes") == "keep me")
        // Without the opt-in, a mismatched store is refused and kept.
        let newer = directory.path("newer.sqlite")
        await (try DataStack(migrationV3, storage: SQLiteStore(path: newer))).close()
        await expectStrataError(.schemaMismatch) { try await DataStack(history, storage: SQLiteStore(path: newer)) }
        #expect(try version(newer) == "V3")
    }
}

/// A migration killed with SIGKILL in the middle, in a process of its own (`StrataProbe`).
@Suite("Migrations: kill -9", .timeLimit(.minutes(3)))
struct MigrationKillTests {
    @Test("killing a migration of a 100,000-row store in its second step leaves the first version, whole and migratable")
    func killedMidMigration() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("killed.sqlite")
        let made = try await runProbe(["migration", "make", path])
        #expect(made.lines == ["made 100000"])
        // Killed once the second step (the transform) has done some rows: the first step's rebuild
        // is in the same uncommitted transaction.
        let killed = try await runProbe(["migration", "run", path]) { line in
            let parts = line.split(separator: " ")
            return parts.count == 3 && parts[0] == "progress" && parts[1] == "1" && (Int(parts[2]) ?? 0) >= 5_000
        }
        #expect(killed.process.terminationReason == .uncaughtSignal, "the probe was not killed: \(killed.lines.suffix(3))")
        #expect(killed.lines.contains { $0.hasPrefix("progress 0") })
        #expect(!killed.lines.contains { $0.hasPrefix("migrated") })
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "K1")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
        #expect(try storeValue(path, "SELECT count(*) FROM Item") == "100000")
        #expect(try storeValue(path, "SELECT sum(age) FROM Item") == "\(100 * 999 * 1000 / 2)")
        #expect(try storeValue(path, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'strata_new%' OR name LIKE 'strata_kept%'") == "0")
        #expect(try storeValue(path, "SELECT count(*) FROM pragma_table_info('Item') WHERE name = 'years'") == "0")
        // Run again, the migration completes.
        let finished = try await runProbe(["migration", "run", path])
        #expect(finished.process.terminationStatus == 0)
        #expect(finished.lines.last == "migrated K3 100000 \(2 * 100 * 999 * 1000 / 2)")
        #expect(try storeValue(path, "SELECT name FROM Item WHERE id = 1") == "ITEM 0")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
    }
}
