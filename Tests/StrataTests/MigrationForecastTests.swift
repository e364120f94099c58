import Foundation
import Testing
@testable import Strata

enum MFC1 { @Entity(name: "Note") struct Note { var text: String = "" } }
/// Version V1 edited after it shipped: a field added without a new version.
enum MFC1Edited { @Entity(name: "Note") struct Note { var text: String = ""; var pinned: Bool = false } }

@Suite("Migrations: the forecast of a store at the current version", .timeLimit(.minutes(1)))
struct MigrationForecastTests {
    @Test("a store at the current version forecasts no migration when its schema is the one it was made with")
    func currentVersion() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.sqlite")
        let stack = try await DataStack(Schema("V1", MFC1.Note.self), storage: SQLiteStore(path: path))
        await stack.close()
        let forecast = try await DataStack.forecast(SchemaHistory(Schema("V1", MFC1.Note.self)), storage: SQLiteStore(path: path))
        #expect(forecast.storeVersion == "V1" && !forecast.isMigrationRequired)
    }

    @Test("a store at the current version whose version was edited since is refused by the forecast, as opening refuses it")
    func editedCurrentVersion() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.sqlite")
        let stack = try await DataStack(Schema("V1", MFC1.Note.self), storage: SQLiteStore(path: path))
        await stack.close()
        let edited = SchemaHistory(Schema("V1", MFC1Edited.Note.self))
        let forecastError = await expectStrataError(.schemaMismatch) {
            try await DataStack.forecast(edited, storage: SQLiteStore(path: path))
        }
        let openError = await expectStrataError(.schemaMismatch) {
            try await DataStack(edited, storage: SQLiteStore(path: path))
        }
        #expect(forecastError?.message == openError?.message)
        #expect(forecastError?.message.contains("pinned") == true, "\(forecastError?.message ?? "")")
    }
}
