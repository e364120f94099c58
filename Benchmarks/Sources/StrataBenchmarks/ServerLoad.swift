/// One operation of workload k, as a server request would make it.
enum ServerOperation: Sendable {
    /// The row with this ID, through the implementation's usual single-row read.
    case lookup(id: Int64)
    /// The rows with `lower ≤ age ≤ lower + 1` (about 100), as in workload e.
    case range(lower: Int)
    /// One transaction inserting this row.
    case insert(ItemData)
    /// One transaction setting the score of the row with this ID.
    case update(id: Int64, score: Double)
}

/// The operations of workload k for one number of concurrent tasks: a fixed share of the total per
/// task, drawn by a generator seeded per task, so every implementation runs the same operations in
/// the same order within each task. Built once, before the rounds.
///
/// The mix: 45% lookups by ID, 45% range queries, 5% one-row inserts, 5% one-row updates. Inserted
/// rows get ages from 2000 up, outside the ranges the queries read (0…1999), and updates change only
/// `score`: so the rows the reads return, apart from their scores, do not depend on how the reads
/// and writes of the concurrent tasks interleave, and the checksums can compare implementations.
struct ServerLoad: Sendable {
    /// The operations of each task, in order.
    let plans: [[ServerOperation]]
    /// The IDs the updates touch, each once, sorted: their scores are restored after each round.
    let updatedIDs: [Int64]

    /// 100,000 operations in all; `--quick` runs 10,000.
    static let operationCount = 100_000
    static let quickOperationCount = 10_000
    /// The first age of inserted rows: one above the largest age of the dataset and of the ranges.
    static let insertedAgeBase = Dataset.ageCount

    var taskCount: Int { plans.count }
    var operationCount: Int { plans.reduce(0) { $0 + $1.count } }

    /// `operationCount` operations shared among `taskCount` tasks (the first `operationCount %
    /// taskCount` tasks run one more).
    init(taskCount: Int, operationCount: Int, rowCount: Int) {
        var plans: [[ServerOperation]] = []
        var updated: Set<Int64> = []
        for task in 0..<taskCount {
            var random = SplitMix64(seed: 0x4B5F_5345_5256 &+ UInt64(taskCount) << 20 &+ UInt64(task))
            let share = operationCount / taskCount + (task < operationCount % taskCount ? 1 : 0)
            var plan: [ServerOperation] = []
            plan.reserveCapacity(share)
            for _ in 0..<share {
                switch random.below(20) {
                case 0..<9:
                    plan.append(.lookup(id: Int64(random.below(rowCount) + 1)))
                case 9..<18:
                    plan.append(.range(lower: random.below(Dataset.ageCount - 1)))
                case 18:
                    var item = Dataset.makeItem(&random)
                    item.age = Self.insertedAgeBase + random.below(100)
                    plan.append(.insert(item))
                default:
                    let id = Int64(random.below(rowCount) + 1)
                    updated.insert(id)
                    plan.append(.update(id: id, score: random.unit() * 1000))
                }
            }
            plans.append(plan)
        }
        self.plans = plans
        updatedIDs = updated.sorted()
    }
}

extension Checksum {
    /// Adds one row read by k: its ID, age and creation date, which k's writes never change (its
    /// updates change scores, in an order that depends on the interleaving). Not the name either,
    /// to keep the hashing, which runs inside the measured operation, to a few nanoseconds a row.
    @inline(__always)
    mutating func addServerRow(id: Int64, age: Int, created: Double) {
        addRowHash(Self.mix(Self.mix(UInt64(bitPattern: id) ^ 0x6B) ^ UInt64(bitPattern: Int64(age))) ^ created.bitPattern)
    }
}
