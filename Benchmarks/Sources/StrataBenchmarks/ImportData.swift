/// The fixed data of l1 and l2, from a generator of its own (so the other workloads' data stay as
/// they were): 40,000 distinct keys, the 20,000 rows of the store every round starts from (the keys at
/// even positions), and the 40,000 sources of the import (every key once, shuffled), whose values all
/// differ from the stored ones, so that every matched row is rewritten.
struct ImportData: Sendable {
    /// The rows of the store, in insertion order.
    let stored: [ContactSource]
    /// The sources of the import: half name a stored key, half a new one, interleaved at random.
    let sources: [ContactSource]

    static let storedCount = 20_000
    static let sourceCount = 40_000

    init(seed: UInt64 = 0x494D_504F_5254) {
        var random = SplitMix64(seed: seed)
        let keys = (0..<Self.sourceCount).map { _ in Self.key(random.next()) }
        guard Set(keys).count == keys.count else { preconditionFailure("the import's keys are not distinct") }
        stored = stride(from: 0, to: Self.sourceCount, by: 2).map { Self.makeSource(keys[$0], &random) }
        sources = keys.shuffled(using: &random).map { Self.makeSource($0, &random) }
    }

    /// A key as an import names one: `user-` and 16 hexadecimal digits (21 bytes, so a Swift string
    /// with a buffer of its own, as a UUID or an e-mail address would be).
    static func key(_ bits: UInt64) -> String {
        let digits = String(bits, radix: 16)
        return "user-" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// A source with the key and random values, those of the dataset's rows (`Dataset.makeItem`).
    static func makeSource(_ key: String, _ random: inout SplitMix64) -> ContactSource {
        let item = Dataset.makeItem(&random)
        return ContactSource(key: key, name: item.name, age: item.age, score: item.score)
    }
}
