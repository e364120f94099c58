import CoreMetrics
import Logging
import Synchronization

/// Fans the commit feed out to the active observations of one stack, and watches for commits made
/// outside it.
///
/// It listens to the feed only while some observation is active. Each commit reaches it on the feed's
/// dispatcher task, never on the writer's thread: the relevance checks are quick, and a relevant
/// observation only starts its fetch task there.
///
/// While some observation is active or some ``DataStack/changes()`` stream is alive, an
/// ``ExternalChangeMonitor`` watches the store's files (and polls as a fallback) for commits of other
/// connections (another process, or another stack on the same file); each one it notices reaches
/// ``externalChangeDetected()``.
final class ObservationCenter: Sendable {
    struct Observer: Sendable {
        let isRelevant: @Sendable (ChangeSet) -> Bool
        let notify: @Sendable (ChangeSet) -> Void
        /// Ends the observation's iterations when the stack closes.
        let close: @Sendable () -> Void
    }

    private struct State {
        var observers: [UInt64: Observer] = [:]
        var nextID: UInt64 = 0
        var listener: UInt64?
        /// The live ``DataStack/changes()`` streams.
        var streamCount = 0
        var monitor: ExternalChangeMonitor?
        /// Monitors stopped and not yet ended: ``close()`` waits for them too.
        var stopping: [ObjectIdentifier: ExternalChangeMonitor] = [:]
        var isClosed = false

        var needsMonitor: Bool { !isClosed && (!observers.isEmpty || streamCount > 0) }
    }

    private let feed: CommitFeed
    private let writer: Writer
    private let pollInterval: Duration?
    /// The database file to watch, or `nil` for a store no other connection knows (in-memory).
    /// The stores' files to watch for other processes' commits (none for in-memory stores), asked
    /// when a monitor starts, so a store added to the stack meanwhile is watched too.
    private let watchedPaths: @Sendable () -> [String]
    private let state = Locked(State())
    private let permits: LeasePool<Void>

    private let logger: Logger
    /// The stack's metrics, `nil` when they go nowhere: each fetch is counted, and the active
    /// observations (``activeCount``) kept in `strata_active_observations`.
    private let metrics: StackMetrics?

    init(
        feed: CommitFeed, writer: Writer, pollInterval: Duration?, watchedPaths: @escaping @Sendable () -> [String] = { [] },
        maximumConcurrentFetches: Int, logger: Logger = Logger(label: "strata"), metrics: StackMetrics? = nil
    ) {
        self.metrics = metrics
        self.logger = logger
        self.feed = feed
        self.writer = writer
        self.pollInterval = pollInterval
        self.watchedPaths = watchedPaths
        self.permits = LeasePool(idle: Array(repeating: (), count: max(1, maximumConcurrentFetches)))
    }

    /// Runs an observation fetch once fewer than the maximum run: however many publishers are active,
    /// their fetches leave the writer (and the rest of the app) its share of the machine. Changes that
    /// arrive while a publisher waits are coalesced into its next fetch.
    ///
    /// `isWanted` is asked once the permit is granted: a fetch no longer wanted (its observation stopped
    /// while it waited) gives the permit back at once and throws `CancellationError`, without a read.
    func withFetchPermit<T>(isWanted: () -> Bool = { true }, _ body: () async throws -> T) async throws -> T {
        _ = try await permits.acquire()
        defer { permits.release(()) }
        guard isWanted() else { throw CancellationError() }
        metrics?.observationFetches.increment()
        return try await body()
    }

    /// Returns once at least `count` fetches wait for a permit (for tests).
    func waitForPermitWaiters(_ count: Int = 1) async {
        await permits.waitForWaiters(count)
    }

    /// Takes a fetch permit without waiting; give it back with ``releaseFetchPermit()``.
    /// (Count the fetch with ``noteFetch()`` once it starts.)
    func tryFetchPermit() -> Bool {
        (try? permits.tryAcquire()) != nil
    }

    /// Counts a fetch started with a permit from ``tryFetchPermit()``.
    func noteFetch() {
        metrics?.observationFetches.increment()
    }

    func releaseFetchPermit() {
        permits.release(())
    }

    /// Adds an observer; the first one starts listening to the feed (and the external-change monitor).
    /// `nil` once the stack is closing: no commit will come, and the caller fails its observation with
    /// `stackClosed` (it cannot be ended from here, under the caller's lock).
    func register(_ observer: Observer) -> UInt64? {
        let id = state.withLock { state -> UInt64? in
            guard !state.isClosed else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.observers[id] = observer
            if state.listener == nil {
                state.listener = feed.addListener { [weak self] changes in self?.dispatch(changes) }
            }
            startMonitorIfNeeded(&state)
            // Under the lock, so that the gauge moves with the count: whoever sees one sees the other.
            metrics?.activeObservations.increment()
            return id
        }
        return id
    }

