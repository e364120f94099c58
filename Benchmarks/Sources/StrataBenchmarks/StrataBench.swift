import Foundation
import Strata

/// Strata through its public API only, as a user writes it: `DataStack` on a `SQLiteStore` (WAL,
/// `synchronous = NORMAL` by default), `perform` for writes, `fetchAll` / `fetchExisting` / `read {}` /
/// `queryAttributes` for reads, `countPublisher` and `listPublisher` for observation.
final class StrataBench: Contestant, @unchecked Sendable {
    // @unchecked: the runner uses a contestant from one task at a time.
    let contender: Contender
    let environment: Environment
    /// Whether the stacks record a persistent history (the `strataHistory` contender: a and b only).
    private let history: Bool
    private var stack: DataStack?
    private var ordersStack: DataStack?
    private var orderIDOffset = 0

    static let schema = Schema("V1", Item.self)

    init(environment: Environment, history: Bool = false) {
        self.environment = environment
        self.history = history
        contender = history ? .strataHistory : .strata
    }

    /// The prefix of the files of a and b, distinct per contender.
    private var filePrefix: String { history ? "strata-history" : "strata" }

    func runs(_ workload: Workload) -> Bool { history ? [.a, .b].contains(workload) : workload.storesBase == nil }

    private func makeStack(_ path: String) async throws -> DataStack {
        environment.remove(path)
        var configuration = DataStack.Configuration()
        if history { configuration.history = HistoryOptions(contextName: "benchmarks") }
        return try await DataStack(Self.schema, storage: SQLiteStore(path: path), configuration: configuration)
    }

    func setUp() async throws {
        // a and b make stores of their own: the history contender needs no main store.
        guard !history else { return }
        let stack = try await makeStack(environment.path("strata-main.sqlite"))
        let items = environment.dataset.items
        try await stack.perform { tx in
            for data in items { try Self.create(data, tx) }
        }
        self.stack = stack
    }

    func tearDown() async {
        await stack?.close()
        await ordersStack?.close()
        stack = nil
        ordersStack = nil
    }

    func prepare(_ workload: Workload) async throws {
        if workload.migration != nil { return try await prepareMigration() }
        if workload.importPart?.startsFromStoredRows == true { return try await prepareImport() }
        guard workload == .j, let source = environment.northwindPath else { return }
        let path = environment.path("strata-orders.sqlite")
        environment.remove(path)
        let orders = try Northwind.readOrders(from: source)
        let stack = try await DataStack(Schema("Northwind", Order.self), storage: SQLiteStore(path: path))
        let ids = try await stack.perform { tx in
            try orders.map { order in
                try tx.create(Into<Order>()) {
                    $0.customerID = order.customerID
                    $0.employeeID = order.employeeID
                    $0.orderDate = order.orderDate
                    $0.requiredDate = order.requiredDate
                    $0.shippedDate = order.shippedDate
                    $0.shipVia = order.shipVia
                    $0.freight = order.freight
                    $0.shipName = order.shipName
                    $0.shipAddress = order.shipAddress
                    $0.shipCity = order.shipCity
                    $0.shipRegion = order.shipRegion
                    $0.shipPostalCode = order.shipPostalCode
                    $0.shipCountry = order.shipCountry
                }.id.rawValue
            }
        }
        orderIDOffset = (orders.first?.orderID ?? 1) - Int(ids.first ?? 1)
        if zip(orders, ids).contains(where: { $0.orderID != Int($1) + orderIDOffset }) {
            print("warning: Strata's order IDs are not OrderID - \(orderIDOffset); j's checksums will differ")
        }
        for _ in 0..<northwindWarmUps {
            _ = try await stack.fetchAll(From<Order>())
        }
        ordersStack = stack
    }

    func run(_ workload: Workload, round: Int) async throws -> Sample {
        switch workload {
        case .a: return try await insertMany(round: round)
        case .b: return try await insertEach(name: "\(filePrefix)-b-\(round).sqlite").sample
        default: break
        }
        guard let stack else { throw RawError(description: "not set up") }
        if let load = environment.serverLoads[workload] { return try await serve(load, stack) }
        if let part = workload.migration { return try await migrate(workload, part, round: round) }
        if let part = workload.importPart { return try await importContacts(workload, part, round: round) }
        if workload == .n { return try await observeOtherProcess(round: round) }
        switch workload {
        case .a, .b: throw RawError(description: "unreachable")
        case .c: return try await Self.fetchAll(stack)
        case .d: return try await Self.lookups(stack, environment.dataset.lookupIDs)
        case .d2: return try await lookupsInOneRead(stack)
        case .e: return try await ranges(stack)
        case .f: return try await groups(stack)
        case .g: return try await observeCount(stack)
        case .h: return try await concurrent(stack)
        case .i: return try await observeLists(round: round)
        case .j: return try await loadOrders()
        case .k64, .k1000: throw RawError(description: "\(workload.rawValue) has no operations")
        case .l1, .l2, .l3: throw RawError(description: "\(workload.rawValue) is an import")
        case .m1, .m2, .m3: throw RawError(description: "\(workload.rawValue) is a migration")
        case .n: throw RawError(description: "n runs asynchronously")
        case .oa, .ob, .oc, .od: throw RawError(description: "\(workload.rawValue) runs on Strata's stacks of two stores only")
        }
    }

