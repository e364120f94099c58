import Foundation
import GRDB

/// GRDB 7.10.0 used idiomatically: a `DatabasePool` (WAL mode, `synchronous = NORMAL`, GRDB's
/// defaults for a pool), records fetched and saved through the query interface, async `read` and
/// `write`, `ValueObservation` for g and i. Runs with either record type: hand-written or Codable.
final class GRDBBench<Record: GRDBItemRecord, Order: GRDBOrderRecord>: Contestant, @unchecked Sendable {
    // @unchecked: the runner uses a contestant from one task at a time.
    let contender: Contender
    let environment: Environment
    private let workloads: Set<Workload>
    let prefix: String
    private var pool: DatabasePool?
    private var ordersPool: DatabasePool?

    init(contender: Contender, environment: Environment, workloads: Set<Workload>) {
        self.contender = contender
        self.environment = environment
        self.workloads = workloads
        prefix = contender == .grdbRow ? "grdb-row" : "grdb-codable"
    }

    func runs(_ workload: Workload) -> Bool { workloads.contains(workload) }

    private var mainPath: String { environment.path("\(prefix)-main.sqlite") }

    /// GRDB's defaults, but for a busy timeout like Strata's and raw SQLite's (5 s): GRDB's default
    /// fails at once when a lock is held, which made h fail now and then.
    static var configuration: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        return configuration
    }

    private func makePool(_ path: String) throws -> DatabasePool {
        environment.remove(path)
        let pool = try DatabasePool(path: path, configuration: Self.configuration)
        try pool.write { db in try db.execute(sql: RawBench.schema) }
        return pool
    }

    func setUp() async throws {
        let pool = try makePool(mainPath)
        let items = environment.dataset.items
        try await pool.write { db in
            for data in items {
                var record = Record(data)
                try record.insert(db)
            }
        }
        self.pool = pool
    }

    func tearDown() async {
        try? pool?.close()
        try? ordersPool?.close()
        pool = nil
        ordersPool = nil
    }

    func prepare(_ workload: Workload) async throws {
        if workload.migration != nil { return try await prepareMigration() }
        if workload.importPart?.startsFromStoredRows == true { return try await prepareImport() }
        guard workload == .j, let source = environment.northwindPath else { return }
        let path = environment.path("\(prefix)-orders.sqlite")
        environment.remove(path)
        try Northwind.copyOrders(from: source, to: path)
        let pool = try DatabasePool(path: path, configuration: Self.configuration)
        for _ in 0..<northwindWarmUps {
            _ = try await pool.read { db in try Order.fetchAll(db) }
        }
        ordersPool = pool
    }

    func run(_ workload: Workload, round: Int) async throws -> Sample {
        guard let pool else { throw RawError(description: "not set up") }
        if let load = environment.serverLoads[workload] { return try await serve(load, pool) }
        if let part = workload.migration { return try await migrate(workload, part, round: round) }
        if let part = workload.importPart { return try await importContacts(workload, part, round: round) }
        switch workload {
        case .a: return try await insertMany(round: round)
        case .b: return try await insertEach(name: "\(prefix)-b-\(round).sqlite").sample
        case .c: return try await fetchAll(pool)
        case .d: return try await lookups(pool)
        case .d2: return try await lookupsInOneRead(pool)
        case .e: return try await ranges(pool)
        case .f: return try await groups(pool)
        case .g: return try await observeCount(pool)
        case .h: return try await concurrent(pool)
        case .i: return try await observeLists(round: round)
        case .j: return try await loadOrders()
        case .k64, .k1000: throw RawError(description: "\(workload.rawValue) has no operations")
        case .l1, .l2, .l3: throw RawError(description: "\(workload.rawValue) is an import")
        case .m1, .m2, .m3: throw RawError(description: "\(workload.rawValue) is a migration")
        case .n: throw RawError(description: "n: GRDB's ValueObservation does not see other processes' commits")
        case .oa, .ob, .oc, .od: throw RawError(description: "\(workload.rawValue) runs on Strata's stacks of two stores only")
        }
    }

    private static func checksum(of pool: DatabasePool) async throws -> Checksum {
        let items = try await pool.read { db in try Record.fetchAll(db) }
        var checksum = Checksum()
        for item in items { checksum.add(item) }
        return checksum
    }

    private func removeAddedRows(_ pool: DatabasePool) async throws {
        let rowCount = environment.rowCount
        _ = try await pool.write { db in try Record.filter(Column("id") > rowCount).deleteAll(db) }
    }

    // MARK: a, b

    private func insertMany(round: Int) async throws -> Sample {
        let path = environment.path("\(prefix)-a-\(round).sqlite")
        let pool = try makePool(path)
        defer {
            try? pool.close()
            environment.remove(path)
        }
        let items = environment.dataset.items
        let start = nanoseconds()
        try await pool.write { db in
            for data in items {
                var record = Record(data)
                try record.insert(db)
            }
        }
        let elapsed = seconds(since: start)
        return Sample(Metrics.insertRate, Double(items.count) / elapsed, checksum: try await Self.checksum(of: pool))
    }

    private func insertEach(name: String) async throws -> (sample: Sample, rate: Double) {
        let path = environment.path(name)
        let pool = try makePool(path)
        defer {
            try? pool.close()
            environment.remove(path)
        }
        let rate = try await Self.insertEach(pool, environment.dataset.extraItems[0..<1_000])
        return (Sample(Metrics.transactionRate, rate, checksum: try await Self.checksum(of: pool)), rate)
    }

    private static func insertEach(_ pool: DatabasePool, _ items: ArraySlice<ItemData>) async throws -> Double {
        let start = nanoseconds()
        for data in items {
            try await pool.write { db in
                var record = Record(data)
                try record.insert(db)
            }
        }
        return Double(items.count) / seconds(since: start)
    }

    // MARK: c, d, d2, e, f

    /// c, timed per fetch (``FetchTimes``).
    private func fetchAll(_ pool: DatabasePool) async throws -> Sample {
        var times = FetchTimes()
        var items: [Record] = []
        for _ in 0..<fetchesPerRound {
            try await FetchTimes.pauseAwaiting()
            times.release(&items)
            let start = times.start()
            let fetched = try await pool.read { db in try Record.fetchAll(db) }
            times.record(since: start)
            items = fetched
        }
        var checksum = Checksum()
        for item in items { checksum.add(item) }
        return times.sample(rowsPerFetch: items.count, checksum: checksum)
    }

    private func lookups(_ pool: DatabasePool) async throws -> Sample {
        let ids = environment.dataset.lookupIDs
        var items: [Record] = []
        items.reserveCapacity(ids.count)
        let start = nanoseconds()
        for id in ids {
            if let item = try await pool.read({ db in try Record.fetchOne(db, key: id) }) {
                items.append(item)
            }
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for item in items { checksum.add(item) }
        return Sample(Metrics.lookupRate, Double(ids.count) / elapsed, checksum: checksum)
    }

    private func lookupsInOneRead(_ pool: DatabasePool) async throws -> Sample {
        let ids = environment.dataset.lookupIDs
        let start = nanoseconds()
        let items = try await pool.read { db in
            var items: [Record] = []
            items.reserveCapacity(ids.count)
            for id in ids {
                if let item = try Record.fetchOne(db, key: id) { items.append(item) }
            }
            return items
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for item in items { checksum.add(item) }
        return Sample(Metrics.lookupRate, Double(ids.count) / elapsed, checksum: checksum)
    }

    private func ranges(_ pool: DatabasePool) async throws -> Sample {
        let starts = environment.dataset.rangeStarts
        var results: [[Record]] = []
        results.reserveCapacity(starts.count)
        let start = nanoseconds()
        for lower in starts {
            let items = try await pool.read { db in
                try Record.filter((lower...lower + 1).contains(Column("age"))).fetchAll(db)
            }
            results.append(items)
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for item in results.joined() { checksum.add(item) }
        return Sample(Metrics.queryRate, Double(starts.count) / elapsed, checksum: checksum)
    }

    private func groups(_ pool: DatabasePool) async throws -> Sample {
        let request = Record
            .select(Column("age"), count(Column("id")), average(Column("score")))
            .group(Column("age"))
            .asRequest(of: AgeStatistics.self)
        var rows: [AgeStatistics] = []
        let start = nanoseconds()
        for _ in 0..<groupQueriesPerRound {
            rows = try await pool.read { db in try request.fetchAll(db) }
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for row in rows {
            checksum.add(UInt64(row.age), UInt64(row.count), row.average.bitPattern)
        }
        return Sample(Metrics.groupTime, elapsed * 1000 / Double(groupQueriesPerRound), checksum: checksum)
    }

    // MARK: g

    /// A `ValueObservation` of the count, iterated as an async sequence by a consumer task; the write
    /// stamps the time as its last statement inside `write`, before GRDB commits.
    private func observeCount(_ pool: DatabasePool) async throws -> Sample {
        let probe = LatencyProbe()
        let observation = ValueObservation.tracking { db in
            try Record.filter(Column("age") < 50).fetchCount(db)
        }
        probe.expect(nil)
        let consumer = Task {
            for try await count in observation.values(in: pool) {
                probe.received(count)
            }
        }
        defer { consumer.cancel() }
        await probe.delivery()
        var expected = probe.last ?? 0
        let dataset = environment.dataset
        for index in 0..<1_000 {
            expected += 1
            probe.expect(expected)
            try await pool.write { db in
                var record = Record(dataset.youngItem(index))
                try record.insert(db)
                probe.stamp()
            }
            await probe.delivery()
        }
        consumer.cancel()
        _ = await consumer.result
        try await removeAddedRows(pool)
        return probe.sample()
    }

    // MARK: h

    private func concurrent(_ pool: DatabasePool) async throws -> Sample {
        let duration = environment.concurrentSeconds
        let ids = environment.dataset.lookupIDs
        let extra = environment.dataset.extraItems
        let deadline = nanoseconds() + UInt64(duration * 1e9)
        let (reads, writes) = try await withThrowingTaskGroup(of: (reads: Int, writes: Int).self) { group in
            for reader in 0..<2 {
                group.addTask {
                    var reads = 0
                    var index = reader * 5_000
                    while nanoseconds() < deadline {
                        let id = ids[index % ids.count]
                        guard try await pool.read({ db in try Record.fetchOne(db, key: id) }) != nil else {
                            throw RawError(description: "lookup of \(id) found nothing")
                        }
                        reads += 1
                        index += 1
                    }
                    return (reads, 0)
                }
            }
            group.addTask {
                var writes = 0
                while nanoseconds() < deadline {
                    let data = extra[writes % extra.count]
                    try await pool.write { db in
                        var record = Record(data)
                        try record.insert(db)
                    }
                    writes += 1
                }
                return (0, writes)
            }
            var total = (0, 0)
            for try await result in group {
                total.0 += result.reads
                total.1 += result.writes
            }
            return total
        }
        try await removeAddedRows(pool)
        return Sample(values: [
            Metrics.concurrentReads: Double(reads) / duration,
            Metrics.concurrentWrites: Double(writes) / duration,
        ])
    }

    // MARK: i

    /// b. with 10 `ValueObservation`s of record lists (one age slice each, sorted by name), each
    /// iterated by a consumer task.
    private func observeLists(round: Int) async throws -> Sample {
        let baseline = try await insertEach(name: "\(prefix)-i0-\(round).sqlite").rate
        let path = environment.path("\(prefix)-i-\(round).sqlite")
        let pool = try makePool(path)
        defer {
            try? pool.close()
            environment.remove(path)
        }
        let count = environment.listObserverCount
        let board = ListBoard<Record>(count: count)
        var consumers: [Task<Void, any Error>] = []
        for index in 0..<count {
            let slice = environment.listSlice(index)
            let observation = ValueObservation.tracking { db in
                try Record
                    .filter(Column("age") >= slice.lower && Column("age") < slice.upper)
                    .order(Column("name"))
                    .fetchAll(db)
            }
            consumers.append(Task {
                for try await items in observation.values(in: pool) {
                    board.update(index, items)
                }
            })
        }
        defer { for consumer in consumers { consumer.cancel() } }
        _ = try await board.wait(total: 0)
        let initialUpdates = board.updateCount
        let rate = try await Self.insertEach(pool, environment.dataset.extraItems[0..<1_000])
        let lists = try await board.wait(total: 1_000)
        for consumer in consumers { consumer.cancel() }
        for consumer in consumers { _ = await consumer.result }
        var checksum = Checksum()
        for item in lists.joined() { checksum.add(item) }
        var sample = Sample(
            values: [Metrics.observedRate: rate, Metrics.observedFraction: rate / baseline], checksum: checksum)
        sample.note = "\(board.updateCount - initialUpdates) list snapshots"
        return sample
    }

    // MARK: j

    private func loadOrders() async throws -> Sample {
        guard let pool = ordersPool else { throw RawError(description: "no Northwind copy") }
        var orders: [Order] = []
        let start = nanoseconds()
        for _ in 0..<environment.northwindLoadsPerRound {
            orders = try await pool.read { db in try Order.fetchAll(db) }
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for order in orders { checksum.add(order.checksumOrder) }
        return Sample(
            Metrics.loadTime, elapsed * Double(northwindLoads) / Double(environment.northwindLoadsPerRound), checksum: checksum)
    }
}
