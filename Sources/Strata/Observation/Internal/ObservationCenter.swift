import Synchronization

/// Fans the commit feed out to the active observations of one stack, and watches for commits made
/// outside it.
///
/// It subscribes to the feed only while some observation is active, and dispatches on a task of its
/// own, so the writer only yields each change set into one buffer and returns. While observations are
/// active it also polls the writer connection's `PRAGMA data_version`, which changes exactly when
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
        var dispatcher: Task<Void, Never>?
        var poller: Task<Void, Never>?
    }

    private struct Permits {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let feed: CommitFeed
    private let writer: Writer
    private let pollInterval: Duration?
    private let state = Mutex(State())
    private let permits: Mutex<Permits>

    init(feed: CommitFeed, writer: Writer, pollInterval: Duration?, maximumConcurrentFetches: Int) {
        self.feed = feed
        self.writer = writer
        self.pollInterval = pollInterval
        self.permits = Mutex(Permits(available: max(1, maximumConcurrentFetches)))
    }

    /// Runs an observation fetch once fewer than the maximum run: however many publishers are active,
    /// their fetches leave the writer (and the rest of the app) its share of the machine. Changes that
    /// arrive while a publisher waits are coalesced into its next fetch.
    func withFetchPermit<T>(_ body: () async throws -> T) async rethrows -> T {
        let granted = permits.withLock { permits in
            guard permits.available > 0 else { return false }
            permits.available -= 1
            return true
        }
        if !granted {
            await withCheckedContinuation { continuation in
                let now = permits.withLock { permits in
                    if permits.available > 0 {
                        permits.available -= 1
                        return true
                    }
                    permits.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
        defer {
            let next = permits.withLock { permits in
                if permits.waiters.isEmpty {
                    permits.available += 1
                    return nil as CheckedContinuation<Void, Never>?
                }
                return permits.waiters.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }

    /// Adds an observer; the first one starts the dispatcher (and the external-change poller).
    func register(_ observer: Observer) -> UInt64 {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.observers[id] = observer
            if state.dispatcher == nil {
                // Subscribe now, so that no commit between registration and the task's start is missed.
                let stream = feed.subscribe()
                state.dispatcher = Task { [weak self] in
                    for await changes in stream {
                        guard let self else { return }
                        self.dispatch(changes)
                    }
                }
                if let pollInterval {
                    let writer = self.writer
                    state.poller = Task { [weak self] in
                        _ = try? await writer.externalChangeCheck()
                        while !Task.isCancelled {
                            do {
                                try await Task.sleep(for: pollInterval)
                                if try await writer.externalChangeCheck() {
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

    /// Removes an observer; the last one stops the dispatcher and the poller.
    func unregister(_ id: UInt64) {
        let tasks: [Task<Void, Never>] = state.withLock { state in
            state.observers[id] = nil
            guard state.observers.isEmpty else { return [] }
            defer {
                state.dispatcher = nil
                state.poller = nil
            }
            return [state.dispatcher, state.poller].compactMap { $0 }
        }
        for task in tasks { task.cancel() }
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
