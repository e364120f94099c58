import CSQLite
import Foundation
import Testing
@testable import Strata

// Every version of a small app's model, each in its own namespace, as an app keeps them.
enum MV1 {
    @Entity(name: "Author")
    struct Author {
        var fullName: String = ""
        var born: Int = 0
        var email: String?
        var nickname: String = ""
    }

    @Entity(name: "Book")
    struct Book {
        var title: String = ""
        var pages: Int = 0
        @Relationship var author: Author.ID?
    }

    @Entity(name: "Draft")
    struct Draft {
        var text: String = ""
    }
}

enum MV2 {
    /// Renamed field (fullName → name), widened type (born: Int → Double), a field that becomes
    /// required (email), a removed field (nickname), an added field with a default (rating), an added
    /// optional field (bio), an index added (name).
    @Entity(name: "Writer")
    struct Writer {
        @Field(.indexed) var name: String = ""
        var born: Double = 0
        var email: String = ""
        var rating: Int = 3
        var bio: String?
    }

    @Entity(name: "Book")
    struct Book {
        var title: String = ""
        var pages: Int = 0
        var isbn: String?
        @Relationship var author: Writer.ID?
    }

    @Entity(name: "Shelf")
    struct Shelf {
        var label: String = ""
    }
}

enum MV3 {
    @Entity(name: "Writer")
    struct Writer {
        @Field(.indexed) var name: String = ""
        var born: Double = 0
        var email: String = ""
        var rating: Int = 3
        var bio: String?
        var initials: String = ""
    }

    @Entity(name: "Book")
    struct Book {
        @Field(.unique) var title: String = ""
        var pages: Int = 0
        var isbn: String?
        @Relationship var author: Writer.ID?
    }

    @Entity(name: "Shelf")
    struct Shelf {
        var label: String = ""
    }
}

let migrationV1 = Schema("V1", MV1.Author.self, MV1.Book.self, MV1.Draft.self)
let migrationV2 = Schema("V2", MV2.Writer.self, MV2.Book.self, MV2.Shelf.self)
let migrationV3 = Schema("V3", MV3.Writer.self, MV3.Book.self, MV3.Shelf.self)

/// The step V1 → V2 as the app declares it.
let stepV1V2 = MigrationStep(
    from: "V1", to: "V2",
    .renameEntity(from: "Author", to: "Writer"),
    .renameField("Writer", from: "fullName", to: "name"),
    .fill("Writer", "email", with: "unknown@example.com"),
    .deleteEntity("Draft"))

/// The step V2 → V3: a typed transform computes the new field from the old ones.
let stepV2V3 = MigrationStep(
    from: "V2", to: "V3",
    .transform(MV3.Writer.self) { old, writer in
        let name: String = try old.value("name")
        writer.initials = String(name.split(separator: " ").compactMap(\.first))
    })

/// Makes a V1 store holding two authors (one without an email), three books and a draft.
@discardableResult
func makeV1Store(at path: String) async throws -> (ada: Int64, bob: Int64, books: [Int64]) {
    let stack = try await DataStack(migrationV1, storage: SQLiteStore(path: path))
    let ids = try await stack.perform { tx in
        let ada = try tx.create(Into<MV1.Author>()) {
            $0.fullName = "Ada Lovelace"; $0.born = 1815; $0.email = "ada@example.com"; $0.nickname = "A"
        }.id
        let bob = try tx.create(Into<MV1.Author>()) { $0.fullName = "Bob Smith"; $0.born = 1970 }.id
        let books = try ["Notes", "Engines", "Gardens"].enumerated().map { index, title in
            try tx.create(Into<MV1.Book>()) {
                $0.title = title; $0.pages = 100 * (index + 1); $0.author = index == 2 ? bob : ada
            }.id.rawValue
        }
        try tx.create(Into<MV1.Draft>()) { $0.text = "draft" }
        return (ada.rawValue, bob.rawValue, books)
    }
    await stack.close()
    return ids
}

