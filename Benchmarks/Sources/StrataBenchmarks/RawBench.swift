import CSQLiteBench
import Dispatch
import Foundation

/// One `item` row as the raw implementation decodes it: the same value types as the Strata entity.
struct RawItem: Sendable {
    var id: Int64
    var name: String
    var age: Int
    var score: Double
    var created: Date

    @inline(__always)
    init(_ statement: RawStatement) {
        id = statement.int64(0)
        name = statement.text(1)
        age = Int(statement.int64(2))
        score = statement.double(3)
        created = Date(timeIntervalSinceReferenceDate: statement.double(4))
    }
}

extension Checksum {
    mutating func add(_ item: RawItem) {
        addItem(id: item.id, name: item.name, age: item.age, score: item.score,
                created: item.created.timeIntervalSinceReferenceDate)
    }
}

/// The floor: SQLite's C API called from Swift as a careful hand-written program would. Statements are
/// prepared once per connection and reused; each workload runs synchronously on the calling thread
/// (or on threads of its own for g, h and i), with no actor, queue or task in the way.
final class RawBench: Contestant, @unchecked Sendable {
    // @unchecked: the runner uses a contestant from one task at a time; connections never cross threads
    // except where a workload starts threads that open connections of their own.
    let contender = Contender.raw
    let environment: Environment
    private(set) var writer: RawDatabase?
    private var reader: RawDatabase?
    private var ordersPath: String?

