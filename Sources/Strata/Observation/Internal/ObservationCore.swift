import Synchronization

/// One shared observation: the storage around an ``ObservationStateMachine``, which it drives under a
/// lock and whose actions it performs outside of it. Every consumer of a publisher shares its core, so a
/// relevant commit costs one fetch however many consumers there are.
final class ObservationCore<Value: Sendable>: Sendable {
    /// Computes the next value on a reader's connection, from the previous value and the changes since,
    /// over the stack's stores as they were when the fetch began (see ``ObservationCore/stores``).
    typealias Fetch = @Sendable (
        _ previous: Value?, _ changes: [ChangeSet]?, _ connection: Connection, _ store: StoreContext
    ) throws -> Value

    private let center: ObservationCenter
    private let readers: ReaderPool
    /// The stack's stores now, read before each fetch's lease begins: a publisher sees stores added after
    /// it was made, and the reader's connection, which attaches the added stores as its lease begins
    /// (they are listed before the stack names them), has every store the fetch names. (Read inside the
    /// lease, a store added meanwhile could be named before the connection attached it: "no such table".)
    private let stores: @Sendable () -> StoreContext
    private let isRelevant: @Sendable (ChangeSet) -> Bool
    private let fetch: Fetch
    private let isDuplicate: @Sendable (Value, Value) -> Bool
    private struct State {
        var machine = ObservationStateMachine<Value>()
        var registration: UInt64?
    }

    private let state = Locked(State())

    init(
        center: ObservationCenter, readers: ReaderPool, stores: @escaping @Sendable () -> StoreContext,
        isRelevant: @escaping @Sendable (ChangeSet) -> Bool,
        isDuplicate: @escaping @Sendable (Value, Value) -> Bool, fetch: @escaping Fetch
    ) {
        self.center = center
        self.readers = readers
        self.stores = stores
        self.isRelevant = isRelevant
        self.isDuplicate = isDuplicate
        self.fetch = fetch
    }

    /// How many fetches ran, for tests.
    var fetchCount: Int { state.withLock { $0.machine.fetchCount } }
    /// How many consumers are attached.
    var consumerCount: Int { state.withLock { $0.machine.consumerCount } }
    /// Whether the observation is registered and working.
    var isActive: Bool { state.withLock { $0.machine.isActive } }

    func addConsumer() -> UInt64 {
        var id: UInt64 = 0
        update { machine in
            let (consumer, actions) = machine.addConsumer()
            id = consumer
            return actions
        }
        return id
    }

    func removeConsumer(_ id: UInt64) {
        update { $0.removeConsumer(id) }
    }