/// Reads one value of a store file with plain SQLite.
func storeValue(_ path: String, _ query: String) throws -> String? {
    let connection = try Connection(path: path, options: Connection.Options())
    defer { connection.close() }
    let statement = try connection.makeStatement(query)
    guard try statement.step() else { return nil }
    switch statement.value(at: 0) {
    case .null: return nil
    case .integer(let value): return String(value)
    case .real(let value): return String(value)
    case .text(let value): return value
    case .blob(let value): return value.base64EncodedString()
    }
}

@Suite("Migrations", .timeLimit(.minutes(1)))
struct MigrationTests {
    @Test("a migration whose store another app migrated while it waited for the lock starts again from the version found")
    func migratedWhileWaiting() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("raced.sqlite")
        let (ada, _, _) = try await makeV1Store(at: path)
        // This app (history to V3) reads V1 and plans V1 → V2 → V3, then waits for the lock ...
        let connection = try Connection(path: path, options: Connection.Options())
        defer { connection.close() }
        let full = SchemaHistory(migrationV1, migrationV2, migrationV3, steps: [stepV1V2, stepV2V3])
        let migrator = Migrator(history: full, current: migrationV3, connection: connection, progress: nil)
        let plans = try migrator.path(for: #require(try Migrator.storeState(connection)))
        #expect(plans.map(\.source.version) == ["V1", "V2"])
        // ... while another app (history to V2) migrates the store to V2.
        await (try DataStack(SchemaHistory(migrationV1, migrationV2, steps: [stepV1V2]), storage: SQLiteStore(path: path))).close()
        try migrator.run(plans, cancelled: { false })
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V3")
        let stack = try await DataStack(full, storage: SQLiteStore(path: path))
        #expect(try await stack.fetchExisting(MV3.Writer.ID(rawValue: ada))?.initials == "AL")
        await stack.close()
        // The app of the older history, which planned V1 → V2 before the store reached V3, is refused.
        let old = SchemaHistory(migrationV1, migrationV2, steps: [stepV1V2])
        let late = Migrator(history: old, current: migrationV2, connection: connection, progress: nil)
        let error = #expect(throws: StrataError.self) { try late.run(plans.prefix(1).map { $0 }, cancelled: { false }) }
        #expect(error?.code == .schemaMismatch && error?.message.contains("V3") == true)
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V3")
    }

