import Synchronization

/// The stream of committed ``ChangeSet``s, in commit order: the single input of observation.
///
/// The writer publishes each non-empty change set after its commit and returns at once (a yield into
/// each subscriber's buffer); subscribers do their work on their own tasks.
final class CommitFeed: Sendable {
    private struct State {
        var subscribers: [UInt64: AsyncStream<ChangeSet>.Continuation] = [:]
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

    /// The number of live subscribers.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Hands a change set to every subscriber.
    func publish(_ changes: ChangeSet) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
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
