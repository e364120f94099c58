import Logging
import Synchronization

/// Fans the commit feed out to the active observations of one stack, and watches for commits made
/// outside it.
///
/// It listens to the feed only while some observation is active. Each commit reaches it on the feed's
/// dispatcher task, never on the writer's thread: the relevance checks are quick, and a relevant
/// observation only starts its fetch task there. While observations are active it also polls the writer connection's `PRAGMA data_version`, which changes exactly when
/// another connection (another process, or another stack on the same file) commits; such a commit
/// reaches every observation as an external change set.
final class ObservationCenter: Sendable {
    struct Observer: Sendable {
        let isRelevant: @Sendable (ChangeSet) -> Bool
        let notify: @Sendable (ChangeSet) -> Void
    }

    private struct State {
        var observers: [UInt64: Observer] = [:]
        var nextID: UInt64 = 0
        var listener: UInt64?
        var poller: Task<Void, Never>?
    }

    private let feed: CommitFeed
    private let writer: Writer
    private let pollInterval: Duration?
    private let state = Locked(State())
    private let permits: LeasePool<Void>

    private let logger: Logger

    init(
        feed: CommitFeed, writer: Writer, pollInterval: Duration?, maximumConcurrentFetches: Int,
        logger: Logger = Logger(label: "strata")
    ) {
        self.logger = logger
        self.feed = feed
        self.writer = writer
        self.pollInterval = pollInterval
        self.permits = LeasePool(idle: Array(repeating: (), count: max(1, maximumConcurrentFetches)))
    }

    /// Runs an observation fetch once fewer than the maximum run: however many publishers are active,
    /// their fetches leave the writer (and the rest of the app) its share of the machine. Changes that
    /// arrive while a publisher waits are coalesced into its next fetch.
    func withFetchPermit<T>(_ body: () async throws -> T) async throws -> T {
        _ = try await permits.acquire()
        defer { permits.release(()) }
        return try await body()
    }

    /// Takes a fetch permit without waiting; give it back with ``releaseFetchPermit()``.
    func tryFetchPermit() -> Bool {
        (try? permits.tryAcquire()) != nil
    }

    func releaseFetchPermit() {
        permits.release(())
    }

    /// Adds an observer; the first one starts listening to the feed (and the external-change poller).
    func register(_ observer: Observer) -> UInt64 {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.observers[id] = observer
            if state.listener == nil {
                state.listener = feed.addListener { [weak self] changes in self?.dispatch(changes) }
                if let pollInterval {
                    let writer = self.writer
                    let logger = self.logger
                    state.poller = Task { [weak self] in
                        _ = try? await writer.externalChangeCheck()
                        while !Task.isCancelled {
                            do {
                                try await Task.sleep(for: pollInterval)
                                if try await writer.externalChangeCheck() {
                                    logger.trace("external change detected")
                                    self?.dispatch(.external)
                                }
                            } catch {
                                return
                            }
                        }
                    }
                }
            }
            return id
        }
    }

    /// Removes an observer; the last one stops listening to the feed and stops the poller.
    func unregister(_ id: UInt64) {
        let (listener, poller): (UInt64?, Task<Void, Never>?) = state.withLock { state in
            state.observers[id] = nil
            guard state.observers.isEmpty else { return (nil, nil) }
            defer {
                state.listener = nil
                state.poller = nil
            }
            return (state.listener, state.poller)
        }
        if let listener { feed.removeListener(listener) }
        poller?.cancel()
    }

    /// The number of registered observers.
    var observerCount: Int { state.withLock { $0.observers.count } }

    private func dispatch(_ changes: ChangeSet) {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers where observer.isRelevant(changes) {
            observer.notify(changes)
        }
    }
}
