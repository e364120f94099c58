import Foundation
import Testing
@testable import Strata

@Suite("SQLite layer")
struct SQLiteLayerTests {
    @Test("every supported type round-trips through a column", arguments: StoreKind.allCases)
    func allTypesRoundTrip(kind: StoreKind) async throws {
        let (stack, directory) = try await makeStack(kind)
        let date = Date(timeIntervalSince1970: 1_700_000_000.125)
        let uuid = UUID()
        let created = try await stack.perform { tx in
            try tx.create(Into<AllTypes>()) {
                $0.bool = true
                $0.int = .max
                $0.int8 = .min
                $0.int16 = -12_345
                $0.int32 = .max
                $0.int64 = .min
                $0.uint = 42
                $0.uint8 = .max
                $0.uint16 = .max
                $0.uint32 = .max
                $0.uint64 = .max
                $0.double = 3.141_592_653_589_793
                $0.float = 2.5
                $0.string = "héllo, wörld — 🌍\\u{0}tail"
                $0.data = Data([0, 1, 2, 255])
                $0.date = date
                $0.uuid = uuid
                $0.url = URL(string: "https://example.com/a?b=c#d")!
                $0.decimal = Decimal(string: "12345678901234567890.123456789")!
                $0.mood = .grumpy
                $0.priority = .high
                $0.optionalInt = 7
                $0.optionalString = nil
                $0.optionalDate = date
                $0.optionalMood = .happy
            }
        }
        let fetched = try #require(try await stack.fetchExisting(created.id))
        #expect(fetched == created)
        #expect(fetched.uint64 == .max)
        #expect(fetched.decimal == Decimal(string: "12345678901234567890.123456789")!)
        #expect(fetched.date == date)
        #expect(fetched.optionalString == nil)
        withExtendedLifetime(directory) {}
    }

    @Test("dynamic initial values are computed anew for every created object")
    func dynamicInitialValues() async throws {
        let (stack, _) = try await makeStack()
        let (first, second) = try await stack.perform { tx in
            (try tx.create(Into<AllTypes>()), try tx.create(Into<AllTypes>()))
        }
        #expect(first.token != second.token)
        #expect(first.created > Date.distantPast)
    }

    @Test("a stored value that cannot be read as the field's type is a typeMismatch naming the column")
    func typeMismatch() async throws {
        let (stack, _) = try await makeStack()
        let object = try await stack.perform { tx in try tx.create(Into<AllTypes>()) }
        try await stack.perform { tx in
            try tx.connection.execute("UPDATE AllTypes SET int8 = ? WHERE id = ?", [.integer(1_000), .integer(object.id.rawValue)])
        }
        let error = await expectStrataError(.typeMismatch) { _ = try await stack.fetchExisting(object.id) }
        #expect(error?.field == "int8")
        #expect(error?.entity == "AllTypes")
    }

    @Test("values convert to and from DatabaseValue exactly")
    func conversions() {
        #expect(Int8(databaseValue: .integer(128)) == nil)
        #expect(UInt8(databaseValue: .integer(-1)) == nil)
        #expect(UInt64(databaseValue: UInt64.max.databaseValue) == .max)
        #expect(Int(databaseValue: .real(2.0)) == 2)
        #expect(Int(databaseValue: .real(2.5)) == nil)
        #expect(Bool(databaseValue: .integer(0)) == false)
        #expect(String(databaseValue: .integer(1)) == nil)
        #expect(Optional<Int>(databaseValue: .null) == .some(nil))
        #expect(Mood(databaseValue: .text("grumpy")) == .grumpy)
        #expect(Mood(databaseValue: .text("sleepy")) == nil)
        #expect(Priority(databaseValue: .integer(9)) == .high)
        let uuid = UUID()
        #expect(UUID(databaseValue: uuid.databaseValue) == uuid)
        #expect(UUID(databaseValue: .blob(Data([1, 2]))) == nil)
        #expect(Decimal(databaseValue: Decimal(string: "0.1")!.databaseValue) == Decimal(string: "0.1")!)
        // Text that is a number and more, or a real past Float's range, is no such value (a type mismatch).
        for text in ["12abc", "2024-01-05", "1.2.3", "12-34", "1e5e5", "", "-", ".", "1e"] {
            #expect(Decimal(databaseValue: .text(text)) == nil, "\(text)")
        }
        #expect(Decimal(databaseValue: .text("-1.5e3")) == Decimal(-1500))
        #expect(Decimal(databaseValue: .text(".5")) == Decimal(string: "0.5"))
        #expect(Float(databaseValue: .real(1e300)) == nil)
        #expect(Float(databaseValue: .real(3.4028235e38)) == .greatestFiniteMagnitude)
        #expect(Float(databaseValue: .real(-.infinity)) == -.infinity)
        #expect(Date.storageClass == .real)
        #expect(Optional<String>.isOptional)
        #expect(!String.isOptional)
    }

