import Foundation
import Testing
@testable import Strata

/// Raw SQL reads: one read-only query, bound arguments, rows as values.
@Suite("Raw SQL reads")
struct RawSQLTests {
    private func makeStack() async throws -> DataStack {
        let stack = try await DataStack(Schema("V1", Person.self, Counter.self))
        try await stack.perform { tx in
            for (name, age) in [("Ada", 36), ("Brian", 17), ("Cy", 36), ("Dee", 50)] {
                try tx.create(Into<Person>()) { $0.name = name; $0.age = age }
            }
            try tx.create(Into<Person>()) { $0.name = "Eve"; $0.age = 22; $0.email = "eve@example.com" }
        }
        return stack
    }

    @Test("rows come back in column order with names, arguments bound in order, NULL as nil")
    func rowsAndArguments() async throws {
        let stack = try await makeStack()
        let rows = try await stack.fetchRows(
            sql: "SELECT age, count(*) AS people, max(email) AS mail FROM Person WHERE age >= ? GROUP BY age ORDER BY age",
            arguments: [18])
        #expect(rows.map(\.columns).allSatisfy { $0 == ["age", "people", "mail"] })
        #expect(rows.map { $0["age", as: Int.self] } == [22, 36, 50])
        #expect(rows.map { $0[1, as: Int.self] } == [1, 2, 1])
        #expect(rows[0]["mail", as: String.self] == "eve@example.com")
        #expect(rows[1]["mail"] == .null)
        #expect(rows[1]["mail", as: String.self] == nil)
        #expect(rows[0]["nope"] == nil)
        let nilArgument: String? = nil
        #expect(try await stack.fetchValue(Int.self, sql: "SELECT count(*) FROM Person WHERE email IS ?", arguments: [nilArgument]) == 4)
        #expect(try await stack.fetchValue(String.self, sql: "SELECT name FROM Person WHERE age = ? ORDER BY name", arguments: [36]) == "Ada")
        #expect(try await stack.fetchValue(Int.self, sql: "SELECT age FROM Person WHERE name = ?", arguments: ["nobody"]) == nil)
        // WITH and VALUES are queries too; comments and a final semicolon are fine.
        let ctes = try await stack.fetchRows(sql: """
            -- the adults, oldest first
            WITH adults AS (SELECT name, age FROM Person WHERE age >= 18) SELECT name FROM adults ORDER BY age DESC, name;
            """)
        #expect(ctes.compactMap { $0[0, as: String.self] } == ["Dee", "Ada", "Cy", "Eve"])
        #expect(try await stack.fetchRows(sql: "/* pair */ VALUES (1, 'a'), (2, 'b')").count == 2)
        // A comment ended by a Windows line break.
        #expect(try await stack.fetchValue(Int.self, sql: "-- the count\r\nSELECT count(*) FROM Person") == 5)
        // IDs are the raw values of the objects' IDs.
        let ada = try #require(try await stack.fetchOne(From<Person>().where(\.name == "Ada")))
        #expect(try await stack.fetchValue(Int64.self, sql: "SELECT id FROM Person WHERE name = 'Ada'") == ada.id.rawValue)
        await stack.close()
    }

    @Test("inside a transaction the query sees the transaction's own changes; in read(_:) the read's snapshot")
    func insideTransactionsAndReads() async throws {
        let stack = try await makeStack()
        let seen = try await stack.perform { tx in
            try tx.create(Into<Person>()) { $0.name = "Fay"; $0.age = 80 }
            return try tx.fetchValue(Int.self, sql: "SELECT count(*) FROM Person")
        }
        #expect(seen == 6)
        let (count, rows) = try await stack.read { r in
            (try r.fetchValue(Int.self, sql: "SELECT count(*) FROM Person"), try r.fetchRows(sql: "SELECT name FROM Person WHERE age > 70"))
        }
        #expect(count == 6)
        #expect(rows.map { $0[0] } == [.text("Fay")])
        await stack.close()
    }

