import Logging

/// Notices commits made outside a stack (another process, or another `DataStack` on the same file):
/// a watch on the store's files (``StoreWatcher``) says when to look, and the writer connection's
/// `PRAGMA data_version` (``Writer/externalChangeCheck()``) says whether another connection committed.
///
/// One task does the checks, one at a time, on the writer's thread; it sleeps between them (holding no
/// thread), never spins.
/// - A watch event starts a check at once, then re-checks after 1, 4, 16, 64 and 256 ms: SQLite
///   writes a commit's WAL frames (which the watch sees) before it updates the shared-memory index
///   that makes the commit visible (which it does not see), with an `fsync` in between under
///   `synchronous = FULL`; so the first check may come too early. A later event starts the series
///   again, and an event during a check causes another check.
/// - The stack's own commits write the same files. An event that follows one of them (the commit
///   feed counts them, `localCommits`) is most likely theirs: the monitor then checks every
///   ``ownCommitDelay`` for as long as the stack keeps committing, whatever the events (the watcher
///   reads them that much less often too), and re-checks twice after. A burst of the stack's commits
///   so costs the writer a `PRAGMA data_version` every few milliseconds, not one per commit, while a
///   commit of another process among them is still noticed within milliseconds.
/// - A poll runs besides, as a fallback for anything the watch might miss: every `pollInterval`
///   without a watch (in-memory stores, platforms without one, or when it cannot be set up), every
///   ``watchedPollFactor`` × `pollInterval` with one.
///
/// - While an unsafe transaction is open between its blocks, a check reads nothing (a store's version
///   read inside the transaction would start that store's snapshot) and comes again after 4 ms, then
///   four times later each time, up to 256 ms, until the transaction has ended.
///
/// `report` runs on the writer's thread, right after the check that saw the change: between two of
/// the stack's transactions, so whatever it hands to the commit feed lands in order with them.
final class ExternalChangeMonitor: Sendable {
    /// The re-checks after a watch event, each after the previous check.
    static let recheckDelays: [Duration] = [.milliseconds(1), .milliseconds(4), .milliseconds(16), .milliseconds(64), .milliseconds(256)]
    /// While the stack commits, the time between checks (and between the watcher's reads), and the
    /// re-checks after it stops.
    static let ownCommitDelay: Duration = .milliseconds(4)
    static let ownCommitRechecks: [Duration] = [.milliseconds(16), .milliseconds(64)]
    /// The longest a check put off by an open unsafe transaction waits before it tries again.
    static let maximumDeferral: Duration = .milliseconds(256)
    /// The poll's interval with a working watch, as a multiple of `pollInterval`.
    static let watchedPollFactor = 8
    /// The watcher's pause after a batch of events while the stack is not committing.
    static let eventPause: Duration = .milliseconds(1)

    private struct State {
        var task: Task<Void, Never>?
        var watcher: StoreWatcher?
        var isStopped = false
        /// Whether the first series of checks (at the start) has ended; who waits for it.
        var isSettled = false
        var settledWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())
    private let checks = Locked(0)

    /// Starts monitoring. `watchedPaths` are the databases to watch (none: poll only); `pollInterval` the
    /// poll's (`nil`: none). With neither there is nothing to do, and it returns `nil`.
    /// `localCommits` counts the stack's own commits so far.
    init?(
        writer: Writer, watchedPaths: [String], pollInterval: Duration?, logger: Logger,
        localCommits: @escaping @Sendable () -> Int, report: @escaping @Sendable (ChangeSet) -> Void
    ) {
        guard !watchedPaths.isEmpty || pollInterval != nil else { return nil }
        let signal = WakeSignal()
        let checks = self.checks
        let isWriting = Locked(false)
        // The task prefers the writer's executor: woken by an event, it runs on the writer's thread and
        // checks there at once, without a round trip through Swift's pool. Detached: the checks are the
        // stack's, not the opening task's (its priority and task-local values).
        let task = Task.detached(executorPreference: writer.executor) { [state] in
            // The watch is set up here rather than in `init`, which may run under a lock: it starts a
            // thread. A `stop()` meanwhile cancels this task, and the watcher is stopped below.
            var watcher: StoreWatcher?
            if !watchedPaths.isEmpty {
                watcher = StoreWatcher.start(paths: watchedPaths, logger: logger) {
                    signal.signal()
                    return isWriting.withLock { $0 } ? Self.ownCommitDelay : Self.eventPause
                }
                let kept = state.withLock { state in
                    guard !state.isStopped else { return false }
                    state.watcher = watcher
                    return true
                }
                if !kept {
                    watcher?.stop()
                    await watcher?.stopped()
                    return
                }
            }
            let fallback = watcher == nil ? pollInterval : pollInterval.map { $0 * Self.watchedPollFactor }
            // The first check reports commits made while nobody watched (since the previous check);
            // the re-checks that follow it cover a commit under way while the watch was set up.
            signal.signal()
            await Self.run(
                writer: writer, signal: signal, fallback: fallback, logger: logger, checks: checks,
                localCommits: localCommits, isWriting: isWriting, report: report
            ) {
                let waiters = state.withLock { state in
                    state.isSettled = true
                    defer { state.settledWaiters = [] }
                    return state.settledWaiters
                }
                for waiter in waiters { waiter.resume() }
            }
        }
        state.withLock { $0.task = task }
    }

