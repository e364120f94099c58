import Foundation
import Strata

/// Workload m for Strata: what an app does at launch, `try await DataStack(history, storage:
/// SQLiteStore(path:))`, on a copy of a V1 store Strata made itself (``MigrationPart/strataHistory``).
/// Strata migrates the store on a thread outside Swift's pool, in one transaction, then opens the
/// stack. The time is the whole call, opening included.
///
/// m1's target is the migration alone, so m1 also times opening the migrated store again (nothing to
/// migrate; the median of ``reopenings``), and reports the migration as the difference.
extension StrataBench {
    /// How many times m1 reopens the migrated store, per round.
    static let reopenings = 5

    /// Makes the V1 store of m once, as the harness makes Strata's main store, closes it and seals it.
    func prepareMigration() async throws {
        let path = MigrationFiles.source(environment, "strata")
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let stack = try await DataStack(Self.schema, storage: SQLiteStore(path: path))
        let items = environment.dataset.items
        try await stack.perform { tx in
            for data in items { try Self.create(data, tx) }
        }
        await stack.close()
        try MigrationFiles.seal(path)
    }

    /// Migrates a fresh copy of the V1 store once, timed; then checksums the migrated objects.
    func migrate(_ workload: Workload, _ part: MigrationPart, round: Int) async throws -> Sample {
        let path = MigrationFiles.round(environment, "strata", workload, round)
        try MigrationFiles.copy(MigrationFiles.source(environment, "strata"), to: path, environment)
        defer { environment.remove(path) }
        let history = part.strataHistory
        let memory = part == .addField ? nil : PeakMemory.start()
        let start = nanoseconds()
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let elapsed = seconds(since: start)
        let growth = memory?.growth()
        let checksum: Checksum
        do {
            checksum = try await Self.migratedChecksum(stack, part)
            await stack.close()
        }
        try MigrationFiles.requireIndex(path, column: part.indexedColumn)
        guard part == .addField else {
            return RawBench.migrationSample(rows: environment.dataset.items.count, elapsed, growth, checksum)
        }
        var opens: [Double] = []
        for _ in 0..<Self.reopenings {
            let start = nanoseconds()
            let again = try await DataStack(history, storage: SQLiteStore(path: path))
            opens.append(seconds(since: start))
            await again.close()
        }
        let open = median(opens)
        var sample = Sample(
            values: [
                Metrics.migrationTime: (elapsed - open) * 1000,
                Metrics.openAndMigrate: elapsed * 1000,
                Metrics.openMigrated: open * 1000,
            ],
            checksum: checksum)
        sample.note = String(format: "reopenings %.1f–%.1f ms", opens.min()! * 1000, opens.max()! * 1000)
        return sample
    }

    private static func migratedChecksum(_ stack: DataStack, _ part: MigrationPart) async throws -> Checksum {
        var checksum = Checksum()
        switch part {
        case .addField:
            for item in try await stack.fetchAll(From<AddFieldV2.Item>()) {
                checksum.addRated(
                    id: item.id.rawValue, name: item.name, age: item.age, score: item.score,
                    created: item.created.timeIntervalSinceReferenceDate, rating: item.rating)
            }
        case .rebuild:
            for item in try await stack.fetchAll(From<RebuildV2.Item>()) {
                checksum.addRebuilt(
                    id: item.id.rawValue, name: item.name, years: item.years, score: item.score,
                    created: item.created.timeIntervalSinceReferenceDate)
            }
        case .transform:
            for item in try await stack.fetchAll(From<TransformV2.Item>()) {
                checksum.addItem(
                    id: item.id.rawValue, name: item.name, age: item.age, score: item.score,
                    created: item.created.timeIntervalSinceReferenceDate)
            }
        }
        return checksum
    }
}
