import Synchronization

/// The stream of committed ``ChangeSet``s, in commit order: the single input of observation.
///
/// The writer hands each non-empty change set over in O(1), whatever the number of observers: it
/// drops it into one mailbox and returns to its caller. One dispatcher task, off the writer's thread,
/// takes change sets from the mailbox in commit order and passes each to every listener (the
/// observation center, whose checks are quick) and stream subscriber.
final class CommitFeed: Sendable {
    private let mailbox: AsyncStream<(UInt64, ChangeSet)>.Continuation
    private let fanOut = FanOut()
    private let mailed = Atomic<Int>(0)
    private let local = Atomic<Int>(0)

    init() {
        let (stream, mailbox) = AsyncStream<(UInt64, ChangeSet)>.makeStream(bufferingPolicy: .unbounded)
        self.mailbox = mailbox
        let fanOut = self.fanOut
        // The dispatcher ends when the mailbox is finished (on close, or when the feed goes away). It is
        // the stack's, not the opener's: detached, it carries none of the opening task's priority or
        // task-local values (a request's trace or logger metadata) into the fetches it starts.
        Task.detached {
            for await (sequence, changes) in stream {
                fanOut.deliver(changes, sequence: sequence)
            }
            fanOut.finish()
        }
    }

    deinit {
        mailbox.finish()
    }

    /// Hands a change set to the dispatcher and returns at once. It numbers the change set, so that a
    /// listener or subscriber added after the commit returned never receives it, even when the
    /// dispatcher delivers it later. With nobody listening it only numbers it: waking the dispatcher
    /// would cost a thread wake-up per commit for nothing.
    /// `local` is false for other connections' commits (whose change set may carry their exact changes,
    /// read from the persistent history, and so not be marked external).
    func publish(_ changes: ChangeSet, local isLocal: Bool = true) {
        if isLocal { local.add(1, ordering: .relaxed) }
        if let sequence = fanOut.nextSequence() {
            mailed.add(1, ordering: .relaxed)
            mailbox.yield((sequence, changes))
        }
    }

    /// The number of change sets handed to the dispatcher so far (for tests).
    var mailedCount: Int { mailed.load(ordering: .relaxed) }

    /// The number of the stack's own commits published so far (external change sets not counted), for
    /// the external-change monitor, which tells the stack's own writes from other processes' by it.
    var localCommitCount: Int { local.load(ordering: .relaxed) }

    /// Stops the dispatcher once it has delivered what was published; subscribers' streams then end.
    func finish() {
        mailbox.finish()
    }

    /// A stream of every change set committed from now on. It ends when the consumer stops iterating
    /// (or drops the stream), or when the feed finishes; `onTermination` runs then, once.
    func subscribe(onTermination: @escaping @Sendable () -> Void = {}) -> AsyncStream<ChangeSet> {
        fanOut.subscribe(onTermination: onTermination).stream
    }

    /// A stream as ``subscribe(onTermination:)`` makes it, with its continuation: finishing it ends the
    /// subscription even while the stream is still held.
    func subscription(onTermination: @escaping @Sendable () -> Void = {}) -> Subscription {
        fanOut.subscribe(onTermination: onTermination)
    }

    /// A subscriber's stream and the continuation that ends it.
    struct Subscription: Sendable {
        let stream: AsyncStream<ChangeSet>
        let continuation: AsyncStream<ChangeSet>.Continuation
    }

    /// Calls `listener` with every change set committed from now on, on the dispatcher's task, in
    /// commit order, until ``removeListener(_:)``.
    func addListener(_ listener: @escaping @Sendable (ChangeSet) -> Void) -> UInt64 {
        fanOut.addListener(listener)
    }

    func removeListener(_ id: UInt64) {
        fanOut.removeListener(id)
    }

    /// The number of live subscribers and listeners.
    var subscriberCount: Int { fanOut.count }
}

/// The listeners and subscribers the dispatcher delivers to.
private final class FanOut: Sendable {
    private struct State {
        /// Each with the sequence number of the last change set published before it was added.
        var subscribers: [UInt64: (since: UInt64, continuation: AsyncStream<ChangeSet>.Continuation)] = [:]
        var listeners: [UInt64: (since: UInt64, listener: @Sendable (ChangeSet) -> Void)] = [:]
        var nextID: UInt64 = 0
        var published: UInt64 = 0
        var isFinished = false
    }

    private let state = Locked(State())

    func subscribe(onTermination: @escaping @Sendable () -> Void) -> CommitFeed.Subscription {
        let (stream, continuation) = AsyncStream<ChangeSet>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        // Set before the subscriber is added, so that it runs however the stream ends.
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            onTermination()
        }
        let added = state.withLock { state in
            guard !state.isFinished else { return false }
            state.subscribers[id] = (state.published, continuation)
            return true
        }
        if !added { continuation.finish() }
        return CommitFeed.Subscription(stream: stream, continuation: continuation)
    }

    func addListener(_ listener: @escaping @Sendable (ChangeSet) -> Void) -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            state.listeners[state.nextID] = (state.published, listener)
            return state.nextID
        }
    }

    func removeListener(_ id: UInt64) {
        _ = state.withLock { $0.listeners.removeValue(forKey: id) }
    }

    var count: Int { state.withLock { $0.subscribers.count + $0.listeners.count } }

    /// The sequence number of a change set being published, or `nil` when no listener or subscriber
    /// would receive it (one added later would not, whenever the dispatcher delivered it).
    func nextSequence() -> UInt64? {
        state.withLock { state in
            state.published += 1
            return state.listeners.isEmpty && state.subscribers.isEmpty ? nil : state.published
        }
    }

    func deliver(_ changes: ChangeSet, sequence: UInt64) {
        let (listeners, subscribers) = state.withLock { state in
            (state.listeners.values.filter { $0.since < sequence }.map(\.listener),
             state.subscribers.values.filter { $0.since < sequence }.map(\.continuation))
        }
        for listener in listeners {
            listener(changes)
        }
        for subscriber in subscribers {
            subscriber.yield(changes)
        }
    }

    func finish() {
        let subscribers = state.withLock { state in
            state.isFinished = true
            defer { state.subscribers.removeAll() }
            return state.subscribers.values.map(\.continuation)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
