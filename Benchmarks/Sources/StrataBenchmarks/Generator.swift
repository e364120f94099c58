/// SplitMix64: a small, fast, fixed-seed generator, so every run and every implementation sees the
/// same rows, the same lookup IDs and the same ranges.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// Uniform in `[0, 1)`, with 53 random bits.
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}

/// One row of the `item` table, as every implementation inserts it.
struct ItemData: Sendable {
    /// 23 ASCII bytes.
    var name: String
    /// Uniform in 0…1999.
    var age: Int
    /// Uniform in [0, 1000).
    var score: Double
    /// Seconds since 2001-01-01 (Foundation's reference date, Strata's storage of `Date`), within 2020,
    /// with millisecond resolution.
    var created: Double
}

/// The fixed data of a run.
struct Dataset: Sendable {
    /// The rows of the `item` table, in insertion order: row `i` gets ID `i + 1`.
    let items: [ItemData]
    /// Rows inserted by the write workloads (b, g, h, i), from their own stream.
    let extraItems: [ItemData]
    /// IDs for the lookups of d, d2 and h, uniform in 1…rowCount.
    let lookupIDs: [Int64]
    /// Lower bounds `x` of the range queries `age BETWEEN x AND x + 1` of e, uniform in 0…1998.
    let rangeStarts: [Int]

    static let rowCount = 100_000
    static let ageCount = 2_000

    init(rowCount: Int = Dataset.rowCount, seed: UInt64 = 0x5354_5241_5441) {
        var random = SplitMix64(seed: seed)
        items = (0..<rowCount).map { _ in Self.makeItem(&random) }
        extraItems = (0..<200_000).map { _ in Self.makeItem(&random) }
        lookupIDs = (0..<10_000).map { _ in Int64(random.below(rowCount) + 1) }
        rangeStarts = (0..<1_000).map { _ in random.below(Self.ageCount - 1) }
    }

    private static let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
    /// 2020-01-01 00:00:00 UTC, in seconds since 2001-01-01.
    private static let baseDate = 599_616_000.0

    /// A row with random values: 23 lowercase letters, and age, score and date as described above.
    static func makeItem(_ random: inout SplitMix64) -> ItemData {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(23)
        for _ in 0..<23 { bytes.append(letters[random.below(letters.count)]) }
        return ItemData(
            name: String(decoding: bytes, as: UTF8.self),
            age: random.below(ageCount),
            score: random.unit() * 1000,
            created: baseDate + Double(random.below(366 * 86_400_000)) / 1000)
    }

    /// A row of the write workloads whose age is below 50, so that it changes g's count.
    func youngItem(_ index: Int) -> ItemData {
        var item = extraItems[index]
        item.age = index % 50
        return item
    }
}