    @Test("statements are prepared once and reused from the cache")
    func statementCache() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(path: directory.path("cache.sqlite"), options: Connection.Options())
        try connection.execute("CREATE TABLE t (x INTEGER)")
        let first = try connection.cachedStatement("INSERT INTO t (x) VALUES (?)")
        try first.bind(.integer(1), at: 1)
        _ = try first.step()
        let second = try connection.cachedStatement("INSERT INTO t (x) VALUES (?)")
        #expect(first === second)
        try second.bind(.integer(2), at: 1)
        _ = try second.step()
        let count = try connection.cachedStatement("SELECT count(*) FROM t")
        _ = try count.step()
        #expect(count.value(at: 0) == .integer(2))
    }

    @Test("the statement cache stays bounded and keeps the statements in use")
    func boundedCache() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(path: directory.path("bounded.sqlite"), options: Connection.Options())
        let kept = try connection.cachedStatement("SELECT 0")
        for index in 1...1_000 {
            let statement = try connection.cachedStatement("SELECT \(index)")
            _ = try statement.step()
            #expect(statement.value(at: 0) == .integer(Int64(index)))
            if index.isMultiple(of: 10) { _ = try connection.cachedStatement("SELECT 0") }
        }
        #expect(connection.cachedStatementCount <= Connection.cacheCapacity)
        #expect(try connection.cachedStatement("SELECT 0") === kept)
    }

    @Test("a SQLite error carries the primary and extended codes, the message and the SQL")
    func errorCarriesCodes() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(path: directory.path("errors.sqlite"), options: Connection.Options())
        do {
            _ = try connection.makeStatement("SELEKT 1")
            Issue.record("Expected a syntax error")
        } catch {
            #expect(error.code == .sqlite)
            #expect(error.sqliteCode == 1)
            #expect(error.sql == "SELEKT 1")
            #expect(error.message.contains("syntax error"))
            #expect(error.description.contains("SQLite code 1"))
        }
        try connection.execute("CREATE TABLE t (x INTEGER NOT NULL)")
        do {
            try connection.execute("INSERT INTO t (x) VALUES (?)", [.null])
            Issue.record("Expected a constraint error")
        } catch {
            #expect(error.code == .constraint)
            #expect(error.sqliteCode == 19)
            #expect(error.extendedCode == 1299)  // SQLITE_CONSTRAINT_NOTNULL
        }
    }

    @Test("a connection sets the busy timeout, foreign keys and synchronous as configured")
    func connectionSettings() throws {
        let directory = try TemporaryDirectory()
        var options = Connection.Options()
        options.busyTimeoutMilliseconds = 50
        options.synchronous = .full
        let connection = try Connection(path: directory.path("settings.sqlite"), options: options)
        // The busy timeout is Strata's own busy handler (so that long waits can be logged), not the
        // pragma: while another connection holds the write lock, a write gives up with busy after it.
        let other = try Connection(path: directory.path("settings.sqlite"), options: Connection.Options())
        try other.execute("BEGIN IMMEDIATE")
        let busy = #expect(throws: StrataError.self) { try connection.execute("BEGIN IMMEDIATE") }
        #expect(busy?.code == .busy)
        #expect(busy?.message.contains("raise DataStack.Configuration.busyTimeout") == true)
        try other.execute("COMMIT")
        try connection.execute("BEGIN IMMEDIATE")
        try connection.execute("COMMIT")
        func pragma(_ name: String) throws -> DatabaseValue {
            let statement = try connection.makeStatement("PRAGMA \(name)")
            _ = try statement.step()
            return statement.value(at: 0)
        }
        #expect(try pragma("foreign_keys") == .integer(1))
        #expect(try pragma("synchronous") == .integer(2))
        #expect(try pragma("journal_mode") == .text("wal"))
    }

    @Test("a write from a read snapshot another connection's commit made stale says to run the transaction again")
    func staleSnapshot() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(path: directory.path("snapshot.sqlite"), options: Connection.Options())
        let other = try Connection(path: directory.path("snapshot.sqlite"), options: Connection.Options())
        try connection.execute("CREATE TABLE t (x)")
        try connection.execute("BEGIN DEFERRED")
        try connection.execute("SELECT count(*) FROM t")
        try other.execute("INSERT INTO t VALUES (1)")
        let stale = #expect(throws: StrataError.self) { try connection.execute("INSERT INTO t VALUES (2)") }
        #expect(stale?.code == .busy && stale?.extendedCode == 517)
        #expect(stale?.message.contains("Run the transaction again") == true, "\(String(describing: stale))")
        try connection.execute("ROLLBACK")
    }
}
