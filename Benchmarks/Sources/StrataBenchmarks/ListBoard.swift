/// The latest list of each of i's observers, for implementations whose observers are tasks.
final class ListBoard<Item: Sendable>: Sendable {
    private let lists: Locked<[[Item]?]>
    private let updates = Locked(0)

    init(count: Int) {
        lists = Locked(Array(repeating: nil, count: count))
    }

    func update(_ index: Int, _ items: [Item]) {
        lists.withLock { $0[index] = items }
        updates.withLock { $0 += 1 }
    }

    /// The number of lists the observers delivered so far.
    var updateCount: Int { updates.withLock { $0 } }

    /// Waits (polling each millisecond, for at most a minute) until every observer delivered a list
    /// and the lists hold `total` items together; returns the lists.
    func wait(total: Int) async throws -> [[Item]] {
        let deadline = nanoseconds() + 60_000_000_000
        while true {
            let lists = lists.withLock { $0 }
            let delivered = lists.compactMap { $0 }
            if delivered.count == lists.count, delivered.reduce(0, { $0 + $1.count }) == total {
                return delivered
            }
            guard nanoseconds() < deadline else {
                throw RawError(description: "list observers never showed \(total) items (\(delivered.map(\.count)))")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
