import Foundation
import Testing
@testable import Strata

/// Changes of a field's Swift type that keep its column type: each V2 entity changes one field of
/// `ConvertV1.Reading`.
enum SameColumnV2 {
    @Entity(name: "Reading")
    struct Narrowed {
        var precise: Double = 0
        var rough: Float = 0
        var flag: Bool = false
        var count: Int16 = 0
        var small: Int16 = 0
        var big: UInt64 = 0
    }

    @Entity(name: "Reading")
    struct Unsigned {
        var precise: Double = 0
        var rough: Float = 0
        var flag: Bool = false
        var count: UInt64 = 0
        var small: Int16 = 0
        var big: UInt64 = 0
    }

    @Entity(name: "Reading")
    struct Signed {
        var precise: Double = 0
        var rough: Float = 0
        var flag: Bool = false
        var count: Int = 0
        var small: Int16 = 0
        var big: Int64 = 0
    }

    @Entity(name: "Reading")
    struct Flagged {
        var precise: Double = 0
        var rough: Float = 0
        var flag: Bool = false
        var count: Bool = false
        var small: Int16 = 0
        var big: UInt64 = 0
    }

    @Entity(name: "Reading")
    struct Dated {
        var precise: Date = .distantPast
        var rough: Float = 0
        var flag: Bool = false
        var count: Int = 0
        var small: Int16 = 0
        var big: UInt64 = 0
    }

    @Entity(name: "Reading")
    struct Rough {
        var precise: Float = 0
        var rough: Float = 0
        var flag: Bool = false
        var count: Int = 0
        var small: Int16 = 0
        var big: UInt64 = 0
    }

    /// Only wider types: nothing to check.
    @Entity(name: "Reading")
    struct Widened {
        var precise: Double = 0
        var rough: Float = 0
        var flag: Int8 = 0
        var count: Int64 = 0
        var small: Int = 0
        var big: UInt64 = 0
    }
}

@Suite("Migrations: a Swift type change that keeps the column type", .timeLimit(.minutes(1)))
struct MigrationSameColumnTests {
    /// Opens the store at `path` at `v2`, migrating from V1.
    func open<E: Entity>(_ path: String, _ type: E.Type) async throws -> DataStack {
        try await DataStack(SchemaHistory(MigrationConversionTests.v1, Schema("V2", E.self)), storage: SQLiteStore(path: path))
    }

