import Foundation
import GRDB

/// GRDB's synchronous API: `try pool.read { db in … }` and `try pool.write { db in … }`, called from a
/// plain thread (``onPlainThread(_:)``), not from a task, with the hand-written record. The caller
/// blocks while GRDB runs the closure on its reader or writer connection, with no task to suspend and
/// resume: what an app calling GRDB from its own threads or queues pays. It runs b, c and d, where
/// the cost of an async hop shows most.
final class GRDBSyncBench: Contestant, @unchecked Sendable {
    // @unchecked: the runner uses a contestant from one task at a time.
    let contender = Contender.grdbSync
    private let environment: Environment
    private var pool: DatabasePool?

    init(environment: Environment) {
        self.environment = environment
    }

    func runs(_ workload: Workload) -> Bool { [.b, .c, .d].contains(workload) }

    private func makePool(_ path: String) throws -> DatabasePool {
        environment.remove(path)
        let pool = try DatabasePool(path: path, configuration: GRDBBench<GRDBRowItem, GRDBRowOrder>.configuration)
        try pool.write { db in try db.execute(sql: RawBench.schema) }
        return pool
    }

    func setUp() async throws {
        let path = environment.path("grdb-sync-main.sqlite")
        let items = environment.dataset.items
        pool = try await onPlainThread { [self] in
            let pool = try makePool(path)
            try pool.write { db in
                for data in items {
                    var record = GRDBRowItem(data)
                    try record.insert(db)
                }
            }
            return pool
        }
    }

    func prepare(_ workload: Workload) async throws {}

    func tearDown() async {
        try? pool?.close()
        pool = nil
    }

    func run(_ workload: Workload, round: Int) async throws -> Sample {
        guard let pool else { throw RawError(description: "not set up") }
        switch workload {
        case .b: return try await onPlainThread { [self] in try insertEach(name: "grdb-sync-b-\(round).sqlite") }
        case .c: return try await onPlainThread { [self] in try fetchAll(pool) }
        case .d: return try await onPlainThread { [self] in try lookups(pool) }
        default: throw RawError(description: "GRDB sync does not run \(workload.rawValue)")
        }
    }

    private static func checksum(of pool: DatabasePool) throws -> Checksum {
        var checksum = Checksum()
        for item in try pool.read({ db in try GRDBRowItem.fetchAll(db) }) { checksum.add(item) }
        return checksum
    }

    // MARK: b, c, d

    private func insertEach(name: String) throws -> Sample {
        let path = environment.path(name)
        let pool = try makePool(path)
        defer {
            try? pool.close()
            environment.remove(path)
        }
        let items = environment.dataset.extraItems[0..<1_000]
        let start = nanoseconds()
        for data in items {
            try pool.write { db in
                var record = GRDBRowItem(data)
                try record.insert(db)
            }
        }
        let rate = Double(items.count) / seconds(since: start)
        return Sample(Metrics.transactionRate, rate, checksum: try Self.checksum(of: pool))
    }

    /// c, timed per fetch (``FetchTimes``).
    private func fetchAll(_ pool: DatabasePool) throws -> Sample {
        var times = FetchTimes()
        var items: [GRDBRowItem] = []
        for _ in 0..<fetchesPerRound {
            FetchTimes.pauseBlocking()
            times.release(&items)
            let start = times.start()
            let fetched = try pool.read { db in try GRDBRowItem.fetchAll(db) }
            times.record(since: start)
            items = fetched
        }
        var checksum = Checksum()
        for item in items { checksum.add(item) }
        return times.sample(rowsPerFetch: items.count, checksum: checksum)
    }

    private func lookups(_ pool: DatabasePool) throws -> Sample {
        let ids = environment.dataset.lookupIDs
        var items: [GRDBRowItem] = []
        items.reserveCapacity(ids.count)
        let start = nanoseconds()
        for id in ids {
            if let item = try pool.read({ db in try GRDBRowItem.fetchOne(db, key: id) }) {
                items.append(item)
            }
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for item in items { checksum.add(item) }
        return Sample(Metrics.lookupRate, Double(ids.count) / elapsed, checksum: checksum)
    }
}
