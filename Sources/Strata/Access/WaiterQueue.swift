import DequeModule

/// Tasks waiting for something, first come first served, each removable when its task is cancelled:
/// every operation is O(1) (amortized). Not thread-safe: it lives inside its owner's lock.
struct WaiterQueue<Value: Sendable> {
    typealias Continuation = CheckedContinuation<Value, any Error>

    /// The waiters' IDs in arrival order, including some that left (they are skipped when reached).
    private var order = Deque<UInt64>()
    private var waiting: [UInt64: Continuation] = [:]

    var isEmpty: Bool { waiting.isEmpty }
    var count: Int { waiting.count }

    mutating func append(_ id: UInt64, _ continuation: Continuation) {
        order.append(id)
        waiting[id] = continuation
    }

    /// Removes a waiter that stops waiting (its task was cancelled); `nil` when it was served already.
    mutating func remove(_ id: UInt64) -> Continuation? {
        waiting.removeValue(forKey: id)
    }

    /// Removes the longest-waiting waiter.
    mutating func popFirst() -> Continuation? {
        while let id = order.popFirst() {
            if let continuation = waiting.removeValue(forKey: id) { return continuation }
        }
        return nil
    }

    /// Removes every waiter.
    mutating func removeAll() -> [Continuation] {
        defer {
            order.removeAll()
            waiting.removeAll()
        }
        return order.compactMap { waiting[$0] }
    }
}
