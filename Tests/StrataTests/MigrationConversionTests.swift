import Foundation
import Testing
@testable import Strata

enum ConvertV1 {
    @Entity(name: "Reading")
    struct Reading {
        var precise: Double = 0
        var rough: Float = 0
        var flag: Bool = false
        var count: Int = 0
        var small: Int16 = 0
        var big: UInt64 = 0
    }
}

enum ConvertV2 {
    /// Every field changes its column type in a way a migration infers.
    @Entity(name: "Reading")
    struct Reading {
        var precise: String = ""
        var rough: String = ""
        var flag: String = ""
        var count: Double = 0
        var small: Float = 0
        var big: Double = 0
    }

    /// A Bool and a small integer that become Doubles: exact for every value Strata writes.
    @Entity(name: "Reading")
    struct WidenedReading {
        var precise: Double = 0
        var rough: Float = 0
        var flag: Double = 0
        var count: Int = 0
        var small: Double = 0
        var big: UInt64 = 0
    }

    /// An integer that becomes a date: no epoch to infer.
    @Entity(name: "Reading")
    struct DatedReading {
        var precise: Double = 0
        var rough: Float = 0
        var flag: Bool = false
        var count: Date = .distantPast
        var small: Int16 = 0
        var big: UInt64 = 0
    }
}

@Suite("Migrations: inferred changes of a field's type keep every value", .timeLimit(.minutes(1)))
struct MigrationConversionTests {
    static let v1 = Schema("V1", ConvertV1.Reading.self)

    func makeStore(_ path: String, _ configure: @escaping @Sendable (inout ConvertV1.Reading) -> Void) async throws {
        let stack = try await DataStack(Self.v1, storage: SQLiteStore(path: path))
        try await stack.perform { tx in _ = try tx.create(Into<ConvertV1.Reading>()) { configure(&$0) } }
        await stack.close()
    }

    @Test("numbers become text as Swift prints them, a Bool as true or false, integers become exact reals")
    func exactConversions() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("readings.sqlite")
        try await makeStore(path) {
            $0.precise = 123456789.123456789
            $0.rough = 0.1
            $0.flag = true
            $0.count = 1 << 53
            $0.small = 300
            $0.big = 5
        }
        let stack = try await DataStack(SchemaHistory(Self.v1, Schema("V2", ConvertV2.Reading.self)), storage: SQLiteStore(path: path))
        let reading = try #require(try await stack.fetchAll(From<ConvertV2.Reading>()).first)
        // Before, SQL's CAST kept 15 digits ("123456789.123457"), a Float printed as a Double
        // ("0.100000001490116"), and a Bool as "1".
        #expect(reading.precise == String(123456789.123456789))
        #expect(reading.rough == "0.1")
        #expect(reading.flag == "true")
        #expect(reading.count == Double(1 << 53) && reading.small == 300 && reading.big == 5)
        await stack.close()
    }

    @Test("a real column's integers and another program's text keep every character when the field becomes text")
    func integersAndTextInRealColumn() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("readings.sqlite")
        try await makeStore(path) { $0.precise = 1 }
        try await makeStore(path) { $0.precise = 2 }
        // Another program wrote an integer past 2^53 and a text where Strata writes reals.
        do {
            let connection = try Connection(path: path, options: Connection.Options())
            defer { connection.close() }
            try connection.execute("UPDATE Reading SET precise = 9007199254740993 WHERE id = 1")
            try connection.execute("UPDATE Reading SET precise = '12abc' WHERE id = 2")
        }
        let stack = try await DataStack(SchemaHistory(Self.v1, Schema("V2", ConvertV2.Reading.self)), storage: SQLiteStore(path: path))
        let readings = try await stack.fetchAll(From<ConvertV2.Reading>().orderBy(.ascending(\.id)))
        #expect(readings.map(\.precise) == ["9007199254740993", "12abc"])
        await stack.close()
    }

    @Test("values a conversion would change are refused before anything is written, naming the field")
    func inexactValuesRefused() async throws {
        let cases: [(String, @Sendable (inout ConvertV1.Reading) -> Void)] = [
            ("count", { $0.count = (1 << 53) + 1 }),
            ("big", { $0.big = .max }),
        ]
        for (field, configure) in cases {
            let directory = try TemporaryDirectory()
            let path = directory.path("readings.sqlite")
            try await makeStore(path, configure)
            let error = await #expect(throws: StrataError.self) {
                try await DataStack(SchemaHistory(Self.v1, Schema("V2", ConvertV2.Reading.self)), storage: SQLiteStore(path: path))
            }
            #expect(error?.code == .invalidMigration && error?.field == field, "\(String(describing: error))")
            #expect(error?.message.contains(".transform") == true)
            // The store is left at V1.
            let old = try await DataStack(Self.v1, storage: SQLiteStore(path: path))
            #expect(try await old.fetchCount(From<ConvertV1.Reading>()) == 1)
            await old.close()
        }
    }

    @Test("text another program wrote in a Bool or small-integer column is refused when the field becomes a Double")
    func textInNarrowIntegerColumnRefused() async throws {
        let v2 = Schema("V2", ConvertV2.WidenedReading.self)
        for (column, text) in [("flag", "yes"), ("small", "x1")] {
            let directory = try TemporaryDirectory()
            let path = directory.path("readings.sqlite")
            try await makeStore(path) { $0.flag = true; $0.small = 7 }
            do {
                let connection = try Connection(path: path, options: Connection.Options())
                defer { connection.close() }
                try connection.execute("UPDATE Reading SET \(column) = '\(text)'")
            }
            // Before, SQL's CAST turned the text into 0 without a word.
            let error = await #expect(throws: StrataError.self) {
                try await DataStack(SchemaHistory(Self.v1, v2), storage: SQLiteStore(path: path))
            }
            #expect(error?.code == .invalidMigration && error?.field == column, "\(String(describing: error))")
            #expect(error?.message.contains("not numbers") == true)
        }
        // Without such text, the values arrive exactly.
        let directory = try TemporaryDirectory()
        let path = directory.path("readings.sqlite")
        try await makeStore(path) { $0.flag = true; $0.small = -300 }
        let stack = try await DataStack(SchemaHistory(Self.v1, v2), storage: SQLiteStore(path: path))
        let reading = try #require(try await stack.fetchAll(From<ConvertV2.WidenedReading>()).first)
        #expect(reading.flag == 1 && reading.small == -300)
        await stack.close()
    }

    @Test("an integer that becomes a Date is refused without a transform, and converted by one")
    func integerToDate() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("readings.sqlite")
        try await makeStore(path) { $0.count = 1_700_000_000 }
        let v2 = Schema("V2", ConvertV2.DatedReading.self)
        let error = await #expect(throws: StrataError.self) {
            try await DataStack(SchemaHistory(Self.v1, v2), storage: SQLiteStore(path: path))
        }
        #expect(error?.code == .invalidMigration && error?.field == "count")
        let step = MigrationStep(from: "V1", to: "V2", .transform(ConvertV2.DatedReading.self) { old, reading in
            reading.count = Date(timeIntervalSince1970: TimeInterval(try old.value("count", as: Int.self)))
        })
        let stack = try await DataStack(SchemaHistory(Self.v1, v2, steps: [step]), storage: SQLiteStore(path: path))
        #expect(try await stack.fetchAll(From<ConvertV2.DatedReading>()).first?.count == Date(timeIntervalSince1970: 1_700_000_000))
        await stack.close()
    }
}
