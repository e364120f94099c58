import Foundation
import Testing
@testable import Strata

enum DefaultsV1 {
    @Entity(name: "Note")
    struct Note {
        var title: String = ""
    }
}

enum DefaultsV2 {
    struct Meta: Codable, Hashable, Sendable {
        var level: Int
        var label: String
    }

    enum Tint: Hashable, Sendable {
        case red, blue
        var code: Int { self == .red ? 1 : 2 }
        init(code: Int) { self = code == 1 ? .red : .blue }
    }

    /// Four new `@Coded` fields: JSON with a literal default, JSON with a default built by an initializer,
    /// an optional JSON one defaulting to `nil`, and a custom encode / decode pair.
    @Entity(name: "Note")
    struct Note {
        var title: String = ""
        @Coded var tags: [String] = ["inbox"]
        @Coded var meta: Meta = Meta(level: 2, label: "new")
        @Coded var extra: [Int]? = nil
        @Coded(encode: { $0.code }, decode: { Tint(code: $0) }) var tint: Tint = .blue
        @Coded @Field(dynamicInitialValue: { Meta(level: 9, label: "made") }) var made: Meta = Meta(level: 0, label: "old")
    }

    /// A new unique field whose dynamic initial value differs per object, and a date.
    @Entity(name: "Note")
    struct TokenNote {
        var title: String = ""
        @Field(.unique, dynamicInitialValue: { UUID() }) var token: UUID = UUID()
        @Field(dynamicInitialValue: { Date() }) var added: Date = .distantPast
    }
}

@Suite("Migrations and declared defaults")
struct MigrationDefaultTests {
    @Test("a new @Coded field takes its declared default in existing objects, JSON or custom-encoded")
    func newCodedFieldsTakeTheirDefaults() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("defaults.sqlite")
        let v1 = Schema("V1", DefaultsV1.Note.self)
        let v2 = Schema("V2", DefaultsV2.Note.self)
        do {
            let stack = try await DataStack(v1, storage: SQLiteStore(path: path))
            try await stack.perform { tx in
                _ = try tx.create(Into<DefaultsV1.Note>()) { $0.title = "kept" }
            }
            await stack.close()
        }
        let stack = try await DataStack(SchemaHistory(v1, v2), storage: SQLiteStore(path: path))
        let notes = try await stack.fetchAll(From<DefaultsV2.Note>())
        #expect(notes.count == 1)
        let note = try #require(notes.first)
        #expect(note.title == "kept")
        #expect(note.tags == ["inbox"])
        #expect(note.meta == DefaultsV2.Meta(level: 2, label: "new"))
        #expect(note.extra == nil)
        #expect(note.tint == .blue)
        // A dynamic initial value, not the declared default, as for a created object.
        #expect(note.made == DefaultsV2.Meta(level: 9, label: "made"))
        // The closures name types declared beside the entity (`Meta`, `Tint`), not the test target's own `Tint`.
        let created = try await stack.perform { tx in try tx.create(Into<DefaultsV2.Note>()) }
        #expect(created.made == DefaultsV2.Meta(level: 9, label: "made") && created.tint == .blue)
        await stack.close()
        // Stored as a created object stores them: JSON with sorted keys, NULL for nil, the encoded value.
        #expect(try storeValue(path, "SELECT meta FROM Note WHERE title = 'kept'") == #"{"label":"new","level":2}"#)
        #expect(try storeValue(path, "SELECT extra IS NULL FROM Note WHERE title = 'kept'") == "1")
        #expect(try storeValue(path, "SELECT tint FROM Note WHERE title = 'kept'") == "2")
    }

    @Test("a new field with a dynamic initial value gets a fresh value per existing object, so it may be unique")
    func newDynamicFieldPerObject() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("tokens.sqlite")
        let v1 = Schema("V1", DefaultsV1.Note.self)
        let v2 = Schema("V2", DefaultsV2.TokenNote.self)
        do {
            let stack = try await DataStack(v1, storage: SQLiteStore(path: path))
            try await stack.perform { tx in
                for title in ["a", "b", "c"] { _ = try tx.create(Into<DefaultsV1.Note>()) { $0.title = title } }
            }
            await stack.close()
        }
        let before = Date()
        let stack = try await DataStack(SchemaHistory(v1, v2), storage: SQLiteStore(path: path))
        let notes = try await stack.fetchAll(From<DefaultsV2.TokenNote>())
        #expect(notes.map(\.title).sorted() == ["a", "b", "c"])
        #expect(Set(notes.map(\.token)).count == 3)
        #expect(notes.allSatisfy { $0.added >= before.addingTimeInterval(-1) })
        await stack.close()
    }
}