    /// Removes an observer; the last one stops listening to the feed, and the monitor when no stream
    /// needs it either.
    func unregister(_ id: UInt64) {
        let (listener, monitor): (UInt64?, ExternalChangeMonitor?) = state.withLock { state in
            if state.observers.removeValue(forKey: id) != nil { metrics?.activeObservations.decrement() }
            guard state.observers.isEmpty else { return (nil, nil) }
            defer { state.listener = nil }
            return (state.listener, takeMonitorIfUnneeded(&state))
        }
        if let listener { feed.removeListener(listener) }
        retire(monitor)
    }

    /// A stream of every change set committed from now on: this stack's, and an external one for each
    /// commit of another connection noticed, with the continuation that ends it. The monitor runs while
    /// the stream lives.
    func changeSubscription() -> CommitFeed.Subscription {
        state.withLock { state in
            state.streamCount += 1
            startMonitorIfNeeded(&state)
            metrics?.activeObservations.increment()
        }
        return feed.subscription { [weak self] in self?.streamEnded() }
    }

    private func streamEnded() {
        let monitor = state.withLock { state in
            state.streamCount -= 1
            metrics?.activeObservations.decrement()
            return takeMonitorIfUnneeded(&state)
        }
        retire(monitor)
    }

    /// Stops watching for good (the stack is closing) and waits until the watcher's thread has ended.
    func close() async {
        let (monitors, observers) = state.withLock { state in
            state.isClosed = true
            defer { state.monitor = nil }
            return (Array(state.stopping.values) + [state.monitor].compactMap { $0 }, Array(state.observers.values))
        }
        // Outside the lock: each observation unregisters as it stops. A consumer waiting for the next
        // value would otherwise wait forever, no commit coming any more.
        for observer in observers { observer.close() }
        // Monitors stopped earlier too: none of the stack's checks or watch threads outlives `close()`.
        for monitor in monitors { await monitor.stopped() }
    }

    /// Stops a monitor taken out of the state (and put among the stopping ones, under the same lock, so
    /// that ``close()`` never misses it), and takes it off that list once it has ended.
    private func retire(_ monitor: ExternalChangeMonitor?) {
        guard let monitor else { return }
        monitor.stop()
        let key = ObjectIdentifier(monitor)
        Task.detached { [weak self] in
            await monitor.stopped()
            _ = self?.state.withLock { $0.stopping.removeValue(forKey: key) }
        }
    }

    /// Another connection committed: tells every observation and stream, through the commit feed.
    ///
    /// Called on the writer's thread, between two of the stack's transactions, right after the check
    /// that noticed the commit: the change set lands in the feed in order with the stack's own.
    func externalChangeDetected(_ changes: ChangeSet = .unknownExternal) {
        logger.trace("external change detected")
        feed.publish(changes, local: false)
    }

    /// A store was added to the stack: a monitor that runs starts again, so that its file watch
    /// covers the new store's files too (the writer's `data_version` check covers it already; the new
    /// monitor's first check finds what was committed meanwhile).
    func storesChanged() {
        let replaced: ExternalChangeMonitor? = state.withLock { state in
            guard let running = state.monitor, !state.isClosed else { return nil }
            state.monitor = nil
            state.stopping[ObjectIdentifier(running)] = running
            startMonitorIfNeeded(&state)
            return running
        }
        retire(replaced)
    }

    private func startMonitorIfNeeded(_ state: inout State) {
        // Without a poll interval, noticing other connections' commits is off (see the configuration).
        guard state.monitor == nil, state.needsMonitor, pollInterval != nil else { return }
        state.monitor = ExternalChangeMonitor(
            writer: writer, watchedPaths: watchedPaths(), pollInterval: pollInterval, logger: logger,
            localCommits: { [feed] in feed.localCommitCount },
            report: { [weak self] changes in self?.externalChangeDetected(changes) })
    }

    private func takeMonitorIfUnneeded(_ state: inout State) -> ExternalChangeMonitor? {
        guard !state.needsMonitor, let monitor = state.monitor else { return nil }
        state.monitor = nil
        state.stopping[ObjectIdentifier(monitor)] = monitor
        return monitor
    }

    /// The external-change monitor, while one runs (for tests).
    var monitor: ExternalChangeMonitor? { state.withLock { $0.monitor } }

    /// The number of registered observers.
    var observerCount: Int { state.withLock { $0.observers.count } }

    /// The registered observers and the live change streams.
    var activeCount: Int { state.withLock { $0.observers.count + $0.streamCount } }

    private func dispatch(_ changes: ChangeSet) {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers where observer.isRelevant(changes) {
            observer.notify(changes)
        }
    }
}
