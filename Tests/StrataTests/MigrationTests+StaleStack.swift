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

/// The cache store's thumbnail in version V2, with a width.
enum StaleCacheV2 {
    @Entity(name: "Thumbnail") struct Thumbnail {
        var url: String = ""
        var bytes: Int = 0
        var width: Int = 0
    }
}

/// A stack of several stores left open on a version that another stack migrated one of its stores to.
extension MigrationTests {
    @Test("a stack of several stores refuses to write to a store another stack migrated alone, and writes to the others")
    func staleStoreOfSeveral() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory)
        try await stack.perform { tx in
            try tx.create(Into<StoreThumbnail>()) { $0.url = "a.png" }
            try tx.create(Into<StoreNote>("Shared")) { $0.title = "first" }
        }
        // Another stack opens the cache store alone, as a stack of its one configuration, and migrates it.
        let cachePath = directory.path("cache.sqlite")
        let alone = try await DataStack(
            SchemaHistory(Schema("V1", StoreThumbnail.self), Schema("V2", StaleCacheV2.Thumbnail.self)),
            storage: SQLiteStore(path: cachePath))
        await alone.close()
        // Before, the write went into the V2 table as if it were V1's.
        let error = await expectStrataError(.schemaMismatch) {
            try await stack.perform { tx in
                try tx.create(Into<StoreNote>("Shared")) { $0.title = "lost with the transaction" }
                try tx.create(Into<StoreThumbnail>()) { $0.url = "b.png" }
            }
        }
        let message = error?.message ?? ""
        #expect(
            message.contains(cachePath) && message.contains("at version V2") && message.contains("made for version V1"),
            "\(String(describing: error))")
        // Refused again (the store is still at V2); the transaction wrote nothing, in no store.
        await expectStrataError(.schemaMismatch) {
            try await stack.perform { tx in _ = try tx.create(Into<StoreThumbnail>()) { $0.url = "c.png" } }
        }
        #expect(try await stack.fetchAll(From<StoreNote>("Shared")).map(\.title) == ["first"])
        #expect(try storeValue(cachePath, "SELECT group_concat(url) FROM Thumbnail") == "a.png")
        // The other stores take writes as before.
        try await stack.perform { tx in _ = try tx.create(Into<StoreNote>("Shared")) { $0.title = "second" } }
        try await stack.perform { tx in _ = try tx.create(Into<StoreNote>(nil)) { $0.title = "main" } }
        #expect(try await stack.fetchCount(From<StoreNote>()) == 3)
        await stack.close()
    }
}
