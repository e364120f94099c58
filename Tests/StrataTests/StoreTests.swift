import Foundation
import Synchronization
import Testing
@testable import Strata

/// An entity and a column whose names hold dots and a comma, as SQLite's constraint messages join them
/// ("app.Person.nick.name, alias"), and an entity named like the first part.
@Entity(name: "app.Person")
struct DottedPerson {
    @Field(.unique) var email: String = ""
    @Field(column: "nick.name, alias", .unique) var nickname: String?
}

@Entity(name: "app")
struct DottedApp {
    @Field(column: "Person", .unique) var person: String = ""
}

@Suite("Opening stores")
struct StoreTests {
    @Test("a file store creates its file, and a second stack on it sees the data")
    func fileStorePersists() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("people.sqlite")
        do {
            let stack = try await DataStack(testSchema, storage: SQLiteStore(path: path))
            try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Ada" } }
        }
        #expect(FileManager.default.fileExists(atPath: path))
        let reopened = try await DataStack(testSchema, storage: SQLiteStore(url: URL(fileURLWithPath: path)))
        #expect(try await reopened.fetchAll(From<Person>()).map(\.name) == ["Ada"])
    }

    @Test("a file store is in WAL mode with foreign keys on")
    func pragmas() async throws {
        let (stack, directory) = try await makeStack(.file)
        let (journal, foreignKeys, synchronous) = try await stack.perform { tx in
            (try tx.pragma("journal_mode"), try tx.pragma("foreign_keys"), try tx.pragma("synchronous"))
        }
        #expect(journal == .text("wal"))
        #expect(foreignKeys == .integer(1))
        #expect(synchronous == .integer(1))  // NORMAL
        withExtendedLifetime(directory) {}
    }

    @Test("a statement trace sees every statement's SQL, and never a value")
    func statementTrace() async throws {
        final class Lines: Sendable {
            let lines = Locked<[String]>([])
        }
        let lines = Lines()
        var configuration = DataStack.Configuration()
        configuration.statementTrace = { sql in lines.lines.withLock { $0.append(sql) } }
        let (stack, _) = try await makeStack(configuration: configuration)
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Secret Name" } }
        _ = try await stack.fetchAll(From<Person>().where(\.name == "Secret Name"))
        let traced = lines.lines.withLock { $0 }
        #expect(traced.contains { $0.hasPrefix("INSERT INTO \"Person\"") })
        #expect(traced.contains { $0.hasPrefix("SELECT") && $0.contains("WHERE") })
        #expect(!traced.contains { $0.contains("Secret Name") })
    }

    @Test("every in-memory stack has a database of its own, removed when the stack closes")
    func inMemoryIsolation() async throws {
        let first = try await DataStack(testSchema)
        let second = try await DataStack(testSchema)
        try await first.perform { tx in try tx.create(Into<Person>()) }
        #expect(try await first.fetchCount(From<Person>()) == 1)
        #expect(try await second.fetchCount(From<Person>()) == 0)
        #expect(FileManager.default.fileExists(atPath: first.path))
        await first.close()
        #expect(!FileManager.default.fileExists(atPath: first.path))
        #expect(!FileManager.default.fileExists(atPath: first.path + "-wal"))
    }

    @Test("a closed stack refuses reads and writes with stackClosed, and its file can be reopened",
          arguments: StoreKind.allCases)
    func closedStack(kind: StoreKind) async throws {
        let (stack, directory) = try await makeStack(kind)
        try await stack.perform { tx in try tx.create(Into<Person>()) }
        _ = try await stack.fetchCount(From<Person>())
        await stack.close()
        await expectStrataError(.stackClosed) { try await stack.perform { tx in try tx.create(Into<Person>()) } }
        await expectStrataError(.stackClosed) { _ = try await stack.fetchCount(From<Person>()) }
        await expectStrataError(.stackClosed) { _ = try await stack.beginUnsafe() }
        if kind == .file {
            let reopened = try await DataStack(testSchema, storage: SQLiteStore(path: stack.path))
            #expect(try await reopened.fetchCount(From<Person>()) == 1)
        }
        withExtendedLifetime(directory) {}
    }

    @Test("opening a file that is not a SQLite database fails clearly and leaves the file untouched")
    func notADatabase() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.txt")
        let content = Data(String(repeating: "These are not the bytes of a database.\n", count: 200).utf8)
        try content.write(to: URL(fileURLWithPath: path))
        let error = await expectStrataError(.notADatabase) {
            _ = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        }
        #expect(error?.message.contains(path) == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(files == ["notes.txt"])
    }

    @Test("opening a store in a location that cannot be written fails clearly and creates nothing")
    func readOnlyLocation() async throws {
        let directory = try TemporaryDirectory()
        let readOnly = directory.url.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: readOnly.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: readOnly.path) }
        // Root ignores directory permissions; /proc is read-only for everyone.
        let path = getuid() == 0 ? "/proc/strata-test-\(UUID().uuidString).sqlite" : readOnly.appendingPathComponent("db.sqlite").path
        let error = await expectStrataError(.cannotOpen) {
            _ = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        }
        #expect(error?.extendedCode != nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: readOnly.path).isEmpty)
    }

    @Test("a store by file name lives in the default directory; a name with a slash is refused")
    func fileNameStore() throws {
        let location = try SQLiteStore(fileName: "app.sqlite").location()
        #expect(location.path == SQLiteStore.defaultDirectory.appendingPathComponent("app.sqlite").path)
        #expect(!location.isTemporary)
        #expect(FileManager.default.fileExists(atPath: SQLiteStore.defaultDirectory.path))
        #expect(throws: StrataError.self) { try SQLiteStore(fileName: "nested/app.sqlite").location() }
        #expect(throws: StrataError.self) { try SQLiteStore(fileName: "").location() }
    }

    @Test("a statement that cannot open a file of an open database (its -wal or -shm) names the path and what to do")
    func cannotOpenDuringStatement() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let connection = try Connection(path: path, options: Connection.Options())
        // What SQLite reports when a read-only directory keeps it from creating the -shm file.
        let error = connection.error(rc: 14 /* SQLITE_CANTOPEN */, sql: "SELECT count(*) FROM sqlite_schema", message: "unable to open database file")
        #expect(error.code == .cannotOpen)
        #expect(error.message.contains(path) && error.message.contains("-shm") && error.message.contains("writable"))
    }

    @Test("a missing directory is a cannotOpen error that names the path")
    func missingDirectory() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing/db.sqlite")
        let error = await expectStrataError(.cannotOpen) {
            _ = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        }
        #expect(error?.message.contains(path) == true)
    }

    @Test("opening a store with another schema version or changed entities is a schemaMismatch")
    func schemaMismatch() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("versioned.sqlite")
        _ = try await DataStack(Schema("V1", Person.self), storage: SQLiteStore(path: path))
        await expectStrataError(.schemaMismatch) {
            _ = try await DataStack(Schema("V2", Person.self), storage: SQLiteStore(path: path))
        }
        await expectStrataError(.schemaMismatch) {
            _ = try await DataStack(Schema("V1", Person.self, Pet.self), storage: SQLiteStore(path: path))
        }
        let reopened = try await DataStack(Schema("V1", Person.self), storage: SQLiteStore(path: path))
        #expect(try await reopened.fetchCount(From<Person>()) == 0)
    }

    @Test("a schemaMismatch for an edited version names what differs; one for another version allows that the store may be newer")
    func schemaMismatchMessages() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("gadgets.sqlite")
        await (try DataStack(Schema("V1", GadgetV1.Gadget.self), storage: SQLiteStore(path: path))).close()
        let edited = await expectStrataError(.schemaMismatch) {
            _ = try await DataStack(Schema("V1", GadgetEdited.Gadget.self), storage: SQLiteStore(path: path))
        }
        #expect(edited?.message.contains("Gadget's table lacks weight") == true)
        #expect(edited?.message.contains("Gadget's table has size, which the schema lacks") == true)
        let retyped = await expectStrataError(.schemaMismatch) {
            _ = try await DataStack(Schema("V1", GadgetRetyped.Gadget.self), storage: SQLiteStore(path: path))
        }
        #expect(retyped?.message.contains("type, optionality") == true)
        let other = await expectStrataError(.schemaMismatch) {
            _ = try await DataStack(Schema("V0", GadgetV1.Gadget.self), storage: SQLiteStore(path: path))
        }
        #expect(other?.message.contains("newer version of the app") == true)
    }

    @Test("a database with tables Strata did not make is refused and left untouched")
    func foreignDatabase() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("foreign.sqlite")
        do {
            let connection = try Connection(path: path, options: Connection.Options())
            try connection.execute("CREATE TABLE notes (body TEXT)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        await expectStrataError(.schemaMismatch) {
            _ = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("another app's rollback-journal database is refused before anything is written: not switched to WAL, no file left beside it")
    func foreignRollbackJournalDatabase() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("other-app.sqlite")
        do {
            var options = Connection.Options()
            options.walMode = false
            let connection = try Connection(path: path, options: options)
            try connection.execute("CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            try connection.execute("CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)")
            try connection.execute("INSERT INTO player (name) VALUES ('Ada')")
            let journal = try connection.makeStatement("PRAGMA journal_mode")
            #expect(try journal.step() && journal.value(at: 0) == .text("delete"))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // Bytes 18 and 19 of the header: 1 for a rollback journal, 2 for WAL.
        #expect(before[18] == 1 && before[19] == 1)
        let storages = [SQLiteStore(path: path), SQLiteStore(path: path).recreatingOnSchemaMismatch()]
        for storage in storages {
            let error = await expectStrataError(.schemaMismatch) {
                _ = try await DataStack(Schema("V1", Person.self), storage: storage)
            }
            #expect(error?.message.contains("Strata opens only stores it made") == true)
            await expectStrataError(.schemaMismatch) { _ = try await DataStack(SchemaHistory(testSchema), storage: storage) }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["other-app.sqlite"])
    }

    @Test("a unique-constraint violation names the entity and the field, and the transaction leaves no trace",
          arguments: StoreKind.allCases)
    func uniqueViolation(kind: StoreKind) async throws {
        let (stack, directory) = try await makeStack(kind)
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.email = "ada@example.com" } }
        let error = await expectStrataError(.uniqueConstraint) {
            try await stack.perform { tx in
                try tx.create(Into<Person>()) { $0.name = "first" }
                try tx.create(Into<Person>()) { $0.email = "ada@example.com" }
            }
        }
        #expect(error?.entity == "Person")
        #expect(error?.field == "email")
        #expect(error?.extendedCode == 2067)
        #expect(error?.sql?.hasPrefix("INSERT INTO \"Person\"") == true)
        #expect(error?.description.contains("ada@example.com") == false)
        #expect(try await stack.fetchCount(From<Person>()) == 1)

        let renamed = await expectStrataError(.uniqueConstraint) {
            try await stack.perform { tx in
                try tx.create(Into<Counter>()) { $0.key = "k" }
                try tx.create(Into<Counter>()) { $0.key = "k" }
            }
        }
        #expect(renamed?.entity == "Counter")
        #expect(renamed?.field == "key")
        withExtendedLifetime(directory) {}
    }

    @Test("a unique-constraint violation names an entity and a field whose names hold dots and commas")
    func uniqueViolationWithDottedNames() async throws {
        let stack = try await DataStack(Schema("V1", DottedPerson.self, DottedApp.self))
        try await stack.perform { tx in
            try tx.create(Into<DottedPerson>()) { $0.email = "ada@example.com"; $0.nickname = "ada" }
            try tx.create(Into<DottedApp>()) { $0.person = "x" }
        }
        // Before, "app.Person.email" was split at its first dot: entity "app", field "Person.email".
        let email = await expectStrataError(.uniqueConstraint) {
            try await stack.perform { tx in try tx.create(Into<DottedPerson>()) { $0.email = "ada@example.com" } }
        }
        #expect(email?.entity == "app.Person" && email?.field == "email")
        #expect(email?.message.contains("Another app.Person already has this email") == true, "\(email?.message ?? "")")
        let nickname = await expectStrataError(.uniqueConstraint) {
            try await stack.perform { tx in try tx.create(Into<DottedPerson>()) { $0.email = "b"; $0.nickname = "ada" } }
        }
        #expect(nickname?.entity == "app.Person" && nickname?.field == "nickname")
        let app = await expectStrataError(.uniqueConstraint) {
            try await stack.perform { tx in try tx.create(Into<DottedApp>()) { $0.person = "x" } }
        }
        #expect(app?.entity == "app" && app?.field == "person")
        #expect(try await stack.fetchCount(From<DottedPerson>()) == 1)
        await stack.close()
    }

    @Test("an entity outside the schema, duplicate entity names and a zero pool are clear errors")
    func invalidArguments() async throws {
        let (stack, _) = try await makeStack(schema: Schema("V1", Person.self))
        await expectStrataError(.invalidArgument) { _ = try await stack.fetchAll(From<Pet>()) }
        await expectStrataError(.invalidArgument) {
            _ = try await DataStack(Schema("V1", Person.self, Person.self))
        }
        var configuration = DataStack.Configuration()
        configuration.maximumReaderCount = 0
        await expectStrataError(.invalidArgument) {
            _ = try await DataStack(testSchema, configuration: configuration)
        }
        await expectStrataError(.invalidArgument) {
            _ = try await DataStack(testSchema, storage: SQLiteStore(path: ""))
        }
    }

    @Test("the schema creates tables under entity names and columns under storage names, with indexes")
    func ddl() async throws {
        let (stack, _) = try await makeStack()
        let tables = try await stack.perform { tx in
            try tx.strings("SELECT name FROM sqlite_schema WHERE type IN ('table', 'index') ORDER BY name")
        }
        #expect(tables.contains("Animal"))
        #expect(tables.contains("Person_age_index"))
        let columns = try await stack.perform { tx in try tx.strings("SELECT name FROM pragma_table_info('Animal')") }
        #expect(columns == ["id", "pet_name", "ownerID"])
    }
}

extension Transaction {
    func pragma(_ name: String) throws -> DatabaseValue {
        let statement = try connection.makeStatement("PRAGMA \(name)")
        _ = try statement.step()
        return statement.value(at: 0)
    }

    func strings(_ sql: String) throws -> [String] {
        let statement = try connection.makeStatement(sql)
        var result: [String] = []
        while try statement.step() {
            if case .text(let text) = statement.value(at: 0) { result.append(text) }
        }
        return result
    }
}

enum GadgetV1 {
    @Entity(name: "Gadget") struct Gadget {
        var name: String = ""
        var size: Int = 0
    }
}

enum GadgetEdited {
    @Entity(name: "Gadget") struct Gadget {
        var name: String = ""
        var weight: Double = 0
    }
}

enum GadgetRetyped {
    @Entity(name: "Gadget") struct Gadget {
        var name: String = ""
        var size: Int? = nil
    }
}