    @inline(__always)
    @discardableResult
    static func create(_ data: ItemData, _ tx: Transaction) throws -> Item {
        try tx.create(Into<Item>()) {
            $0.name = data.name
            $0.age = data.age
            $0.score = data.score
            $0.created = Date(timeIntervalSinceReferenceDate: data.created)
        }
    }

    static func checksum(of stack: DataStack) async throws -> Checksum {
        var checksum = Checksum()
        for item in try await stack.fetchAll(From<Item>()) { checksum.add(item) }
        return checksum
    }

    private func removeAddedRows(_ stack: DataStack) async throws {
        let last = EntityID<Item>(rawValue: environment.rowCount)
        try await stack.perform { tx in
            _ = try tx.deleteAll(From<Item>().where(\.id > last))
        }
    }

    // MARK: a, b

    private func insertMany(round: Int) async throws -> Sample {
        let path = environment.path("\(filePrefix)-a-\(round).sqlite")
        let stack = try await makeStack(path)
        let rate = try await Self.insertMany(stack, environment.dataset.items)
        let checksum = try await Self.checksum(of: stack)
        await stack.close()
        environment.remove(path)
        return Sample(Metrics.insertRate, rate, checksum: checksum)
    }

    /// a's timed part (also o's oa): `items` created in one `perform`; rows per second.
    static func insertMany(_ stack: DataStack, _ items: [ItemData]) async throws -> Double {
        let start = nanoseconds()
        try await stack.perform { tx in
            for data in items { try create(data, tx) }
        }
        return Double(items.count) / seconds(since: start)
    }

    private func insertEach(name: String) async throws -> (sample: Sample, rate: Double) {
        let path = environment.path(name)
        let stack = try await makeStack(path)
        let rate = try await Self.insertEach(stack, environment.dataset.extraItems[0..<1_000])
        let checksum = try await Self.checksum(of: stack)
        await stack.close()
        environment.remove(path)
        return (Sample(Metrics.transactionRate, rate, checksum: checksum), rate)
    }

    /// b's timed part (also i's and o's ob): one awaited `perform` per item; transactions per second.
    static func insertEach(_ stack: DataStack, _ items: ArraySlice<ItemData>) async throws -> Double {
        let start = nanoseconds()
        for data in items {
            try await stack.perform { tx in try create(data, tx) }
        }
        return Double(items.count) / seconds(since: start)
    }

    // MARK: c, d, d2, e, f

    /// c, timed per fetch (``FetchTimes``); also o's oc.
    static func fetchAll(_ stack: DataStack) async throws -> Sample {
        var times = FetchTimes()
        var items: [Item] = []
        for _ in 0..<fetchesPerRound {
            try await FetchTimes.pauseAwaiting()
            times.release(&items)
            let start = times.start()
            let fetched = try await stack.fetchAll(From<Item>())
            times.record(since: start)
            items = fetched
        }
        var checksum = Checksum()
        for item in items { checksum.add(item) }
        return times.sample(rowsPerFetch: items.count, checksum: checksum)
    }