    deinit {
        stop()
    }

    /// Stops the checks and the watch (idempotent, returns at once).
    func stop() {
        let (task, watcher, waiters) = state.withLock { state in
            state.isStopped = true
            state.isSettled = true
            defer { state.settledWaiters = [] }
            return (state.task, state.watcher, state.settledWaiters)
        }
        task?.cancel()
        watcher?.stop()
        for waiter in waiters { waiter.resume() }
    }

    /// Stops, and waits until the checks have ended and the watch's thread has.
    func stopped() async {
        stop()
        await state.withLock { $0.task }?.value
        await watcher?.stopped()
    }

    /// Waits until the checks of the start are over: from then on, with a long poll, only the watch
    /// leads to a check (for tests). Returns at once if the monitor is stopped meanwhile.
    func settled() async {
        await withCheckedContinuation { continuation in
            let settled = state.withLock { state in
                if !state.isSettled { state.settledWaiters.append(continuation) }
                return state.isSettled
            }
            if settled { continuation.resume() }
        }
    }

    /// The watch, once it is set up (for tests).
    var watcher: StoreWatcher? { state.withLock { $0.watcher } }

    /// The checks made so far (for tests).
    var checkCount: Int { checks.withLock { $0 } }

    /// The checks: after each signal and on its re-check series, and on the fallback poll.
    private static func run(
        writer: Writer, signal: WakeSignal, fallback: Duration?, logger: Logger, checks: Locked<Int>,
        localCommits: @Sendable () -> Int, isWriting: Locked<Bool>, report: @escaping @Sendable (ChangeSet) -> Void,
        seriesEnded: @Sendable () -> Void
    ) async {
        defer { seriesEnded() }
        /// A check put off by an open unsafe transaction comes again after this, four times longer each
        /// time it is put off again, up to `maximumDeferral`.
        var deferral = ownCommitDelay
        var delays = ArraySlice<Duration>()
        /// One check; `false` when the stack is closed.
        func check() async -> Bool {
            checks.withLock { $0 += 1 }
            do {
                if try await Self.check(writer, report: report) {
                    deferral = ownCommitDelay
                } else {
                    // Before the rest of the series, if any.
                    delays = [deferral] + delays
                    deferral = min(deferral * 4, maximumDeferral)
                }
            } catch {
                if error.code == .stackClosed { return false }
                logger.warning(
                    "checking for other processes' commits failed", metadata: ["strata.error": "\(error.message)"])
            }
            return true
        }
        // Counted before each check: a commit of the stack during the check explains a later event.
        var localBefore = localCommits()
        while !Task.isCancelled {
            let event = await signal.wait(timeout: delays.first ?? fallback)
            if Task.isCancelled { return }
            if event, localCommits() != localBefore {
                // The stack is committing: check every `ownCommitDelay` while it goes on, whatever the
                // events, then re-check twice.
                isWriting.withLock { $0 = true }
                defer { isWriting.withLock { $0 = false } }
                repeat {
                    localBefore = localCommits()
                    guard (try? await Task.sleep(for: ownCommitDelay)) != nil else { return }
                    _ = signal.take()
                    guard await check() else { return }
                } while localCommits() != localBefore
                delays = ownCommitRechecks[...]
                continue
            }
            delays = event ? recheckDelays[...] : delays.dropFirst()
            localBefore = localCommits()
            guard await check() else { return }
            if delays.isEmpty { seriesEnded() }
        }
    }

    /// Checks on the writer's thread and reports there, in order with the stack's own commits.
    /// With a persistent history, the change set reported is what the other connections' commits
    /// recorded; otherwise an external one (anything may have changed). Returns `false`, having read
    /// nothing, while an unsafe transaction is open between its blocks: a read of a store it has not
    /// written to yet would start that store's snapshot, and a later write to it would then fail with
    /// `SQLITE_BUSY_SNAPSHOT` if another connection committed there meanwhile.
    private static func check(_ writer: isolated Writer, report: @Sendable (ChangeSet) -> Void) throws(StrataError) -> Bool {
        guard !writer.connection.isInTransaction else { return false }
        let changes: ChangeSet?
        do {
            changes = try writer.externalChanges()
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.sqlite, "checking for other processes' commits failed: \(error)")
        }
        if let changes { report(changes) }
        return true
    }
}