    /// The next value for a consumer: at once when it has not seen the newest one, otherwise when the
    /// next fetch completes; `nil` when the consumer was removed or its task cancelled.
    func next(_ id: UInt64) async throws -> Value? {
        let value = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                update { $0.next(id, continuation) }
            }
        } onCancel: {
            removeConsumer(id)
        }
        // The value was made on a reader's thread, stored under the lock, then resumed outside it:
        // passing through the lock shows ThreadSanitizer that order on every path (`Locked.synchronize`).
        state.synchronize()
        return value
    }

    /// Runs an event through the state machine. Registration with the center happens under the lock, so
    /// activation and deactivation can never cross; fetches and resumptions run outside it. (The center
    /// never calls back into a core while it holds its own lock, so the lock order is safe.)
    private func update(_ event: (inout ObservationStateMachine<Value>) -> ObservationStateMachine<Value>.Actions) {
        let actions = state.withLock { state in
            var actions = event(&state.machine)
            if actions.activate {
                state.registration = center.register(ObservationCenter.Observer(
                    isRelevant: isRelevant,
                    notify: { [weak self] changes in self?.changeArrived(changes) },
                    close: { [weak self] in self?.update { $0.close() } }))
                // The stack is closing: it ended the observations it had and will end no other, and no
                // commit will come. The observation fails at once, as it would once the stack closed.
                if state.registration == nil, let fetch = actions.fetch {
                    let failed = state.machine.fetchCompleted(
                        epoch: fetch.epoch, .failure(Connection.closedError), isDuplicate: { _, _ in false })
                    actions.fetch = nil
                    actions.resume += failed.resume
                }
            }
            if actions.deactivate, let registration = state.registration {
                state.registration = nil
                center.unregister(registration)
            }
            return actions
        }
        if let (epoch, previous, changes) = actions.fetch {
            startFetch(epoch: epoch, previous: previous, changes: changes)
        }
        for (continuation, result) in actions.resume {
            continuation.resume(with: result)
        }
    }

    /// Runs a fetch in a task of its own, once a fetch permit is free: one read lease, so the fetch sees
    /// one committed state however many statements it runs.
    ///
    /// When a permit and an idle reader are free at once, the task prefers the reader's executor: it
    /// starts on the reader's thread, reads there and hands the value to the consumers from there,
    /// without a round trip through Swift's pool (two thread wake-ups fewer per fetch).
    private func startFetch(epoch: Int, previous: Value?, changes: [ChangeSet]?) {
        let fetch = self.fetch
        let center = self.center
        let readers = self.readers
        guard center.tryFetchPermit() else {
            return startWaitingFetch(epoch: epoch, previous: previous, changes: changes)
        }
        guard let reader = readers.tryAcquire() else {
            center.releaseFetchPermit()
            return startWaitingFetch(epoch: epoch, previous: previous, changes: changes)
        }
        center.noteFetch()
        let store = stores()
        // Detached, as every fetch of the observation: it serves every consumer, so it carries none of
        // the priority or task-local values of the task that started it (a consumer, or the dispatcher).
        Task.detached(executorPreference: reader.executor) { [weak self] in
            let result: Result<(Value, Int?), any Error>
            do {
                result = .success(try await reader.lease(returningTo: readers) { connection in
                    try Self.run(fetch, previous, changes, connection, store)
                })
            } catch {
                result = .failure(error)
            }
            center.releaseFetchPermit()
            self?.fetchCompleted(epoch: epoch, result)
        }
    }

    /// Starts a fetch task on Swift's pool that waits for a permit and a reader.
    private func startWaitingFetch(epoch: Int, previous: Value?, changes: [ChangeSet]?) {
        let fetch = self.fetch
        let center = self.center
        let readers = self.readers
        let stores = self.stores
        Task.detached { [weak self] in
            let result: Result<(Value, Int?), any Error>
            // The observation may stop while the fetch waits (its last consumer gone): then neither the
            // permit nor a reader is spent on a fetch nobody will see.
            let isWanted: @Sendable () -> Bool = { [weak self] in self?.wants(epoch) ?? false }
            do {
                result = .success(try await center.withFetchPermit(isWanted: isWanted) {
                    // A lease, not `read`: an observation fetch is no read of a caller's, so it has no span.
                    let store = stores()
                    return try await readers.acquire().lease(returningTo: readers) { connection in
                        guard isWanted() else { throw CancellationError() }
                        return try Self.run(fetch, previous, changes, connection, store)
                    }
                })
            } catch {
                result = .failure(error)
            }
            self?.fetchCompleted(epoch: epoch, result)
        }
    }

    /// Runs `fetch` in a read lease, with the number of commits the read sees (taken before its first
    /// statement, under the commit gate).
    private static func run(
        _ fetch: Fetch, _ previous: Value?, _ changes: [ChangeSet]?, _ connection: Connection, _ store: StoreContext
    ) throws -> (Value, Int?) {
        let seen = try connection.commitsSeen()
        return (try fetch(previous, changes, connection, store), seen)
    }

    /// Whether the fetch of `epoch` is still the one the observation waits for.
    private func wants(_ epoch: Int) -> Bool {
        state.withLock { $0.machine.wants(epoch: epoch) }
    }

    private func fetchCompleted(epoch: Int, _ result: Result<(Value, Int?), any Error>) {
        let isDuplicate = self.isDuplicate
        let seen = try? result.get().1
        update { $0.fetchCompleted(epoch: epoch, result.map(\.0), seenCommits: seen, isDuplicate: isDuplicate) }
    }

    private func changeArrived(_ changes: ChangeSet) {
        update { $0.changeArrived(changes) }
    }
}

/// One consumer of an observation: an iterator's handle, removed when the iterator is released.
final class ObservationConsumer<Value: Sendable>: Sendable {
    let core: ObservationCore<Value>
    let id: UInt64

    init(core: ObservationCore<Value>) {
        self.core = core
        self.id = core.addConsumer()
    }

    func next() async throws -> Value? {
        try await core.next(id)
    }

    /// Ends this consumer now (its iteration is over), not only when the iterator is released: the
    /// observation stops counting as active at once.
    func finish() {
        core.removeConsumer(id)
    }

    deinit {
        core.removeConsumer(id)
    }
}