    /// d (also o's od): one awaited `fetchExisting` per ID.
    static func lookups(_ stack: DataStack, _ ids: [Int64]) async throws -> Sample {
        var items: [Item] = []
        items.reserveCapacity(ids.count)
        let start = nanoseconds()
        for id in ids {
            if let item = try await stack.fetchExisting(Item.ID(rawValue: id)) {
                items.append(item)
            }
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for item in items { checksum.add(item) }
        return Sample(Metrics.lookupRate, Double(ids.count) / elapsed, checksum: checksum)
    }

    private func lookupsInOneRead(_ stack: DataStack) async throws -> Sample {
        let ids = environment.dataset.lookupIDs
        let start = nanoseconds()
        let items = try await stack.read { r in
            var items: [Item] = []
            items.reserveCapacity(ids.count)
            for id in ids {
                if let item = try r.fetchExisting(Item.ID(rawValue: id)) { items.append(item) }
            }
            return items
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for item in items { checksum.add(item) }
        return Sample(Metrics.lookupRate, Double(ids.count) / elapsed, checksum: checksum)
    }

    private func ranges(_ stack: DataStack) async throws -> Sample {
        let starts = environment.dataset.rangeStarts
        var results: [[Item]] = []
        results.reserveCapacity(starts.count)
        let start = nanoseconds()
        for lower in starts {
            results.append(try await stack.fetchAll(From<Item>().where(.between(\.age, lower...lower + 1))))
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for item in results.joined() { checksum.add(item) }
        return Sample(Metrics.queryRate, Double(starts.count) / elapsed, checksum: checksum)
    }

    private func groups(_ stack: DataStack) async throws -> Sample {
        let query = From<Item>()
            .select(.attribute(\.age), .count(\.id), .average(\.score))
            .groupBy(\.age)
        var rows: [QueryRow] = []
        let start = nanoseconds()
        for _ in 0..<groupQueriesPerRound {
            rows = try await stack.queryAttributes(query)
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for row in rows {
            let age = row["age", as: Int.self] ?? -1
            let count = row["count(id)", as: Int.self] ?? -1
            let average = row["average(score)", as: Double.self] ?? .nan
            checksum.add(UInt64(age), UInt64(count), average.bitPattern)
        }
        return Sample(Metrics.groupTime, elapsed * 1000 / Double(groupQueriesPerRound), checksum: checksum)
    }

    // MARK: g

    /// A count publisher iterated by a consumer task; each write stamps the time as the last thing its
    /// `perform` closure does, just before Strata commits.
    private func observeCount(_ stack: DataStack) async throws -> Sample {
        let probe = LatencyProbe()
        let publisher = stack.countPublisher(From<Item>().where(\.age < 50))
        probe.expect(nil)
        let consumer = Task {
            for try await count in publisher {
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
            try await stack.perform { tx in
                try Self.create(dataset.youngItem(index), tx)
                probe.stamp()
            }
            await probe.delivery()
        }
        consumer.cancel()
        _ = await consumer.result
        try await removeAddedRows(stack)
        return probe.sample()
    }

    // MARK: h

    private func concurrent(_ stack: DataStack) async throws -> Sample {
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
                        guard try await stack.fetchExisting(Item.ID(rawValue: id)) != nil else {
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
                    try await stack.perform { tx in try Self.create(data, tx) }
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
        try await removeAddedRows(stack)
        return Sample(values: [
            Metrics.concurrentReads: Double(reads) / duration,
            Metrics.concurrentWrites: Double(writes) / duration,
        ])
    }

    // MARK: i

    /// b. with 10 list publishers (one age slice each, sorted by name), each iterated by a consumer task.
    private func observeLists(round: Int) async throws -> Sample {
        let baseline = try await insertEach(name: "strata-i0-\(round).sqlite").rate
        let path = environment.path("strata-i-\(round).sqlite")
        let stack = try await makeStack(path)
        let count = environment.listObserverCount
        let board = ListBoard<Item>(count: count)
        var consumers: [Task<Void, any Error>] = []
        for index in 0..<count {
            let slice = environment.listSlice(index)
            let publisher = stack.listPublisher(
                From<Item>().where(\.age >= slice.lower && \.age < slice.upper).orderBy(.ascending(\.name)))
            consumers.append(Task {
                for try await list in publisher {
                    board.update(index, list.items)
                }
            })
        }
        _ = try await board.wait(total: 0)
        let initialUpdates = board.updateCount
        let rate = try await Self.insertEach(stack, environment.dataset.extraItems[0..<1_000])
        let lists = try await board.wait(total: 1_000)
        for consumer in consumers { consumer.cancel() }
        for consumer in consumers { _ = await consumer.result }
        await stack.close()
        environment.remove(path)
        var checksum = Checksum()
        for item in lists.joined() { checksum.add(item) }
        var sample = Sample(
            values: [Metrics.observedRate: rate, Metrics.observedFraction: rate / baseline], checksum: checksum)
        sample.note = "\(board.updateCount - initialUpdates) list snapshots"
        return sample
    }

    // MARK: j

    private func loadOrders() async throws -> Sample {
        guard let stack = ordersStack else { throw RawError(description: "no Northwind copy") }
        var orders: [Order] = []
        let start = nanoseconds()
        for _ in 0..<environment.northwindLoadsPerRound {
            orders = try await stack.fetchAll(From<Order>())
        }
        let elapsed = seconds(since: start)
        var checksum = Checksum()
        for order in orders { checksum.add(order, idOffset: orderIDOffset) }
        return Sample(
            Metrics.loadTime, elapsed * Double(northwindLoads) / Double(environment.northwindLoadsPerRound), checksum: checksum)
    }
}
