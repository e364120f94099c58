import Foundation
import Testing
@testable import Strata

/// A meter whose reading becomes a `Double` in version M2: the table is rebuilt, its columns keep
/// their names, so no statement of a stack still on M1 fails in SQL.
enum StaleV1 {
    @Entity(name: "Meter") struct Meter { var reading: Int = 0 }
}

enum StaleV2 {
    @Entity(name: "Meter") struct Meter { var reading: Double = 0 }
}

/// A stack left open on a version another stack migrated away from.
extension MigrationTests {
    @Test("a stack left on M1 after another stack migrated the store to M2 gets schemaMismatch, not typeMismatch")
    func staleStackAfterTypeChange() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("meter.sqlite")
        let v1 = Schema("M1", StaleV1.Meter.self)
        let old = try await DataStack(v1, storage: SQLiteStore(path: path))
        try await old.perform { tx in _ = try tx.create(Into<StaleV1.Meter>()) { $0.reading = 3 } }
        #expect(try await old.fetchAll(From<StaleV1.Meter>()).map(\.reading) == [3])
        let history = SchemaHistory(
            v1, Schema("M2", StaleV2.Meter.self),
            steps: [MigrationStep(from: "M1", to: "M2", .transform(StaleV2.Meter.self) { source, meter in
                meter.reading = Double(try source.value("reading", as: Int.self)) + 0.5
            })])
        let new = try await DataStack(history, storage: SQLiteStore(path: path))
        #expect(try await new.fetchAll(From<StaleV2.Meter>()).map(\.reading) == [3.5])
        // Reads that cannot decode the migrated rows (a pooled reader, a batch cursor, a read
        // generation), and every write transaction, even one that would write a value SQLite accepts.
        let uses: [(String, () async throws -> Void)] = [
            ("fetchAll", { _ = try await old.fetchAll(From<StaleV1.Meter>()) }),
            ("fetchBatches", { for try await _ in old.fetchBatches(From<StaleV1.Meter>()) {} }),
            ("read generation", { _ = try await old.withReadGeneration { try await $0.fetchAll(From<StaleV1.Meter>()) } }),
            ("create", { try await old.perform { tx in _ = try tx.create(Into<StaleV1.Meter>()) { $0.reading = 4 } } }),
            ("read-only transaction", { try await old.perform { tx in _ = try tx.fetchCount(From<StaleV1.Meter>()) } }),
        ]
        for (name, use) in uses {
            let error = await expectStrataError(.schemaMismatch) { try await use() }
            let message = error?.message ?? ""
            #expect(
                message.contains("at version M2") && message.contains("made for version M1")
                    && message.contains("another stack or process migrated it") && message.contains("includes version M2"),
                "\(name): \(String(describing: error))")
        }
        // The refused write wrote nothing; the newer stack reads and writes as before.
        #expect(try await new.fetchAll(From<StaleV2.Meter>()).map(\.reading) == [3.5])
        try await new.perform { tx in _ = try tx.create(Into<StaleV2.Meter>()) { $0.reading = 1.25 } }
        // A read of the old stack that decodes nothing of the changed field still works.
        #expect(try await old.fetchCount(From<StaleV1.Meter>()) == 2)
        await old.close()
        await new.close()
    }
}
