import Synchronization

/// A bounded set of resources (connections, the writer's turn, fetch permits) lent to one task at a time.
///
/// A task takes a resource with ``acquire()`` and gives it back with ``release(_:)``. Resources may be
/// made on demand: while fewer than the capacity exist, ``acquire()`` answers ``Grant/create`` and the
/// caller makes one (and calls ``creationFailed()`` if that fails). When none is free, the task waits,
/// suspended and first come first served; cancelling it ends the wait at once with `CancellationError`.
final class LeasePool<Resource: Sendable>: Sendable {
    enum Grant: Sendable {
        /// A resource to use and give back.
        case resource(Resource)
        /// Permission to make a new resource, which counts against the capacity from now on.
        case create
    }

    private struct State {
        var idle: [Resource]
        /// How many more resources may be made.
        var creatable: Int
        var waiters = WaiterQueue<Grant>()
        var nextWaiter: UInt64 = 0
        var closedError: StrataError?
        /// Tasks waiting until this many tasks wait (see ``waitForWaiters(_:)``).
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Takes out the watchers whose count of waiters is reached, to be resumed outside the lock.
        mutating func reachedWatchers() -> [CheckedContinuation<Void, Never>] {
            guard !watchers.isEmpty else { return [] }
            let count = waiters.count
            let reached = watchers.filter { $0.count <= count }.map(\.continuation)
            watchers.removeAll { $0.count <= count }
            return reached
        }
    }

    private let state: Locked<State>

    /// A pool that holds `idle` now and may make `creatable` more.
    init(idle: [Resource] = [], creatable: Int = 0) {
        state = Locked(State(idle: idle, creatable: creatable))
    }

    /// Takes a resource, or the permission to make one, without waiting; `nil` when none is free.
    func tryAcquire() throws(StrataError) -> Grant? {
        try state.withLock { state throws(StrataError) in try Self.grant(&state) }
    }

    private static func grant(_ state: inout State) throws(StrataError) -> Grant? {
        if let error = state.closedError { throw error }
        if let resource = state.idle.popLast() { return .resource(resource) }
        if state.creatable > 0 {
            state.creatable -= 1
            return .create
        }
        return nil
    }

    /// Takes a resource, or the permission to make one, waiting for one to come free.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before it gets one (it then holds
    ///   nothing), or the error the pool was closed with.
    func acquire() async throws -> Grant {
        if let grant = try tryAcquire() { return grant }
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        let grant = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                var reached: [CheckedContinuation<Void, Never>] = []
                let outcome: Result<Grant, any Error>? = state.withLock { state in
                    do {
                        if let grant = try Self.grant(&state) { return .success(grant) }
                    } catch {
                        return .failure(error)
                    }
                    // Checked under the lock: a cancellation handler that ran before found nothing to remove.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append(id, continuation)
                    reached = state.reachedWatchers()
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
                for watcher in reached { watcher.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.remove(id) }?.resume(throwing: CancellationError())
        }
        // The resource was given back by another thread, which let go of the lock before it resumed
        // this task: passing through the lock shows ThreadSanitizer that order on every path
        // (`Locked.synchronize`).
        state.synchronize()
        return grant
    }

    /// Gives a resource back, to the longest-waiting task if there is one. Returns `false` when the
    /// pool is closed: the caller then disposes of the resource.
    @discardableResult
    func release(_ resource: Resource) -> Bool {
        let next: Release = state.withLock { state in
            if state.closedError != nil { return .closed }
            if let waiter = state.waiters.popFirst() { return .wake(waiter) }
            state.idle.append(resource)
            return .kept
        }
        switch next {
        case .wake(let waiter):
            waiter.resume(returning: .resource(resource))
            return true
        case .kept: return true
        case .closed: return false
        }
    }

    private enum Release {
        case wake(WaiterQueue<Grant>.Continuation), kept, closed
    }

    /// Frees the place of a resource that could not be made, or that was discarded: a waiting task
    /// gets the permission to make one.
    func creationFailed() {
        let waiter = state.withLock { state -> WaiterQueue<Grant>.Continuation? in
            if let waiter = state.waiters.popFirst() { return waiter }
            state.creatable += 1
            return nil
        }
        waiter?.resume(returning: Grant.create)
    }

    /// Closes the pool: waiting tasks and later calls throw `error`. Returns the idle resources, for the
    /// caller to dispose of; resources in use are refused by ``release(_:)`` when they come back.
    func close(_ error: StrataError) -> [Resource] {
        let (idle, waiters, watchers) = state.withLock { state in
            state.closedError = error
            defer {
                state.idle.removeAll()
                state.watchers.removeAll()
            }
            return (state.idle, state.waiters.removeAll(), state.watchers.map(\.continuation))
        }
        for waiter in waiters { waiter.resume(throwing: error) }
        // No task will wait any more.
        for watcher in watchers { watcher.resume() }
        return idle
    }

    /// The number of tasks waiting.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// The error the pool was closed with; `nil` while it is open.
    var closedError: StrataError? { state.withLock { $0.closedError } }

    /// Returns once at least `count` tasks wait for a resource (at once if they already do): a test
    /// waits here for a task it started to queue, instead of polling ``waiterCount``.
    func waitForWaiters(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state in
                if state.waiters.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }
}
