/// The rows of l3, made one at a time as they are read, as a file read line by line or a streamed JSON
/// array would hand them over: nothing holds them all. Row `i` is computed from `i` alone (its own
/// SplitMix64 generator), so every implementation gets the same rows whichever way it reads them: raw
/// SQLite through ``source(_:)`` in a loop, GRDB and Strata as an `AsyncSequence` whose iterator never
/// suspends.
///
/// When the row at ``checkpoint`` is asked for (after the rows before it were handed over), the
/// sequence calls ``atCheckpoint``: l3 reads the peak memory there.
struct StreamedSources: AsyncSequence, Sendable {
    typealias Element = ContactSource

    let count: Int
    let checkpoint: Int
    let atCheckpoint: @Sendable () -> Void

    static let rowCount = 1_000_000
    static let checkpointRow = 250_000
    /// The transaction size of every implementation (Strata's `chunkSize`).
    static let chunkSize = 10_000

    /// Row `index`: the key `row-` and the index in 7 digits (rows arrive in key order, as in an
    /// export sorted by key), and random values like the dataset's.
    static func source(_ index: Int) -> ContactSource {
        var random = SplitMix64(seed: 0x5354_5245_414D &+ UInt64(index))
        let item = Dataset.makeItem(&random)
        return ContactSource(key: key(index), name: item.name, age: item.age, score: item.score)
    }

    /// `row-` and `index` in 7 decimal digits (11 bytes: a small string, stored inline), written
    /// without formatting.
    static func key(_ index: Int) -> String {
        String(unsafeUninitializedCapacity: 11) { bytes in
            for (position, byte) in "row-".utf8.enumerated() { bytes[position] = byte }
            var rest = index
            for position in (4..<11).reversed() {
                bytes[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            return 11
        }
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(sources: self)
    }

    struct Iterator: AsyncIteratorProtocol {
        let sources: StreamedSources
        var index = 0

        mutating func next() async -> ContactSource? {
            guard index < sources.count else { return nil }
            if index == sources.checkpoint { sources.atCheckpoint() }
            defer { index += 1 }
            return StreamedSources.source(index)
        }
    }
}