    @Test("a V1 store migrates through V2 to V3: renames, widened types, fills, drops, defaults and a transform, IDs kept")
    func linearChain() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("library.sqlite")
        let (ada, bob, books) = try await makeV1Store(at: path)
        let history = SchemaHistory(migrationV1, migrationV2, migrationV3, steps: [stepV1V2, stepV2V3])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        #expect(stack.schema.version == "V3")
        let writers = try await stack.fetchAll(From<MV3.Writer>().orderBy(.ascending(\.name)))
        #expect(writers.map(\.id.rawValue) == [ada, bob])
        #expect(writers.map(\.name) == ["Ada Lovelace", "Bob Smith"])
        #expect(writers.map(\.born) == [1815.0, 1970.0])
        #expect(writers.map(\.email) == ["ada@example.com", "unknown@example.com"])
        #expect(writers.map(\.rating) == [3, 3])
        #expect(writers.map(\.bio) == [nil, nil])
        #expect(writers.map(\.initials) == ["AL", "BS"])
        let all = try await stack.fetchAll(From<MV3.Book>().orderBy(.ascending(\.pages)))
        #expect(all.map(\.id.rawValue) == books)
        #expect(all.map(\.title) == ["Notes", "Engines", "Gardens"])
        #expect(all.map { $0.author?.rawValue } == [ada, ada, bob])
        #expect(all.map(\.isbn) == [nil, nil, nil])
        #expect(try await stack.fetchCount(From<MV3.Shelf>()) == 0)
        // The migrated store works as any other: new objects, new IDs, the unique title enforced.
        let newID = try await stack.perform { tx in try tx.create(Into<MV3.Writer>()) { $0.name = "Cy" }.id.rawValue }
        #expect(newID > bob)
        await expectStrataError(.uniqueConstraint) {
            try await stack.perform { tx in try tx.create(Into<MV3.Book>()) { $0.title = "Notes" } }
        }
        await stack.close()
        #expect(try storeValue(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'Draft' OR name = 'Author'") == "0")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V3")
        // Reopening needs no migration.
        let forecast = try await DataStack.forecast(history, storage: SQLiteStore(path: path))
        #expect(!forecast.isMigrationRequired && forecast.storeVersion == "V3")
    }

    @Test("a forecast names each step's work per entity with row counts, and changes nothing")
    func forecast() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("forecast.sqlite")
        try await makeV1Store(at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let history = SchemaHistory(migrationV1, migrationV2, migrationV3, steps: [stepV1V2, stepV2V3])
        let forecast = try await DataStack.forecast(history, storage: SQLiteStore(path: path))
        #expect(forecast.storeVersion == "V1" && forecast.currentVersion == "V3")
        #expect(forecast.steps.map { "\($0.source)>\($0.destination)" } == ["V1>V2", "V2>V3"])
        let first = Dictionary(uniqueKeysWithValues: forecast.steps[0].entities.map { ($0.entity, $0) })
        #expect(first["Writer"]?.kind == .rebuild && first["Writer"]?.rows == 2 && first["Writer"]?.sourceEntity == "Author")
        #expect(first["Book"]?.kind == .inferred && first["Book"]?.rows == 0)
        #expect(first["Shelf"]?.kind == .create && first["Shelf"]?.rows == 0)
        #expect(first["Draft"]?.kind == .delete && first["Draft"]?.rows == 1)
        // The fields each entity loses, gains and renames.
        #expect(first["Writer"]?.removedFields == ["nickname"] && first["Writer"]?.addedFields == ["rating", "bio"])
        #expect(first["Writer"]?.renamedFields == [MigrationForecast.RenamedField(from: "fullName", to: "name")])
        #expect(first["Book"]?.removedFields == [] && first["Book"]?.addedFields == ["isbn"] && first["Book"]?.renamedFields == [])
        #expect(first["Shelf"]?.addedFields == [] && first["Draft"]?.removedFields == [])
        let second = Dictionary(uniqueKeysWithValues: forecast.steps[1].entities.map { ($0.entity, $0) })
        #expect(second["Writer"]?.kind == .custom && second["Writer"]?.rows == 2)
        #expect(second["Book"]?.kind == .rebuild && second["Book"]?.rows == 3)
        #expect(second["Shelf"]?.kind == .inferred && second["Shelf"]?.rows == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
        let fresh = try await DataStack.forecast(history, storage: SQLiteStore(path: directory.path("none.sqlite")))
        #expect(fresh.storeVersion == nil && !fresh.isMigrationRequired)
    }

    @Test("adding fields and an index keeps the table: no row is rewritten")
    func addingFieldsAltersInPlace() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("alter.sqlite")
        try await makeV1Store(at: path)
        let history = SchemaHistory(migrationV1, migrationV2, steps: [stepV1V2])
        let forecast = try await DataStack.forecast(history, storage: SQLiteStore(path: path))
        #expect(forecast.steps[0].entities.first { $0.entity == "Book" }?.kind == .inferred)
        var configuration = DataStack.Configuration()
        let statements = Locked<[String]>([])
        configuration.statementTrace = { sql in statements.withLock { $0.append(sql) } }
        let stack = try await DataStack(history, storage: SQLiteStore(path: path), configuration: configuration)
        // Only the rebuilt table (Author → Writer) is counted for progress; the altered one is not read.
        let counts = statements.withLock { $0 }.filter { $0.hasPrefix("SELECT count(*) FROM") }
        #expect(counts.contains("SELECT count(*) FROM \"Author\"") && !counts.contains("SELECT count(*) FROM \"Book\""), "\(counts)")
        let books = try await stack.fetchAll(From<MV2.Book>().orderBy(.ascending(\.pages)))
        #expect(books.map(\.title) == ["Notes", "Engines", "Gardens"] && books.allSatisfy { $0.isbn == nil })
        // The renamed author table's foreign key follows the rename.
        let writer = try await stack.fetchExisting(try #require(books[0].author))
        #expect(writer?.name == "Ada Lovelace")
        await stack.close()
        let sql = try #require(try storeValue(path, "SELECT sql FROM sqlite_schema WHERE name = 'Book'"))
        #expect(sql.contains("\"isbn\"") && sql.contains("REFERENCES \"Writer\""))
        #expect(try storeValue(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'Writer_name_index'") == "1")
        #expect(try storeValue(path, "PRAGMA foreign_key_check") == nil)
    }

    @Test("a tree chain migrates stores of either branch to the current version")
    func treeChain() async throws {
        let directory = try TemporaryDirectory()
        let atV1 = directory.path("v1.sqlite")
        let atV2 = directory.path("v2.sqlite")
        try await makeV1Store(at: atV1)
        let v2 = try await DataStack(migrationV2, storage: SQLiteStore(path: atV2))
        try await v2.perform { tx in try tx.create(Into<MV2.Writer>()) { $0.name = "Dee Dee"; $0.email = "d@example.com" } }
        await v2.close()
        let direct = MigrationStep(
            from: "V1", to: "V3",
            .renameEntity(from: "Author", to: "Writer"), .renameField("Writer", from: "fullName", to: "name"),
            .fill("Writer", "email", with: "?"), .fill("Writer", "initials", with: "-"), .deleteEntity("Draft"))
        let history = SchemaHistory(
            migrationV1, migrationV2, migrationV3, chain: MigrationChain(["V1": "V3", "V2": "V3"]),
            steps: [direct, stepV2V3])
        for path in [atV1, atV2] {
            let stack = try await DataStack(history, storage: SQLiteStore(path: path))
            let writers = try await stack.fetchAll(From<MV3.Writer>().orderBy(.ascending(\.name)))
            #expect(writers.map(\.initials) == (path == atV1 ? ["-", "-"] : ["DD"]))
            await stack.close()
        }
    }

    @Test("invalid histories and chains are refused before any store is opened, naming the problem")
    func invalidChains() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("never.sqlite")
        func refuse(_ history: SchemaHistory, mentioning text: String) async {
            let error = await expectStrataError(.invalidMigration) {
                try await DataStack(history, storage: SQLiteStore(path: path))
            }
            #expect(error?.message.contains(text) == true, "\(error?.message ?? "")")
        }
        await refuse(SchemaHistory(migrationV1, migrationV2, chain: MigrationChain("V1", "V2", "V1")), mentioning: "cycle")
        await refuse(SchemaHistory(migrationV1, migrationV2, chain: MigrationChain(["V1": "V2", "V2": "V1"])), mentioning: "cycle")
        await refuse(SchemaHistory(migrationV1, migrationV2, chain: MigrationChain("V1", "V9")), mentioning: "V9")
        await refuse(SchemaHistory(migrationV1, migrationV2, chain: MigrationChain(["V1": "V2", "V1": "V3"])), mentioning: "V3")
        await refuse(
            SchemaHistory(migrationV1, migrationV2, migrationV3, chain: MigrationChain(["V1": "V3", "V1": "V2"])),
            mentioning: "two successors")
        await refuse(SchemaHistory(migrationV1, migrationV2, migrationV3, chain: MigrationChain("V1", "V3")), mentioning: "V2")
        await refuse(
            SchemaHistory(migrationV1, migrationV2, migrationV3, chain: MigrationChain(["V1": "V3", "V2": "V1"]),
                steps: [MigrationStep(from: "V2", to: "V3")]),
            mentioning: "not an edge")
        await refuse(SchemaHistory(migrationV1, migrationV1), mentioning: "twice")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("what inference cannot do safely is refused, the store left at its version with its data")
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("refused.sqlite")
        try await makeV1Store(at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        func refuse(_ step: MigrationStep, _ code: StrataError.Code = .invalidMigration, mentioning text: String) async throws {
            let error = await expectStrataError(code) {
                try await DataStack(SchemaHistory(migrationV1, migrationV2, steps: [step]), storage: SQLiteStore(path: path))
            }
            #expect(error?.message.contains(text) == true, "\(error?.message ?? "")")
            #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
            #expect(try storeValue(path, "SELECT count(*) FROM Author") == "2")
        }
        // An entity that disappears without .deleteEntity.
        try await refuse(
            MigrationStep(from: "V1", to: "V2", .renameEntity(from: "Author", to: "Writer"),
                .renameField("Writer", from: "fullName", to: "name"), .fill("Writer", "email", with: "?")),
            mentioning: "deleteEntity(\"Draft\")")
        // A field that becomes required while objects have no value, without a fill.
        try await refuse(
            MigrationStep(from: "V1", to: "V2", .renameEntity(from: "Author", to: "Writer"),
                .renameField("Writer", from: "fullName", to: "name"), .deleteEntity("Draft")),
            mentioning: "1 object(s) have no value")
        // A rename of a field that does not exist.
        try await refuse(
            MigrationStep(from: "V1", to: "V2", .renameEntity(from: "Author", to: "Writer"),
                .renameField("Writer", from: "surname", to: "name"), .deleteEntity("Draft")),
            mentioning: "surname")
        // A fill of another kind than the field's (every read of the field would fail after the commit).
        try await refuse(
            MigrationStep(from: "V1", to: "V2", .renameEntity(from: "Author", to: "Writer"),
                .renameField("Writer", from: "fullName", to: "name"), .fill("Writer", "email", with: 42), .deleteEntity("Draft")),
            mentioning: "of kind INTEGER, but the field stores TEXT values")
        // A fill of the entity's old name (before, it filled nothing, silently).
        try await refuse(
            MigrationStep(from: "V1", to: "V2", .renameEntity(from: "Author", to: "Writer"),
                .renameField("Writer", from: "fullName", to: "name"), .fill("Writer", "email", with: "?"),
                .fill("Author", "rating", with: 5), .deleteEntity("Draft")),
            mentioning: "fill names entity Author, which version V2 does not have. Author becomes Writer in this step")
        // A unique field whose values repeat names the objects.
        let unique = SchemaHistory(
            migrationV1, migrationV2, migrationV3,
            steps: [stepV1V2, MigrationStep(from: "V2", to: "V3", .fill("Writer", "initials", with: "x"))])
        let stack = try await DataStack(migrationV1, storage: SQLiteStore(path: path))
        let copy = try await stack.perform { tx in try tx.create(Into<MV1.Book>()) { $0.title = "Notes" }.id.rawValue }
        await stack.close()
        let error = await expectStrataError(.invalidMigration) { try await DataStack(unique, storage: SQLiteStore(path: path)) }
        #expect(error?.message.contains("becomes unique") == true && error?.message.contains("\(copy)") == true)
        #expect(error?.entity == "Book" && error?.field == "title")
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
        _ = before
    }

    @Test("a fill of a field that stays optional gives its nils the value; one of a required field has none to fill")
    func fillOfOptionalField() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("library.sqlite")
        let ids = try await makeV1Store(at: path)
        let step = MigrationStep(
            from: "V2", to: "V3",
            .transform(MV3.Writer.self) { old, writer in
                let name: String = try old.value("name")
                writer.initials = String(name.split(separator: " ").compactMap(\.first))
            },
            .fill("Book", "isbn", with: "unknown"), .fill("Book", "pages", with: 1))
        let stack = try await DataStack(
            SchemaHistory(migrationV1, migrationV2, migrationV3, steps: [stepV1V2, step]), storage: SQLiteStore(path: path))
        // Before, both fills did nothing, silently: isbn stayed nil.
        let books = try await stack.fetchAll(From<MV3.Book>().orderBy(.ascending(\.pages)))
        #expect(books.map(\.id.rawValue) == ids.books)
        #expect(books.map(\.isbn) == ["unknown", "unknown", "unknown"])
        #expect(books.map(\.pages) == [100, 200, 300])
        await stack.close()
    }

    @Test("a store at a version the history does not know, or made with an edited version, is refused untouched")
    func unknownAndEditedVersions() async throws {
        let directory = try TemporaryDirectory()
        let newer = directory.path("newer.sqlite")
        await (try DataStack(migrationV3, storage: SQLiteStore(path: newer))).close()
        let before = try Data(contentsOf: URL(fileURLWithPath: newer))
        let error = await expectStrataError(.schemaMismatch) {
            try await DataStack(SchemaHistory(migrationV1, migrationV2, steps: [stepV1V2]), storage: SQLiteStore(path: newer))
        }
        #expect(error?.message.contains("V3") == true && error?.message.contains("V2") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: newer)) == before)
        // V1 as declared now differs from the V1 that made the store.
        let edited = directory.path("edited.sqlite")
        try await makeV1Store(at: edited)
        let changedV1 = Schema("V1", MV1.Author.self, MV1.Book.self)
        let mismatch = await expectStrataError(.schemaMismatch) {
            try await DataStack(SchemaHistory(changedV1, migrationV2, steps: [stepV1V2]), storage: SQLiteStore(path: edited))
        }
        #expect(mismatch?.message.contains("Schema V1 changed") == true)
    }

    @Test("an error in a later step's transform leaves the store at its first version, whole")
    func allOrNothing() async throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory()
        let path = directory.path("atomic.sqlite")
        try await makeV1Store(at: path)
        let failing = MigrationStep(
            from: "V2", to: "V3",
            .transform(MV3.Writer.self) { old, _ in if old.id > 1 { throw Refused() } })
        let history = SchemaHistory(migrationV1, migrationV2, migrationV3, steps: [stepV1V2, failing])
        // The transform's own error arrives wrapped, naming the step, the entity and the object.
        let error = await #expect(throws: MigrationError.self) { try await DataStack(history, storage: SQLiteStore(path: path)) }
        #expect(error?.source == "V2" && error?.destination == "V3" && error?.entity == "Writer" && error?.objectID == 2)
        #expect(error?.underlying is Refused)
        #expect(error?.localizedDescription.contains("V2 → V3, Writer object 2") == true)
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
        #expect(try storeValue(path, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'strata_new_%' OR name = 'Writer'") == "0")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
        // The store still opens at V1, with its data.
        let stack = try await DataStack(migrationV1, storage: SQLiteStore(path: path))
        #expect(try await stack.fetchCount(From<MV1.Draft>()) == 1)
        await stack.close()
    }

    @Test("errors of deleteObjects and custom closures arrive wrapped in MigrationError, naming the step")
    func closureErrorsWrapped() async throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory()
        let path = directory.path("gauge.sqlite")
        let gauge = try await makeGaugeStore(at: path)
        var errors: [MigrationError?] = []
        for change in [MigrationChange.deleteObjects("Gauge") { _ in throw Refused() }, .custom { _ in throw Refused() }] {
            let history = SchemaHistory(
                Schema("G1", ProgressV1.Gauge.self), Schema("G2", ProgressV2.Gauge.self),
                steps: [MigrationStep(from: "G1", to: "G2", change)])
            errors.append(await #expect(throws: MigrationError.self) { try await DataStack(history, storage: SQLiteStore(path: path)) })
        }
        let (deletion, custom) = (errors[0], errors[1])
        #expect(deletion?.entity == "Gauge" && deletion?.objectID == gauge.rawValue && deletion?.source == "G1")
        #expect(custom?.entity == nil && custom?.objectID == nil && custom?.destination == "G2" && custom?.underlying is Refused)
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "G1")
    }

    @Test("progress reports each step and entity and ends with the migration")
    func progressEvents() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("progress.sqlite")
        try await makeV1Store(at: path)
        let progress = MigrationProgress()
        let collector = Task {
            var events: [MigrationProgress.Event] = []
            for await event in progress { events.append(event) }
            return events
        }
        let history = SchemaHistory(migrationV1, migrationV2, migrationV3, steps: [stepV1V2, stepV2V3])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path), progress: progress)
        let events = await collector.value   // ends: the sequence finished with the migration
        let last = try #require(events.last)
        #expect(last.stepIndex == 1 && last.stepCount == 2 && last.destination == "V3")
        #expect(last.overallTotalRows == 2 + 2 + 3 && last.overallCompletedRows == last.overallTotalRows)
        #expect(last.fractionCompleted == 1)
        await stack.close()
        // Without a migration the sequence ends at once.
        let idle = MigrationProgress()
        let again = try await DataStack(history, storage: SQLiteStore(path: path), progress: idle)
        var count = 0
        for await _ in idle { count += 1 }
        #expect(count == 0)
        await again.close()
    }

    @Test("a migration that copies no rows ends its progress at 1 too, with a finished event")
    func progressWithoutRows() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("gauge.sqlite")
        try await makeGaugeStore(at: path)
        let progress = MigrationProgress()
        let collector = Task {
            var events: [MigrationProgress.Event] = []
            for await event in progress { events.append(event) }
            return events
        }
        let history = SchemaHistory(Schema("G1", ProgressV1.Gauge.self), Schema("G2", ProgressV2.Gauge.self))
        let stack = try await DataStack(history, storage: SQLiteStore(path: path), progress: progress)
        let events = await collector.value
        let last = try #require(events.last)
        #expect(last.overallTotalRows == 0 && last.isFinished && last.fractionCompleted == 1)
        #expect(events.dropLast().allSatisfy { !$0.isFinished })
        #expect(try await stack.fetchAll(From<ProgressV2.Gauge>()).map(\.label) == ["new"])
        await stack.close()
    }

    @Test("a transform given the type of another version is refused before anything is written")
    func transformOfAnotherVersionsType() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("gauge.sqlite")
        try await makeGaugeStore(at: path)
        let history = SchemaHistory(
            Schema("G1", ProgressV1.Gauge.self), Schema("G2", ProgressV2.Gauge.self),
            steps: [MigrationStep(from: "G1", to: "G2", .transform(ProgressV1.Gauge.self) { _, gauge in gauge.level += 1 })])
        let error = await expectStrataError(.invalidMigration) {
            try await DataStack(history, storage: SQLiteStore(path: path))
        }
        #expect(error?.message.contains("Pass the type of version G2") == true, "\(String(describing: error))")
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "G1")
        // Two transforms of one entity in a step: refused, not the last one silently kept.
        let twice = SchemaHistory(
            Schema("G1", ProgressV1.Gauge.self), Schema("G2", ProgressV2.Gauge.self),
            steps: [MigrationStep(
                from: "G1", to: "G2", .transform(ProgressV2.Gauge.self) { _, _ in }, .transform(ProgressV2.Gauge.self) { _, _ in })])
        let duplicate = await expectStrataError(.invalidMigration) { try await DataStack(twice, storage: SQLiteStore(path: path)) }
        #expect(duplicate?.message.contains("transforms Gauge twice") == true, "\(String(describing: duplicate))")
    }

    @Test("a stack still open when another stack migrated its store gets schemaMismatch, not SQLite's missing column")
    func openStackAfterAnotherMigrated() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("gauge.sqlite")
        let old = try await DataStack(Schema("G1", ProgressV1.Gauge.self), storage: SQLiteStore(path: path))
        try await old.perform { tx in try tx.create(Into<ProgressV1.Gauge>()) { $0.level = 3 } }
        #expect(try await old.fetchAll(From<ProgressV1.Gauge>()).map(\.level) == [3])
        let history = SchemaHistory(
            Schema("G1", ProgressV1.Gauge.self), Schema("G3", ProgressV3.Gauge.self),
            steps: [MigrationStep(from: "G1", to: "G3", .renameField("Gauge", from: "level", to: "amount"))])
        let new = try await DataStack(history, storage: SQLiteStore(path: path))
        #expect(try await new.fetchAll(From<ProgressV3.Gauge>()).map(\.amount) == [3])
        for use in [
            { _ = try await old.fetchAll(From<ProgressV1.Gauge>()) },
            { try await old.perform { tx in _ = try tx.create(Into<ProgressV1.Gauge>()) { $0.level = 4 } } },
        ] as [() async throws -> Void] {
            let error = await expectStrataError(.schemaMismatch) { try await use() }
            #expect(error?.message.contains("is at version G3 now") == true, "\(String(describing: error))")
        }
        await old.close()
        await new.close()
    }

    @Test("deleteObjects drops chosen objects before they migrate, clears links to them, and never reuses their IDs")
    func deleteObjects() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("delete.sqlite")
        let (ada, bob, _) = try await makeV1Store(at: path)
        var changes = stepV1V2.changes
        changes.append(.deleteObjects("Author") { old in try old.value("fullName", as: String.self).hasPrefix("Bob") })
        let history = SchemaHistory(migrationV1, migrationV2, steps: [MigrationStep(from: "V1", to: "V2", changes: changes)])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let writers = try await stack.fetchAll(From<MV2.Writer>())
        #expect(writers.map(\.id.rawValue) == [ada])
        let books = try await stack.fetchAll(From<MV2.Book>().orderBy(.ascending(\.pages)))
        #expect(books.map { $0.author?.rawValue } == [ada, ada, nil])
        let next = try await stack.perform { tx in try tx.create(Into<MV2.Writer>()) { $0.name = "New" }.id.rawValue }
        #expect(next > bob)
        await stack.close()
    }

    @Test("a cancelled migration rolls back and throws CancellationError; the store stays at its version")
    func cancellation() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("cancel.sqlite")
        try await makeV1Store(at: path)
        let latch = Latch()
        let step = MigrationStep(
            from: "V2", to: "V3", .transform(MV3.Writer.self) { _, _ in latch.hold() })
        let history = SchemaHistory(migrationV1, migrationV2, migrationV3, steps: [stepV1V2, step])
        let opening = Task { try await DataStack(history, storage: SQLiteStore(path: path)) }
        await latch.reached()
        opening.cancel()
        latch.release()
        latch.release()
        await #expect(throws: CancellationError.self) { try await opening.value }
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
    }
}

/// A store whose migration only adds a field: no step copies rows.
enum ProgressV1 {
    @Entity(name: "Gauge") struct Gauge { var level: Int = 0 }
}

enum ProgressV2 {
    @Entity(name: "Gauge") struct Gauge {
        var level: Int = 0
        var label: String = "new"
    }
}

enum ProgressV3 {
    @Entity(name: "Gauge") struct Gauge { var amount: Int = 0 }
}

/// A store of version G1 at `path` holding one gauge (level 3), closed; returns the gauge's ID.
@discardableResult
private func makeGaugeStore(at path: String) async throws -> ProgressV1.Gauge.ID {
    let stack = try await DataStack(Schema("G1", ProgressV1.Gauge.self), storage: SQLiteStore(path: path))
    let gauge = try await stack.perform { tx in try tx.create(Into<ProgressV1.Gauge>()) { $0.level = 3 } }
    await stack.close()
    return gauge.id
}
