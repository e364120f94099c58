import Synchronization

/// A value under a lock, shareable with threads and tasks (a `Mutex` cannot be captured by an
/// escaping closure, being noncopyable).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    @inline(__always)
    func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { value in try body(&value) }
    }
}