    static let schema = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, \
        score REAL NOT NULL, created REAL NOT NULL);
        CREATE INDEX item_age ON item(age);
        """
    static let insertSQL = "INSERT INTO item(name, age, score, created) VALUES (?, ?, ?, ?)"
    static let selectAllSQL = "SELECT id, name, age, score, created FROM item"
    static let selectByIDSQL = "SELECT id, name, age, score, created FROM item WHERE id = ?"
    static let selectRangeSQL = "SELECT id, name, age, score, created FROM item WHERE age BETWEEN ? AND ?"
    static let groupSQL = "SELECT age, count(id), avg(score) FROM item GROUP BY age"
    static let countSQL = "SELECT count(*) FROM item WHERE age < 50"
    static let listSQL = "SELECT id, name, age, score, created FROM item WHERE age >= ? AND age < ? ORDER BY name"

    init(environment: Environment) {
        self.environment = environment
    }

    var mainPath: String { environment.path("raw-main.sqlite") }

    func runs(_ workload: Workload) -> Bool { workload.storesBase == nil }

    func setUp() async throws {
        environment.remove(mainPath)
        let db = try Self.makeDatabase(mainPath)
        try Self.insertAll(environment.dataset.items, into: db)
        writer = db
        reader = try RawDatabase(path: mainPath, readOnly: true)
    }

    func tearDown() async {
        writer = nil
        reader = nil
    }

    func prepare(_ workload: Workload) async throws {
        if workload.migration != nil { return try prepareMigration() }
        if workload.importPart?.startsFromStoredRows == true { return try prepareImport() }
        guard workload == .j, let source = environment.northwindPath else { return }
        let path = environment.path("raw-orders.sqlite")
        environment.remove(path)
        try Northwind.copyOrders(from: source, to: path)
        ordersPath = path
        let db = try RawDatabase(path: path, readOnly: true)
        let statement = try db.prepare(Self.ordersSQL)
        for _ in 0..<northwindWarmUps { _ = try Self.loadOrders(statement) }
    }

    func run(_ workload: Workload, round: Int) async throws -> Sample {
        if let load = environment.serverLoads[workload] { return try await serve(load) }
        if let part = workload.migration { return try migrate(workload, part, round: round) }
        if let part = workload.importPart { return try importContacts(workload, part, round: round) }
        if workload == .n { return try await observeOtherProcess(round: round) }
        return try runSynchronously(workload, round: round)
    }

    private func runSynchronously(_ workload: Workload, round: Int) throws -> Sample {
        guard let writer, let reader else { throw RawError(description: "not set up") }
        switch workload {
        case .a: return try insertMany(round: round)
        case .b: return try insertEach(name: "raw-b-\(round).sqlite", count: 1_000).sample
        case .c: return try fetchAll(reader)
        case .d: return try lookups(reader, inOneTransaction: false)
        case .d2: return try lookups(reader, inOneTransaction: true)
        case .e: return try ranges(reader)
        case .f: return try groups(reader)
        case .g: return try observeCount(writer)
        case .h: return try concurrent(writer)
        case .i: return try observeLists(round: round)
        case .j: return try loadOrders()
        case .k64, .k1000: throw RawError(description: "\(workload.rawValue) has no operations")
        case .l1, .l2, .l3: throw RawError(description: "\(workload.rawValue) is an import")
        case .m1, .m2, .m3: throw RawError(description: "\(workload.rawValue) is a migration")
        case .n: throw RawError(description: "n runs asynchronously")
        case .oa, .ob, .oc, .od: throw RawError(description: "\(workload.rawValue) runs on Strata's stacks of two stores only")
        }
    }

    // MARK: Setup helpers

    static func makeDatabase(_ path: String) throws -> RawDatabase {
        let db = try RawDatabase(path: path)
        try db.configureWAL()
        try db.execute(schema)
        return db
    }

    static func insertAll(_ items: [ItemData], into db: RawDatabase) throws {
        let insert = try db.prepare(insertSQL)
        try db.execute("BEGIN IMMEDIATE")
        for item in items { try insertRow(item, insert) }
        try db.execute("COMMIT")
    }

    @inline(__always)
    static func insertRow(_ item: ItemData, _ insert: RawStatement) throws {
        insert.bind(item.name, at: 1)
        insert.bind(Int64(item.age), at: 2)
        insert.bind(item.score, at: 3)
        insert.bind(item.created, at: 4)
        try insert.run()
    }

    static func checksumOfTable(_ db: RawDatabase) throws -> Checksum {
        let statement = try db.prepare(selectAllSQL)
        var checksum = Checksum()
        while try statement.step() { checksum.add(RawItem(statement)) }
        return checksum
    }

    /// Removes the rows g and h added, so every round reads the same 100,000 rows.
    private func removeAddedRows(_ db: RawDatabase) throws {
        try db.execute("DELETE FROM item WHERE id > \(environment.rowCount)")
    }

    // MARK: a, b

    private func insertMany(round: Int) throws -> Sample {
        let path = environment.path("raw-a-\(round).sqlite")
        environment.remove(path)
        defer { environment.remove(path) }
        let db = try Self.makeDatabase(path)
        let items = environment.dataset.items
        let insert = try db.prepare(Self.insertSQL)
        let begin = try db.prepare("BEGIN IMMEDIATE")
        let commit = try db.prepare("COMMIT")
        let start = nanoseconds()
        try begin.run()
        for item in items {
            try Self.insertRow(item, insert)
        }
        try commit.run()
        let elapsed = seconds(since: start)
        return Sample(Metrics.insertRate, Double(items.count) / elapsed, checksum: try Self.checksumOfTable(db))
    }

    /// Inserts `count` rows, one transaction each, into a new database; returns the rate and the database.
    private func insertEach(name: String, count: Int, afterCommit: () -> Void = {}) throws
        -> (sample: Sample, rate: Double)
    {
        let path = environment.path(name)
        environment.remove(path)
        defer { environment.remove(path) }
        let db = try Self.makeDatabase(path)
        let rate = try Self.insertEach(db, items: environment.dataset.extraItems[0..<count], afterCommit: afterCommit)
        return (Sample(Metrics.transactionRate, rate, checksum: try Self.checksumOfTable(db)), rate)
    }

    static func insertEach(
        _ db: RawDatabase, items: ArraySlice<ItemData>, afterCommit: () -> Void = {}
    ) throws -> Double {
        let insert = try db.prepare(insertSQL)
        let begin = try db.prepare("BEGIN IMMEDIATE")
        let commit = try db.prepare("COMMIT")
        let start = nanoseconds()
        for item in items {
            try begin.run()
            try insertRow(item, insert)
            try commit.run()
            afterCommit()
        }
        return Double(items.count) / seconds(since: start)
    }

    // MARK: c, d, d2, e, f

    /// c (``FetchTimes``): each fetch is what a user's `fetchAll` of every row costs: step the
    /// statement (prepared once, as Strata's statement cache keeps its own) into a new array of
    /// ``RawItem`` (a `String` and a `Date` per row, like the other implementations' values), reset it.
    private func fetchAll(_ db: RawDatabase) throws -> Sample {
        let statement = try db.prepare(Self.selectAllSQL)
        var times = FetchTimes()
        var items: [RawItem] = []
        for _ in 0..<fetchesPerRound {
            FetchTimes.pauseBlocking()
            times.release(&items)
            let start = times.start()
            let fetched = try Self.fetchAllItems(statement)
            times.record(since: start)
            items = fetched
        }
        var checksum = Checksum()
        for item in items { checksum.add(item) }
        return times.sample(rowsPerFetch: items.count, checksum: checksum)
    }

    /// Every row of `statement` (`SELECT … FROM item`), as a user's fetch returns them.
    static func fetchAllItems(_ statement: RawStatement) throws -> [RawItem] {
        defer { statement.reset() }
        var items: [RawItem] = []
        while try statement.step() { items.append(RawItem(statement)) }
        return items
    }

    private func lookups(_ db: RawDatabase, inOneTransaction: Bool) throws -> Sample {
        let ids = environment.dataset.lookupIDs
        let statement = try db.prepare(Self.selectByIDSQL)
        let begin = try db.prepare("BEGIN DEFERRED")
        let commit = try db.prepare("COMMIT")
        var items: [RawItem] = []
        items.reserveCapacity(ids.count)
        let start = nanoseconds()
        if inOneTransaction { try begin.run() }
        for id in ids {
            statement.bind(id, at: 1)
            if try statement.step() { items.append(RawItem(statement)) }
            statement.reset()
        }
        if inOneTransaction { try commit.run() }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for item in items { checksum.add(item) }
        return Sample(Metrics.lookupRate, Double(ids.count) / elapsed, checksum: checksum)
    }

    private func ranges(_ db: RawDatabase) throws -> Sample {
        let starts = environment.dataset.rangeStarts
        let statement = try db.prepare(Self.selectRangeSQL)
        var results: [[RawItem]] = []
        results.reserveCapacity(starts.count)
        let start = nanoseconds()
        for lower in starts {
            statement.bind(Int64(lower), at: 1)
            statement.bind(Int64(lower + 1), at: 2)
            var items: [RawItem] = []
            while try statement.step() { items.append(RawItem(statement)) }
            statement.reset()
            results.append(items)
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for item in results.joined() { checksum.add(item) }
        return Sample(Metrics.queryRate, Double(starts.count) / elapsed, checksum: checksum)
    }

    private func groups(_ db: RawDatabase) throws -> Sample {
        let statement = try db.prepare(Self.groupSQL)
        var rows: [(age: Int, count: Int, average: Double)] = []
        let start = nanoseconds()
        for _ in 0..<groupQueriesPerRound {
            rows = []
            while try statement.step() {
                rows.append((Int(statement.int64(0)), Int(statement.int64(1)), statement.double(2)))
            }
            statement.reset()
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for row in rows {
            checksum.add(UInt64(row.age), UInt64(row.count), row.average.bitPattern)
        }
        return Sample(Metrics.groupTime, elapsed * 1000 / Double(groupQueriesPerRound), checksum: checksum)
    }

    // MARK: g

    /// The floor of observation: after each commit the writer wakes an observer thread blocked on a
    /// semaphore, which re-counts on its own read-only connection; the latency ends when the observer
    /// has the new count. It starts, as for every implementation, with a timestamp taken inside the
    /// transaction after its last statement, just before `COMMIT`.
    private func observeCount(_ db: RawDatabase) throws -> Sample {
        let path = mainPath
        let wake = DispatchSemaphore(value: 0)
        let delivered = DispatchSemaphore(value: 0)
        let shared = Locked<(stop: Bool, count: Int64, at: UInt64, error: String?)>((false, 0, 0, nil))
        Thread.detachNewThread {
            do {
                let reader = try RawDatabase(path: path, readOnly: true)
                let count = try reader.prepare(Self.countSQL)
                while true {
                    let stop = shared.withLock { $0.stop }
                    if stop { break }
                    _ = try count.step()
                    let value = count.int64(0)
                    count.reset()
                    let at = nanoseconds()
                    shared.withLock { $0.count = value; $0.at = at }
                    delivered.signal()
                    wake.wait()
                }
            } catch {
                shared.withLock { $0.error = "\(error)" }
                delivered.signal()
            }
        }
        delivered.wait()  // the first count
        let insert = try db.prepare(Self.insertSQL)
        let begin = try db.prepare("BEGIN IMMEDIATE")
        let commit = try db.prepare("COMMIT")
        var latencies: [Double] = []
        var checksum = Checksum()
        for index in 0..<1_000 {
            try begin.run()
            try Self.insertRow(environment.dataset.youngItem(index), insert)
            let stamp = nanoseconds()
            try commit.run()
            wake.signal()
            delivered.wait()
            let (count, at, error) = shared.withLock { ($0.count, $0.at, $0.error) }
            if let error { throw RawError(description: error) }
            latencies.append(Double(at - stamp) / 1000)
            checksum.addValue(Int(count))
        }
        shared.withLock { $0.stop = true }
        wake.signal()
        try removeAddedRows(db)
        latencies.sort()
        return Sample(
            values: [Metrics.latencyP50: percentile(latencies, 50), Metrics.latencyP99: percentile(latencies, 99)],
            checksum: checksum)
    }

    // MARK: h

    /// Two reader threads, each with its own read-only connection, look rows up by ID while a writer
    /// thread inserts one row per transaction, for the same wall-clock time.
    private func concurrent(_ db: RawDatabase) throws -> Sample {
        let path = mainPath
        let duration = environment.concurrentSeconds
        let ids = environment.dataset.lookupIDs
        let extra = environment.dataset.extraItems
        let ready = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let start = Locked<UInt64?>(nil)
        let go = DispatchSemaphore(value: 0)
        let counts = Locked<(reads: Int, writes: Int, missing: Int, errors: [String])>((0, 0, 0, []))
        for reader in 0..<2 {
            Thread.detachNewThread {
                do {
                    let connection = try RawDatabase(path: path, readOnly: true)
                    let lookup = try connection.prepare(Self.selectByIDSQL)
                    ready.signal()
                    go.wait()
                    let deadline = start.withLock { $0! } + UInt64(duration * 1e9)
                    var reads = 0
                    var missing = 0
                    var index = reader * 5_000
                    while nanoseconds() < deadline {
                        lookup.bind(ids[index % ids.count], at: 1)
                        if try lookup.step() { _ = RawItem(lookup) } else { missing += 1 }
                        lookup.reset()
                        reads += 1
                        index += 1
                    }
                    counts.withLock { $0.reads += reads; $0.missing += missing }
                } catch {
                    counts.withLock { $0.errors.append("\(error)") }
                    ready.signal()
                }
                finished.signal()
            }
        }
        Thread.detachNewThread {
            do {
                let connection = try RawDatabase(path: path)
                try connection.execute("PRAGMA synchronous = NORMAL")
                let insert = try connection.prepare(Self.insertSQL)
                let begin = try connection.prepare("BEGIN IMMEDIATE")
                let commit = try connection.prepare("COMMIT")
                ready.signal()
                go.wait()
                let deadline = start.withLock { $0! } + UInt64(duration * 1e9)
                var writes = 0
                while nanoseconds() < deadline {
                    try begin.run()
                    try Self.insertRow(extra[writes % extra.count], insert)
                    try commit.run()
                    writes += 1
                }
                counts.withLock { $0.writes = writes }
            } catch {
                counts.withLock { $0.errors.append("\(error)") }
                ready.signal()
            }
            finished.signal()
        }
        for _ in 0..<3 { ready.wait() }
        start.withLock { $0 = nanoseconds() }
        for _ in 0..<3 { go.signal() }
        for _ in 0..<3 { finished.wait() }
        let result = counts.withLock { $0 }
        if let error = result.errors.first { throw RawError(description: error) }
        if result.missing > 0 { throw RawError(description: "\(result.missing) lookups found nothing") }
        try removeAddedRows(db)
        return Sample(values: [
            Metrics.concurrentReads: Double(result.reads) / duration,
            Metrics.concurrentWrites: Double(result.writes) / duration,
        ])
    }

    // MARK: i

    /// b. while a hand-written observer keeps 10 lists current: after each commit the writer signals
    /// an observer thread (with its own read-only connection) which, coalescing the commits that
    /// landed meanwhile, re-runs the 10 list queries and keeps their results.
    private func observeLists(round: Int) throws -> Sample {
        let baseline = try insertEach(name: "raw-i0-\(round).sqlite", count: 1_000).rate
        let path = environment.path("raw-i-\(round).sqlite")
        environment.remove(path)
        defer { environment.remove(path) }
        let db = try Self.makeDatabase(path)
        let slices = (0..<environment.listObserverCount).map { environment.listSlice($0) }
        let wake = DispatchSemaphore(value: 0)
        let fetched = DispatchSemaphore(value: 0)
        // commits: made by the writer; seen: the commit count the observer's last fetch reflects.
        let shared = Locked<(stop: Bool, commits: Int, seen: Int, lists: [[RawItem]], passes: Int, error: String?)>(
            (false, 0, -1, [], 0, nil))
        Thread.detachNewThread {
            do {
                let reader = try RawDatabase(path: path, readOnly: true)
                let statements = try slices.map { _ in try reader.prepare(Self.listSQL) }
                while true {
                    let (stop, commits) = shared.withLock { ($0.stop, $0.commits) }
                    if stop { break }
                    var lists: [[RawItem]] = []
                    for (statement, slice) in zip(statements, slices) {
                        statement.bind(Int64(slice.lower), at: 1)
                        statement.bind(Int64(slice.upper), at: 2)
                        var items: [RawItem] = []
                        while try statement.step() { items.append(RawItem(statement)) }
                        statement.reset()
                        lists.append(items)
                    }
                    shared.withLock { $0.seen = commits; $0.lists = lists; $0.passes += 1 }
                    fetched.signal()
                    wake.wait()
                    while wake.wait(timeout: .now()) == .success {}  // coalesce
                }
            } catch {
                shared.withLock { $0.error = "\(error)"; $0.seen = Int.max }
                fetched.signal()
            }
        }
        fetched.wait()  // the first lists
        let rate = try Self.insertEach(db, items: environment.dataset.extraItems[0..<1_000]) {
            shared.withLock { $0.commits += 1 }
            wake.signal()
        }
        // The lists must end up showing every row.
        while shared.withLock({ $0.seen < 1_000 }) {
            fetched.wait()
        }
        let (lists, passes, error) = shared.withLock { state in
            state.stop = true
            return (state.lists, state.passes, state.error)
        }
        wake.signal()
        if let error { throw RawError(description: error) }
        var checksum = Checksum()
        for item in lists.joined() { checksum.add(item) }
        var sample = Sample(
            values: [Metrics.observedRate: rate, Metrics.observedFraction: rate / baseline], checksum: checksum)
        sample.note = "\((passes - 1) * lists.count) list snapshots"
        return sample
    }

    // MARK: j

    static let ordersSQL = "SELECT \(Northwind.columns.joined(separator: ", ")) FROM Orders"

    static func loadOrders(_ statement: RawStatement) throws -> [RawOrder] {
        var orders: [RawOrder] = []
        while try statement.step() { orders.append(RawOrder(statement)) }
        statement.reset()
        return orders
    }

    private func loadOrders() throws -> Sample {
        guard let ordersPath else { throw RawError(description: "no Northwind copy") }
        let db = try RawDatabase(path: ordersPath, readOnly: true)
        let statement = try db.prepare(Self.ordersSQL)
        var orders: [RawOrder] = []
        let start = nanoseconds()
        for _ in 0..<environment.northwindLoadsPerRound {
            orders = try Self.loadOrders(statement)
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for order in orders { checksum.add(order) }
        return Sample(
            Metrics.loadTime, elapsed * Double(northwindLoads) / Double(environment.northwindLoadsPerRound), checksum: checksum)
    }
}
