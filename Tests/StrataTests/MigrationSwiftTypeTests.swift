import Foundation
import Testing
@testable import Strata

enum MST1 { @Entity(name: "Mood") struct Mood { var mood: String = "calm"; var note: String? = nil } }
enum MST2 { @Entity(name: "Mood") struct Mood { var mood: PredicateMood = .calm; var note: PredicateMood? = nil } }

@Suite("Migrations: a Swift type change the column type does not show", .timeLimit(.minutes(1)))
struct MigrationSwiftTypeTests {
    private let v1 = Schema("V1", MST1.Mood.self)
    private let v2 = Schema("V2", MST2.Mood.self)

    private func makeStore(at path: String, moods: [(String, String?)]) async throws {
        let stack = try await DataStack(v1, storage: SQLiteStore(path: path))
        try await stack.perform { tx in
            for (mood, note) in moods { _ = try tx.create(Into<MST1.Mood>()) { $0.mood = mood; $0.note = note } }
        }
        await stack.close()
    }

    @Test("String becoming an enum: a stored value the enum lacks refuses the migration, naming field, value and fix")
    func unreadableValueRefused() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mood.sqlite")
        try await makeStore(at: path, moods: [("calm", nil), ("angry", nil)])
        // The forecast reads the values too, and refuses as opening does.
        let forecastError = await expectStrataError(.invalidMigration) {
            try await DataStack.forecast(SchemaHistory(v1, v2), storage: SQLiteStore(path: path))
        }
        let error = await expectStrataError(.invalidMigration) {
            try await DataStack(SchemaHistory(v1, v2), storage: SQLiteStore(path: path))
        }
        #expect(forecastError?.message == error?.message)
        #expect(error?.entity == "Mood" && error?.field == "mood")
        let message = error?.message ?? ""
        #expect(message.contains("String") && message.contains("PredicateMood"), "\(message)")
        #expect(message.contains("object 2") && message.contains("angry") && message.contains(".transform"), "\(message)")
        #expect(message.contains("V1 → V2"), "\(message)")
        // The values stay out of logs.
        #expect(error?.summaryWithoutValues.contains("angry") == false)
        // The store is as it was: the old app still opens it.
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
        let old = try await DataStack(v1, storage: SQLiteStore(path: path))
        #expect(try await old.fetchAll(From<MST1.Mood>()).map(\.mood) == ["calm", "angry"])
        await old.close()
    }

    @Test("an optional field's value the new type lacks is refused too; its nils are not values")
    func optionalField() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("note.sqlite")
        try await makeStore(at: path, moods: [("calm", nil), ("busy", "sleepy")])
        let error = await expectStrataError(.invalidMigration) {
            try await DataStack(SchemaHistory(v1, v2), storage: SQLiteStore(path: path))
        }
        #expect(error?.field == "note")
    }

    @Test("values the new type reads migrate; a .transform converts those it would not read")
    func readableOrTransformed() async throws {
        let directory = try TemporaryDirectory()
        let readable = directory.path("readable.sqlite")
        try await makeStore(at: readable, moods: [("calm", nil), ("busy", "calm")])
        let stack = try await DataStack(SchemaHistory(v1, v2), storage: SQLiteStore(path: readable))
        #expect(try await stack.fetchAll(From<MST2.Mood>()).map(\.mood) == [.calm, .busy])
        await stack.close()

        let transformed = directory.path("transformed.sqlite")
        try await makeStore(at: transformed, moods: [("calm", nil), ("angry", "sleepy")])
        let history = SchemaHistory(v1, v2, steps: [MigrationStep(from: "V1", to: "V2", .transform(MST2.Mood.self) { old, new in
            let mood: String = try old.value("mood")
            new.mood = PredicateMood(rawValue: mood) ?? .busy
            let note: String? = try old.value("note")
            new.note = note.flatMap(PredicateMood.init(rawValue:))
        })])
        #expect(try await DataStack.forecast(history, storage: SQLiteStore(path: transformed)).isMigrationRequired)
        let migrated = try await DataStack(history, storage: SQLiteStore(path: transformed))
        let moods = try await migrated.fetchAll(From<MST2.Mood>())
        #expect(moods.map(\.mood) == [.calm, .busy] && moods.map(\.note) == [nil, nil])
        await migrated.close()
    }
}