    @Test("writes, transaction control, pragmas, several statements and a wrong argument count are refused before they run")
    func refusals() async throws {
        let stack = try await makeStack()
        let writes = [
            "INSERT INTO Person (id, name, age) VALUES (999, 'X', 1)",
            "UPDATE Person SET age = 0",
            "DELETE FROM Person",
            "WITH x AS (SELECT 1) DELETE FROM Person",
            "BEGIN", "COMMIT", "SAVEPOINT s", "PRAGMA journal_mode = DELETE", "PRAGMA user_version = 7",
            "ATTACH DATABASE ':memory:' AS other", "CREATE TABLE t (x)", "DROP TABLE Person",
        ]
        for sql in writes {
            let error = await expectStrataError(.unsupportedQuery) { try await stack.fetchRows(sql: sql) }
            #expect(error?.message.contains("read-only query") == true, "\(sql): \(error?.message ?? "")")
        }
        // Also inside a transaction, where a COMMIT would end Strata's transaction under it.
        await #expect(throws: StrataError.self) {
            try await stack.perform { tx in _ = try tx.fetchRows(sql: "COMMIT") }
        }
        // A query SQLite calls read-only that writes when it runs (ANALYZE, through pragma_optimize):
        // inside a transaction it runs with writes turned off, and writes nothing (before, it created
        // and filled sqlite_stat1).
        try await stack.perform { tx in
            for index in 0..<50 { try tx.create(Into<Person>()) { $0.name = "P\(index)"; $0.age = index } }
            _ = try tx.fetchRows(sql: "SELECT name FROM Person WHERE age = 3")
            _ = try? tx.fetchRows(sql: "SELECT * FROM pragma_optimize(0x10002)")
        }
        let statistics = try await stack.perform { tx in
            try tx.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat1'")
        }
        #expect(statistics == 0)
        // Writes are allowed again in the transaction after a raw read.
        try await stack.perform { tx in
            _ = try tx.fetchRows(sql: "SELECT 1")
            try tx.create(Into<Counter>()) { $0.key = "after" }
        }
        for sql in ["SELECT 1; DELETE FROM Person", "SELECT 1; SELECT 2"] {
            let error = await expectStrataError(.invalidArgument) { try await stack.fetchRows(sql: sql) }
            #expect(error?.message.contains("more than one statement") == true, "\(error?.message ?? "")")
        }
        for sql in ["", "  -- nothing\n", "/* only a comment */"] {
            _ = await expectStrataError(.invalidArgument) { try await stack.fetchRows(sql: sql) }
        }
        let counted = await expectStrataError(.invalidArgument) {
            try await stack.fetchRows(sql: "SELECT * FROM Person WHERE age > ? AND name = ?", arguments: [1])
        }
        #expect(counted?.message.contains("2 parameters but 1 argument was given") == true, "\(counted?.message ?? "")")
        let broken = await expectStrataError(.sqlite) { try await stack.fetchRows(sql: "SELECT nope FROM Person") }
        #expect(broken?.message.contains("no such column") == true)
        #expect(broken?.sqliteCode != nil)
        // Nothing was written by the refused statements.
        #expect(try await stack.fetchCount(From<Person>()) == 55)
        await stack.close()
    }

    @Test("in a stack of several stores, a table only one store holds is found, and a shared one reads the default store")
    func severalStores() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory)
        try await stack.perform { tx in
            try tx.create(Into<StoreThumbnail>()) { $0.url = "a.png"; $0.bytes = 10 }
            try tx.create(Into<StoreNote>(nil)) { $0.title = "main" }
            try tx.create(Into<StoreNote>("Shared")) { $0.title = "shared" }
        }
        #expect(try await stack.fetchValue(String.self, sql: "SELECT url FROM Thumbnail") == "a.png")
        #expect(try await stack.fetchRows(sql: "SELECT title FROM Note").map { $0[0] } == [.text("main")])
        await stack.close()
    }
}