    @Test("stored values the new type cannot read, or would read as other numbers, are refused before the version changes")
    func valuesOutOfRangeRefused() async throws {
        let cases: [(field: String, reason: String, @Sendable (inout ConvertV1.Reading) -> Void, open: (String) async throws -> DataStack)] = [
            // Before, each migrated: the Int16 object could not be read any more, -1 read as UInt64.max,
            // UInt64.max as -1 and 1e300 as a Float's infinity.
            ("count", "outside -32768...32767", { $0.count = 40_000 }, { try await open($0, SameColumnV2.Narrowed.self) }),
            ("count", "negative values", { $0.count = -1 }, { try await open($0, SameColumnV2.Unsigned.self) }),
            ("big", "outside 0...9223372036854775807", { $0.big = .max }, { try await open($0, SameColumnV2.Signed.self) }),
            ("precise", "which a Float cannot hold", { $0.precise = 1e300 }, { try await open($0, SameColumnV2.Rough.self) }),
        ]
        for (field, reason, configure, open) in cases {
            let directory = try TemporaryDirectory()
            let path = directory.path("readings.sqlite")
            try await MigrationConversionTests().makeStore(path) { configure(&$0) }
            let error = await #expect(throws: StrataError.self) { _ = try await open(path) }
            #expect(error?.code == .invalidMigration && error?.field == field, "\(String(describing: error))")
            #expect(error?.message.contains(reason) == true && error?.message.contains(".transform") == true,
                    "\(String(describing: error))")
            // The store is left at V1, its value unchanged.
            let old = try await DataStack(MigrationConversionTests.v1, storage: SQLiteStore(path: path))
            #expect(try await old.fetchCount(From<ConvertV1.Reading>()) == 1)
            await old.close()
        }
    }

    @Test("values the new type holds migrate as they are")
    func valuesInRangeMigrate() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("readings.sqlite")
        try await MigrationConversionTests().makeStore(path) { $0.count = -300; $0.big = 5 }
        let stack = try await open(path, SameColumnV2.Narrowed.self)
        #expect(try await stack.fetchAll(From<SameColumnV2.Narrowed>()).first?.count == -300)
        await stack.close()
        let other = try TemporaryDirectory()
        let widened = other.path("readings.sqlite")
        // Text another program stored is not a wider type's business: widening checks nothing.
        try await MigrationConversionTests().makeStore(widened) { $0.count = .max; $0.small = .min; $0.flag = true }
        let stack2 = try await open(widened, SameColumnV2.Widened.self)
        let reading = try #require(try await stack2.fetchAll(From<SameColumnV2.Widened>()).first)
        #expect(reading.count == .max && reading.small == Int(Int16.min) && reading.flag == 1)
        await stack2.close()
        // A Double that becomes a Float: rounded as Swift rounds it; infinity stays infinity.
        let third = try TemporaryDirectory()
        let rough = third.path("readings.sqlite")
        try await MigrationConversionTests().makeStore(rough) { $0.precise = 0.1 }
        try await MigrationConversionTests().makeStore(rough) { $0.precise = -.infinity }
        let stack3 = try await open(rough, SameColumnV2.Rough.self)
        let values = try await stack3.fetchAll(From<SameColumnV2.Rough>().orderBy(.ascending(\.id))).map(\.precise)
        #expect(values == [Float(0.1), -.infinity])
        await stack3.close()
    }

    @Test("an Int that becomes a Bool migrates as a Bool reads it (any value but 0 is true); a custom change lifts the checks")
    func boolAndCustom() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("readings.sqlite")
        try await MigrationConversionTests().makeStore(path) { $0.count = 2; $0.precise = 5 }
        let stack = try await open(path, SameColumnV2.Flagged.self)
        #expect(try await stack.fetchAll(From<SameColumnV2.Flagged>()).first?.count == true)
        await stack.close()
        // A step with a custom change may rewrite the values itself: nothing is refused before it runs.
        let other = try TemporaryDirectory()
        let dated = other.path("readings.sqlite")
        try await MigrationConversionTests().makeStore(dated) { $0.precise = 1_700_000_000 }
        let step = MigrationStep(from: "V1", to: "V2", .custom { migration in
            for object in try migration.sourceObjects("Reading") {
                let seconds = try object.value("precise", as: Double.self)
                try migration.transaction.edit(SameColumnV2.Dated.ID(rawValue: object.id)) {
                    $0.precise = Date(timeIntervalSince1970: seconds)
                }
            }
        })
        let history = SchemaHistory(MigrationConversionTests.v1, Schema("V2", SameColumnV2.Dated.self), steps: [step])
        let customized = try await DataStack(history, storage: SQLiteStore(path: dated))
        #expect(try await customized.fetchAll(From<SameColumnV2.Dated>()).first?.precise == Date(timeIntervalSince1970: 1_700_000_000))
        await customized.close()
    }

    @Test("a Double that becomes a Date is refused without a transform: the same number would mean another moment")
    func doubleToDateRefused() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("readings.sqlite")
        try await MigrationConversionTests().makeStore(path) { $0.precise = 1_700_000_000 }
        let error = await #expect(throws: StrataError.self) { _ = try await open(path, SameColumnV2.Dated.self) }
        #expect(error?.code == .invalidMigration && error?.field == "precise" && error?.message.contains("2001") == true,
                "\(String(describing: error))")
        let step = MigrationStep(from: "V1", to: "V2", .transform(SameColumnV2.Dated.self) { old, reading in
            reading.precise = Date(timeIntervalSince1970: try old.value("precise", as: Double.self))
        })
        let history = SchemaHistory(MigrationConversionTests.v1, Schema("V2", SameColumnV2.Dated.self), steps: [step])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        #expect(try await stack.fetchAll(From<SameColumnV2.Dated>()).first?.precise == Date(timeIntervalSince1970: 1_700_000_000))
        await stack.close()
    }
}
