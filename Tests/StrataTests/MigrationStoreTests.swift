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
