import Synchronization

/// The stream of committed ``ChangeSet``s, in commit order: the single input of observation.
///
/// The writer publishes each non-empty change set after its commit. Stream subscribers get it through a
/// yield into their buffer and do their work on their own tasks; listeners (the observation center) are
/// called synchronously on the writer's thread, in commit order, and must only do quick, non-blocking
/// work there.
final class CommitFeed: Sendable {
    private struct State {
        var subscribers: [UInt64: AsyncStream<ChangeSet>.Continuation] = [:]
        var listeners: [UInt64: @Sendable (ChangeSet) -> Void] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A stream of every change set committed from now on. It ends when the consumer stops iterating.
    func subscribe() -> AsyncStream<ChangeSet> {
        let (stream, continuation) = AsyncStream<ChangeSet>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Calls `listener` with every change set committed from now on, on the committing thread, until
    /// ``removeListener(_:)``.
    func addListener(_ listener: @escaping @Sendable (ChangeSet) -> Void) -> UInt64 {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.listeners[id] = listener
            return id
        }
    }

    func removeListener(_ id: UInt64) {
        _ = state.withLock { $0.listeners.removeValue(forKey: id) }
    }

    /// The number of live subscribers and listeners.
    var subscriberCount: Int { state.withLock { $0.subscribers.count + $0.listeners.count } }

    /// Hands a change set to every listener and subscriber.
    func publish(_ changes: ChangeSet) {
        let (listeners, subscribers) = state.withLock { (Array($0.listeners.values), Array($0.subscribers.values)) }
        for listener in listeners {
            listener(changes)
        }
        for subscriber in subscribers {
            subscriber.yield(changes)
        }
    }

    deinit {
        for subscriber in state.withLock({ Array($0.subscribers.values) }) {
            subscriber.finish()
        }
    }
}
