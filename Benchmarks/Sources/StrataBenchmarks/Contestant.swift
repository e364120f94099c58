import Foundation

/// One implementation under test. The runner calls it from one task at a time.
protocol Contestant: AnyObject, Sendable {
    var contender: Contender { get }
    /// Whether it runs this workload (the Codable variant of GRDB runs only where records are mapped).
    func runs(_ workload: Workload) -> Bool
    /// Creates the main store with the 100,000 rows of the dataset.
    func setUp() async throws
    /// Untimed preparation before the rounds of a workload (j: the copy and the warm-up loads).
    func prepare(_ workload: Workload) async throws
    /// Runs a workload once and measures it.
    func run(_ workload: Workload, round: Int) async throws -> Sample
    /// Closes everything.
    func tearDown() async
}

/// What every implementation shares: the dataset, the temporary directory, the options.
struct Environment: Sendable {
    let dataset: Dataset
    /// The stored rows and sources of l1 and l2.
    let imports: ImportData
    let directory: URL
    let northwindPath: String?
    let concurrentSeconds: Double
    /// Whole-table loads j times per round: the 500 loads of the workload are spread over the rounds
    /// (100 per round in 5 rounds), and each round's time is scaled to 500 loads. `--quick` loads 50 in all.
    let northwindLoadsPerRound: Int
    let listObserverCount = 10
    /// The operations of k64 and k1000 (only those of the workloads that run).
    let serverLoads: [Workload: ServerLoad]
    /// The spinning threads of `--load busy`, or `nil`.
    let busyLoad: BusyLoad?
    /// n: whether the committing child runs with `synchronous = FULL` (an `fsync` between writing a
    /// commit and making it visible) instead of `NORMAL`.
    var otherProcessFullSync = false

    /// The CPU time of the process so far, less that of `--load busy`'s threads, in seconds.
    func measuredCPUSeconds() -> Double {
        CPUTime.process() - (busyLoad?.cpuSeconds ?? 0)
    }

    /// A file in the temporary directory.
    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// Removes a database file and its WAL and shared-memory files.
    func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    /// Rows with `id > rowCount` are added by g and h and removed after each round, so every round and
    /// every implementation reads the same 100,000 rows.
    var rowCount: Int64 { Int64(dataset.items.count) }

    /// The age slices the list observers of i watch: `lower ≤ age < upper`, sorted by name.
    func listSlice(_ index: Int) -> (lower: Int, upper: Int) {
        let width = Dataset.ageCount / listObserverCount
        return (index * width, index * width + width)
    }
}

/// The metrics of each workload.
enum Metrics {
    static let insertRate = Metric(name: "", unit: .rowsPerSecond)
    static let transactionRate = Metric(name: "", unit: .transactionsPerSecond)
    static let fetchRate = Metric(name: "", unit: .rowsPerSecond)
    static let lookupRate = Metric(name: "", unit: .lookupsPerSecond)
    static let queryRate = Metric(name: "", unit: .queriesPerSecond)
    static let groupTime = Metric(name: "", unit: .milliseconds)
    static let latencyP50 = Metric(name: "p50", unit: .microseconds)
    static let latencyP99 = Metric(name: "p99", unit: .microseconds)
    static let concurrentReads = Metric(name: "reads", unit: .readsPerSecond)
    static let concurrentWrites = Metric(name: "writer", unit: .rowsPerSecond)
    static let observedRate = Metric(name: "with observers", unit: .transactionsPerSecond)
    static let observedFraction = Metric(name: "fraction of b.", unit: .fraction)
    static let loadTime = Metric(name: "", unit: .seconds)
    static let serverRate = Metric(name: "throughput", unit: .operationsPerSecond)
    static let serverP50 = Metric(name: "p50 latency", unit: .microseconds)
    static let serverP99 = Metric(name: "p99 latency", unit: .microseconds)
    static let serverCPU = Metric(name: "CPU, user + system", unit: .cpuPerThousand)
    /// l1, l2: sources imported per second.
    static let importRate = Metric(name: "", unit: .rowsPerSecond)
    /// l3: rows inserted per second; how far the process's resident memory rose by the row at
    /// ``StreamedSources/checkpointRow``, by the end, and between the two (near 0 when memory is bounded).
    static let streamRate = Metric(name: "", unit: .rowsPerSecond)
    static let streamMemoryAtCheckpoint = Metric(name: "peak RSS growth, first 250,000 rows", unit: .mebibytes)
    static let streamMemory = Metric(name: "peak RSS growth, all 1,000,000 rows", unit: .mebibytes)
    static let streamMemoryRise = Metric(name: "peak RSS rise after row 250,000", unit: .mebibytes)
    /// m1: the migration alone (for Strata, opening with the migration less opening the migrated store).
    static let migrationTime = Metric(name: "migration", unit: .milliseconds)
    /// m1, Strata only: `DataStack(history, …)` on the V1 store, and on the store it migrated.
    static let openAndMigrate = Metric(name: "Strata: open + migrate", unit: .milliseconds)
    static let openMigrated = Metric(name: "Strata: open, nothing to migrate", unit: .milliseconds)
    /// m2, m3: rows migrated per second, and how far the process's resident memory rose meanwhile.
    static let migrationRate = Metric(name: "", unit: .rowsPerSecond)
    static let migrationMemory = Metric(name: "peak RSS growth", unit: .mebibytes)
    /// n: the delay from another process's `COMMIT` to the observer's snapshot.
    static let otherProcessP50 = Metric(name: "p50", unit: .milliseconds)
    static let otherProcessP99 = Metric(name: "p99", unit: .milliseconds)

    static func of(_ workload: Workload) -> [Metric] {
        switch workload {
        case .a, .oa: [insertRate]
        case .b, .ob: [transactionRate]
        case .c, .oc: [fetchRate]
        case .d, .d2, .od: [lookupRate]
        case .e: [queryRate]
        case .f: [groupTime]
        case .g: [latencyP50, latencyP99]
        case .h: [concurrentReads, concurrentWrites]
        case .i: [observedRate, observedFraction]
        case .j: [loadTime]
        case .k64, .k1000: [serverRate, serverP50, serverP99, serverCPU]
        case .l1, .l2: [importRate]
        case .l3: [streamRate, streamMemoryAtCheckpoint, streamMemory, streamMemoryRise]
        case .m1: [migrationTime, openAndMigrate, openMigrated]
        case .m2, .m3: [migrationRate, migrationMemory]
        case .n: [otherProcessP50, otherProcessP99]
        }
    }
}

/// The number of whole-table fetches c runs per round (its figure is their total rows per second).
let fetchesPerRound = 5
/// The number of group-by queries f runs per round; its figure is the mean time of one.
let groupQueriesPerRound = 10
/// The number of whole-table loads j reports (its figure is the time of this many loads), after
/// `northwindWarmUps` untimed ones per implementation.
let northwindLoads = 500
let northwindWarmUps = 10
