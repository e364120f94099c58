import Foundation
import Testing
@testable import Strata

enum SSM1 {
    @Entity(name: "Person") struct Person { var name: String = "" }
    @Entity(name: "Thumb") struct Thumb { var size: Int = 0 }
    @Entity(name: "Extra") struct Extra { var e: Int = 0 }
}
enum SSM2 {
    @Entity(name: "Person") struct Person { var name: String = "" }
    @Entity(name: "Thumb") struct Thumb { var size: Int = 0; var note: String = "" }
    @Entity(name: "Extra") struct Extra { var e: Int = 0 }
}

let severalStoresV1 = Schema("V1", SSM1.Person.self, SSM1.Thumb.self, SSM1.Extra.self)
    .configuration("Cache", SSM1.Thumb.self).configuration("Extra", SSM1.Extra.self)
let severalStoresV2 = Schema("V2", SSM2.Person.self, SSM2.Thumb.self, SSM2.Extra.self)
    .configuration("Cache", SSM2.Thumb.self).configuration("Extra", SSM2.Extra.self)

@Suite("Several stores: migrating a store", .timeLimit(.minutes(1)))
struct SeveralStoresMigrationTests {
    /// Makes a V1 "Cache" store holding one thumb.
    private func makeCache(at path: String, in directory: TemporaryDirectory) async throws {
        let maker = try await DataStack(severalStoresV1, storages: [
            SQLiteStore(path: directory.path("maker.sqlite")), SQLiteStore(path: path).configuration("Cache"),
        ])
        try await maker.perform { tx in _ = try tx.create(Into<SSM1.Thumb>()) { $0.size = 1 } }
        await maker.close()
    }

    @Test("addStorage migrates the store under its write lock from the start, though the stack has stores attached")
    func addStorageMigrationHoldsTheLock() async throws {
        let directory = try TemporaryDirectory()
        let cache = directory.path("cache.sqlite")
        try await makeCache(at: cache, in: directory)
        // Another process writes to the store just after the migration has read it (its second statement
        // in its transaction): a migration begun as a deferred transaction then fails with `busy` at its
        // first write (its read is stale); one that holds the write lock from its BEGIN keeps the other
        // writer out (refused at once: it waits for nothing) and goes on.
        let interloper = Locked<(phase: Int, statements: Int, result: String?)>((0, 0, nil))
        var configuration = DataStack.Configuration()
        configuration.statementTrace = { sql in
            let act = interloper.withLock { state -> Bool in
                switch state.phase {
                case 0 where sql.hasPrefix("PRAGMA foreign_keys = OFF"): state.phase = 1
                case 1 where sql.hasPrefix("BEGIN"): state.phase = 2
                case 2:
                    state.statements += 1
                    if state.statements == 2 { state.phase = 3; return true }
                default: break
                }
                return false
            }
            guard act else { return }
            var options = Connection.Options()
            options.busyTimeoutMilliseconds = 0
            let outcome: String
            do {
                let connection = try Connection(path: cache, options: options)
                defer { connection.close() }
                try connection.execute("BEGIN IMMEDIATE")
                try connection.execute("INSERT INTO strata_metadata (key, value) VALUES ('interloper', '1')")
                try connection.execute("COMMIT")
                outcome = "committed"
            } catch {
                outcome = (error as? StrataError).map { "\($0.code)" } ?? "\(error)"
            }
            interloper.withLock { $0.result = outcome }
        }
        let history = SchemaHistory(severalStoresV1, severalStoresV2)
        let adder = try await DataStack(history, storages: [
            SQLiteStore(path: directory.path("a.sqlite")), SQLiteStore(path: directory.path("a-extra.sqlite")).configuration("Extra"),
        ], configuration: configuration)
        await #expect(throws: Never.self) { try await adder.addStorage(SQLiteStore(path: cache).configuration("Cache")) }
        #expect(interloper.withLock { $0.result } == "\(StrataError.Code.busy)")
        #expect(try storeValue(cache, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V2")
        await adder.close()
    }

    @Test("the forecast of one storage named for a configuration forecasts that configuration's store")
    func forecastOfAConfiguredStorage() async throws {
        let directory = try TemporaryDirectory()
        let cache = directory.path("cache.sqlite")
        try await makeCache(at: cache, in: directory)
        let history = SchemaHistory(severalStoresV1, severalStoresV2)
        let forecast = try await DataStack.forecast(history, storage: SQLiteStore(path: cache).configuration("Cache"))
        #expect(forecast.storeVersion == "V1")
        #expect(forecast.isMigrationRequired)
        #expect(forecast.steps.flatMap(\.entities).map(\.entity) == ["Thumb"])
        #expect(forecast.steps.first?.entities.first?.addedFields == ["note"])
        // The same as the forecast of several storages says of it, and a configuration the schema lacks is refused.
        let both = try await DataStack.forecast(history, storages: [
            SQLiteStore(path: directory.path("maker.sqlite")), SQLiteStore(path: cache).configuration("Cache"),
        ])
        #expect(both.last?.steps == forecast.steps)
        let error = await expectStrataError(.invalidArgument) {
            try await DataStack.forecast(history, storage: SQLiteStore(path: cache).configuration("Cahce"))
        }
        #expect(error?.message.contains("Cahce") == true)
    }
}
