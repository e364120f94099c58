import Logging
import Synchronization

/// The read generations held on a stack, and the check that warns when one is held while the
/// write-ahead log grows.
///
/// A read transaction that stays open keeps SQLite from recycling the write-ahead log past the state it
/// reads, so the log grows with every commit until the transaction ends. The log only grows when the
/// writer commits, so the writer calls ``noteCommit()`` after each commit: while no generation is
/// held that is one atomic load; while one is, it reads the log file's size (one `stat`, on the
/// writer's thread) at the first commit after a generation was pinned and then at most once per
/// ``checkInterval``. A generation held but never used is noticed as well as a busy one, and nothing
/// polls. Commits made by other processes (or other stacks on the same file) are not seen.
///
/// The size is the log file's: SQLite does not shrink the file while the store is open (Strata sets no
/// `journal_size_limit`, and its one truncating checkpoint runs as the writer closes, when no generation
/// of the stack is left), so a generation is reported once the file
/// grows past both the warning size and the size it had when the generation was pinned, which means
/// the log's content did grow that far while it was held. A log file left larger by an earlier burst
/// of writes is not taken for growth (nor is growth within it).
final class GenerationRegistry: Sendable {
    private struct Held {
        var pinnedAt: ContinuousClock.Instant
        /// The log file's size when the generation's state was pinned.
        var walBaseline: Int
        var warned = false
        let reader: ReaderConnection
    }

    private struct State {
        var held: [UInt64: Held] = [:]
        /// The give-back tasks of generations released and not yet back in their pool, which
        /// ``close()`` hands over to be awaited.
        var ending: [UInt64: Task<Void, Never>] = [:]
        var lastCheck: ContinuousClock.Instant?
        var checkInterval: Duration
        var isClosed = false
    }

    private let state: Locked<State>
    /// The number of generations held, read by the writer without taking the lock.
    private let heldAtomic = Atomic<Int>(0)
    private let nextToken = Atomic<UInt64>(1)
    private let files: StoreFiles
    private let logger: Logger
    /// The log size past which a held generation is reported; `nil` reports none.
    let warningSize: Int?

    init(files: StoreFiles, logger: Logger, warningSize: Int?) {
        self.files = files
        self.logger = logger
        self.warningSize = warningSize
        self.state = Locked(State(checkInterval: .milliseconds(100)))
    }

    /// The least time between two checks of the log file's size, but for the first commit after a
    /// generation was pinned (always checked): 100 ms, so that a stream of small commits pays for a
    /// `stat` (a microsecond or two) at most ten times a second. Tests set it to zero.
    var checkInterval: Duration {
        get { state.withLock { $0.checkInterval } }
        set { state.withLock { $0.checkInterval = newValue } }
    }

    /// A token no other generation of the stack has had.
    func makeToken() -> UInt64 {
        nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Records a generation pinned on `reader` when the log file had `walSize` bytes. Returns `false`
    /// when the stack is closing: the caller then gives the connection back and throws.
    func register(_ token: UInt64, reader: ReaderConnection, walSize: Int) -> Bool {
        state.withLock { state in
            if state.isClosed { return false }
            state.held[token] = Held(pinnedAt: ContinuousClock.now, walBaseline: walSize, reader: reader)
            state.lastCheck = nil
            heldAtomic.store(state.held.count, ordering: .relaxed)
            return true
        }
    }

    /// Records that a generation now reads the latest state (``ReadGeneration/moveToLatest()``): its age
    /// starts anew, and it may be reported again.
    func repinned(_ token: UInt64, walSize: Int) {
        state.withLock { state in
            guard var held = state.held[token] else { return }
            held.pinnedAt = ContinuousClock.now
            held.walBaseline = walSize
            held.warned = false
            state.held[token] = held
            state.lastCheck = nil
        }
    }

    /// Forgets a generation that was released, and starts `giveBack` (which returns its connection) in a
    /// task that ``close()`` awaits until it has run. Returns the task.
    func unregister(_ token: UInt64, giveBack: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        state.withLock { state in
            state.held[token] = nil
            heldAtomic.store(state.held.count, ordering: .relaxed)
            // Made under the lock, so that the task's own removal, which takes it, comes after.
            let task = Task {
                await giveBack()
                self.state.withLock { _ = $0.ending.removeValue(forKey: token) }
            }
            if !state.isClosed { state.ending[token] = task }
            return task
        }
    }

    /// Called by the writer after each commit: warns about each generation held while the log file grew
    /// past the warning size, once per pinned state.
    func noteCommit() {
        guard let warningSize, heldAtomic.load(ordering: .relaxed) > 0 else { return }
        let now = ContinuousClock.now
        let isDue = state.withLock { state in
            if let last = state.lastCheck, last.duration(to: now) < state.checkInterval { return false }
            guard state.held.values.contains(where: { !$0.warned }) else { return false }
            state.lastCheck = now
            return true
        }
        guard isDue else { return }
        let size = files.walFileSize
        let reports = state.withLock { state in
            var reports: [(token: UInt64, held: Duration)] = []
            for token in state.held.keys {
                guard let held = state.held[token], !held.warned, size > max(warningSize, held.walBaseline) else { continue }
                state.held[token]?.warned = true
                reports.append((token, held.pinnedAt.duration(to: now)))
            }
            return reports
        }
        for report in reports {
            logger.warning(
                "a read generation is held while the write-ahead log grows past its warning size; release it or move it to the latest state",
                metadata: [
                    "strata.generation": "\(report.token)", "strata.held": "\(report.held)",
                    "strata.walSize": "\(size)", "strata.walWarningSize": "\(warningSize)",
                    "strata.path": "\(files.path)",
                ])
        }
    }

    /// Closes the registry when the stack closes: later generations are refused, the ones held are
    /// returned for the caller to end, and the give-back tasks of those released but not yet back, for
    /// the caller to await.
    func close() -> (held: [(token: UInt64, reader: ReaderConnection)], ending: [Task<Void, Never>]) {
        state.withLock { state in
            state.isClosed = true
            defer {
                state.held.removeAll()
                state.ending.removeAll()
                heldAtomic.store(0, ordering: .relaxed)
            }
            return (state.held.map { ($0.key, $0.value.reader) }, Array(state.ending.values))
        }
    }

    /// Whether the stack closed, which ended every generation.
    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// The number of generations held.
    var heldCount: Int { state.withLock { $0.held.count } }
}
