/// The workloads of issue 5, a–j; k, a server's load (64 and 1,000 concurrent tasks); l, imports
/// (l1–l3); m, schema migrations of the 100,000-row store (m1–m3); n, how soon another process's
/// commit reaches an observer; and o, what a stack of two stores costs a single-store workload
/// (a, b, c and d on three stacks, oa–od: Strata only).
enum Workload: String, CaseIterable, Sendable {
    case a, b, c, d, d2, e, f, g, h, i, j, k64, k1000, l1, l2, l3, m1, m2, m3, n, oa, ob, oc, od

    var title: String {
        switch self {
        case .a: "a. insert 100,000 rows, one transaction"
        case .b: "b. insert 1,000 rows, 1,000 awaited transactions"
        case .c: "c. fetch all 100,000 rows"
        case .d: "d. 10,000 ID lookups, each its own read"
        case .d2: "d2. 10,000 ID lookups in one read"
        case .e: "e. 1,000 range queries, ~100 rows each"
        case .f: "f. age, count, avg(score) grouped by age"
        case .g: "g. count observation latency, 1,000 writes"
        case .h: "h. 2 readers + 1 writer, concurrently"
        case .i: "i. b. with 10 active list observers"
        case .j: "j. Northwind Orders, time of 500 whole loads"
        case .k64: "k64. server load, 64 concurrent tasks"
        case .k1000: "k1000. server load, 1,000 concurrent tasks"
        case .l1: "l1. unique import: 40,000 sources, 20,000 stored, one transaction"
        case .l2: "l2. batch upsert: 40,000 sources, 20,000 stored, one transaction"
        case .l3: "l3. 1,000,000 rows streamed, transactions of 10,000"
        case .m1: "m1. migration: add a field with a default, 100,000 rows"
        case .m2: "m2. migration: rename + Int → Double (table rebuild), 100,000 rows"
        case .m3: "m3. migration: custom Swift transform of every row, 100,000 rows"
        case .n: "n. another process's commit → observer's snapshot, 200 commits"
        case .oa: "oa. a. on two stores: insert 100,000 rows, one transaction"
        case .ob: "ob. b. on two stores: insert 1,000 rows, 1,000 awaited transactions"
        case .oc: "oc. c. on two stores: fetch all 100,000 rows"
        case .od: "od. d. on two stores: 10,000 ID lookups, each its own read"
        }
    }

    /// The single-store workload an o workload runs on the three stacks (`nil` for the others).
    var storesBase: Workload? {
        switch self {
        case .oa: .a
        case .ob: .b
        case .oc: .c
        case .od: .d
        default: nil
        }
    }

    /// The number of concurrent tasks of a k workload (`nil` for the others).
    var serverTaskCount: Int? {
        switch self {
        case .k64: 64
        case .k1000: 1_000
        default: nil
        }
    }

    /// The import of an l workload (`nil` for the others).
    var importPart: ImportPart? {
        switch self {
        case .l1: .uniqueImport
        case .l2: .batchUpsert
        case .l3: .stream
        default: nil
        }
    }

    /// The migration of an m workload (`nil` for the others).
    var migration: MigrationPart? {
        switch self {
        case .m1: .addField
        case .m2: .rebuild
        case .m3: .transform
        default: nil
        }
    }
}

/// What a metric measures, and which direction is better.
enum Unit: String, Sendable {
    case rowsPerSecond = "rows/s"
    case transactionsPerSecond = "tx/s"
    case lookupsPerSecond = "lookups/s"
    case queriesPerSecond = "queries/s"
    case readsPerSecond = "reads/s"
    case milliseconds = "ms"
    case microseconds = "µs"
    case seconds = "s"
    case fraction = "× of b."
    case operationsPerSecond = "ops/s"
    case cpuPerThousand = "ms per 1,000 ops"
    case mebibytes = "MiB"

    /// Throughputs grow with speed; times and latencies shrink.
    var higherIsBetter: Bool {
        switch self {
        case .milliseconds, .microseconds, .seconds, .cpuPerThousand, .mebibytes: false
        default: true
        }
    }
}

/// One measured quantity of a workload (most have one; g has p50 and p99, h reads and writes, i the
/// throughput and its fraction of b.).
struct Metric: Hashable, Sendable {
    var name: String
    var unit: Unit
}

/// The result of one implementation running one workload once.
struct Sample: Sendable {
    var values: [Metric: Double]
    var checksum: Checksum?
    /// A diagnostic printed with the round (not in the table), such as how many list snapshots i delivered.
    var note: String?

    init(_ metric: Metric, _ value: Double, checksum: Checksum? = nil) {
        values = [metric: value]
        self.checksum = checksum
    }

    init(values: [Metric: Double], checksum: Checksum? = nil) {
        self.values = values
        self.checksum = checksum
    }
}

/// The implementations, in the order they run within a round.
enum Contender: String, CaseIterable, Sendable {
    case raw = "raw SQLite"
    case grdbRow = "GRDB init(row:)"
    /// GRDB's synchronous `read` / `write`, called from a plain thread (b, c, d only).
    case grdbSync = "GRDB sync"
    case grdbCodable = "GRDB Codable"
    case strata = "Strata"
    /// Strata with its persistent history on (a and b only): what recording every commit costs.
    case strataHistory = "Strata, history on"
    /// o's three stacks (o only): one store, as every other workload opens it; two stores with `Item`
    /// in the main (default) store and a second entity in an attached one; two stores with `Item` in
    /// the attached one and the second entity in the main one.
    case strataOneStore = "Strata, one store"
    case strataItemInMain = "Strata, two stores, Item in main"
    case strataItemAttached = "Strata, two stores, Item attached"

    /// Whether its setup makes the main store of 100,000 rows that most workloads read.
    var hasMainStore: Bool {
        switch self {
        case .strataHistory, .strataOneStore, .strataItemInMain, .strataItemAttached: false
        default: true
        }
    }
}
