import DequeModule
import Dispatch
import Foundation
import Synchronization

/// A serial executor on a thread of its own: the writer's and each reader connection's.
///
/// SQLite's calls block, so they never run on Swift's cooperative pool: an actor on a
/// `ThreadExecutor` runs its isolated methods here, and a task that calls one hops to this thread for
/// the synchronous part and back to its own executor afterwards, still the same task (task-locals,
/// cancellation and priority come along).
///
/// Between jobs an idle executor parks. When its jobs lately came back within a short time (a task
/// awaiting one call after another), it first spins for about twice that time, at most ``idleSpin``
/// (``IdleGaps``), and only while Strata's busy threads leave a core to the rest of the process
/// (``CoreBudget``). Callers never spin.
/// It is also a task executor: a task started with it as its preference runs its nonisolated code
/// here too, so an observation fetch starts and ends on its reader's thread without crossing Swift's
/// pool. The thread runs until ``stop()``.
final class ThreadExecutor: SerialExecutor, TaskExecutor {
    private struct Queue {
        var jobs = Deque<UnownedJob>()
        var isStopped = false
        /// Whether a thread serves the queue: from `init` until it finds the queue stopped and empty,
        /// and again while a job that came after the stop runs.
        var hasThread = true
        /// Whether `stop()`'s wake-up still counts in `pending` (the thread that exits takes it out).
        var stopCounted = false
        /// Tasks waiting in ``stopped()`` for the thread to end.
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let label: String
    private let queue = Locked(Queue())
    private let pending = Atomic<Int>(0)
    private let parked = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    /// The executor's thread, set by the thread itself before it runs anything.
    private let threadID = Locked<pthread_t?>(nil)
    /// The longest an idle executor spins before it parks.
    private let spin: Duration

    init(label: String, spin: Duration = ThreadExecutor.idleSpin) {
        self.label = label
        self.spin = spin
        startThread()
    }

    /// Starts the thread that serves the queue. It holds the executor until it ends.
    private func startThread() {
        let thread = Thread { self.run() }
        thread.name = label
        thread.start()
    }

    /// The longest an idle executor spins: 200 µs by default (on the benchmarks' 2-core machine a round
    /// trip through a parked thread of Swift's pool takes 30–80 µs; a fixed 25 µs spin measured no
    /// better than none), or the whole number of microseconds in the environment variable
    /// `STRATA_IDLE_SPIN_MICROSECONDS` (0 turns spinning off), for measuring what a spin is worth on
    /// another machine.
    static let idleSpin: Duration = {
        if let text = ProcessInfo.processInfo.environment["STRATA_IDLE_SPIN_MICROSECONDS"], let value = Int(text), value >= 0 {
            return .microseconds(value)
        }
        return .microseconds(200)
    }()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // A job that comes after the thread ended (an actor's deinit, a late call on a closed
        // connection) gets a thread of its own, which ends again once the queue is empty: the jobs
        // still run one at a time, and a stopped executor holds no thread while idle.
        let needsThread = queue.withLock { queue in
            queue.jobs.append(job)
            guard !queue.hasThread else { return false }
            queue.hasThread = true
            return true
        }
        signal()
        if needsThread { startThread() }
    }

    private func signal() {
        pending.add(1, ordering: .sequentiallyConsistent)
        if parked.exchange(false, ordering: .sequentiallyConsistent) {
            wakeUp.signal()
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` and dynamic isolation checks see that the caller runs on this thread.
    func checkIsolated() {
        precondition(isCurrentThread, "not on the thread of executor \(label)")
    }

    /// Whether the caller runs on this executor's thread.
    var isCurrentThread: Bool {
        let current = pthread_self()
        return threadID.withLock { id in id.map { pthread_equal($0, current) != 0 } ?? false }
    }

    /// Ends the thread once the jobs already enqueued have run (idempotent). Jobs enqueued later still
    /// run, on a thread that ends when they are done.
    func stop() {
        let wake = queue.withLock { queue in
            guard !queue.isStopped else { return false }
            queue.isStopped = true
            queue.stopCounted = true
            return true
        }
        if wake { signal() }
    }

    /// Waits until the executor is stopped and its thread has ended.
    func stopped() async {
        await withCheckedContinuation { continuation in
            let ended = queue.withLock { queue in
                guard queue.isStopped, !queue.hasThread else {
                    queue.exitWaiters.append(continuation)
                    return false
                }
                return true
            }
            if ended { continuation.resume() }
        }
    }

    /// Whether a thread serves this executor now (false once it is stopped and idle).
    var hasThread: Bool { queue.withLock { $0.hasThread } }

    private enum Next {
        case job(UnownedJob)
        case idle
        case stopped([CheckedContinuation<Void, Never>])
    }

    private func next() -> Next {
        queue.withLock { queue in
            if let job = queue.jobs.popFirst() { return .job(job) }
            guard queue.isStopped else { return .idle }
            // The thread ends: take out `stop()`'s wake-up, so that a later thread starts from zero.
            if queue.stopCounted {
                queue.stopCounted = false
                pending.subtract(1, ordering: .sequentiallyConsistent)
            }
            queue.hasThread = false
            defer { queue.exitWaiters.removeAll() }
            return .stopped(queue.exitWaiters)
        }
    }

    private func run() {
        Self.nameCurrentThread(label)
        threadID.withLock { $0 = pthread_self() }
        let executor = asUnownedSerialExecutor()
        let taskExecutor = asUnownedTaskExecutor()
        let clock = ContinuousClock()
        // Whether this thread counts in the core budget: while it runs jobs, and while it spins for more.
        var isCounted = false
        var gaps = IdleGaps(limit: spin)
        // When the queue last ran dry, while no job has come since.
        var idleSince: ContinuousClock.Instant?
        while true {
            switch next() {
            case .job(let job):
                if let start = idleSince {
                    gaps.record(start.duration(to: clock.now))
                    idleSince = nil
                }
                if !isCounted {
                    CoreBudget.take()
                    isCounted = true
                }
                pending.subtract(1, ordering: .sequentiallyConsistent)
                // In both roles: isolated to the actor of this executor, and the executor that a task
                // preferring it (an observation fetch) runs its nonisolated code on.
                job.runSynchronously(isolatedTo: executor, taskExecutor: taskExecutor)
                continue
            case .stopped(let waiters):
                if isCounted { CoreBudget.release() }
                for waiter in waiters { waiter.resume() }
                return
            case .idle:
                break
            }
            let now = clock.now
            if idleSince == nil { idleSince = now }
            // Spin only when jobs have lately come back within the spin (a caller awaiting one call after
            // another), and only while Strata's busy threads leave a core to the rest of the process.
            let wait = gaps.expected
            if wait > .zero, isCounted ? CoreBudget.isWithinSpinningCores : CoreBudget.takeForSpinning() {
                isCounted = true
                let deadline = now.advanced(by: wait)
                // Stop as soon as another of Strata's threads starts work (an observation fetch, say)
                // and the budget no longer leaves a core free: that thread needs the core more.
                while pending.load(ordering: .sequentiallyConsistent) == 0, clock.now < deadline,
                    CoreBudget.isWithinSpinningCores {}
                // A job arrived, or `stop()` did: `next()` tells which.
                if pending.load(ordering: .sequentiallyConsistent) > 0 { continue }
            }
            if isCounted {
                CoreBudget.release()
                isCounted = false
            }
            parked.store(true, ordering: .sequentiallyConsistent)
            if pending.load(ordering: .sequentiallyConsistent) > 0, parked.exchange(false, ordering: .sequentiallyConsistent) {
                continue
            }
            wakeUp.wait()
        }
    }
}

/// How long an idle executor expects to wait for its next job, from the gaps it saw lately.
///
/// A caller that awaits one call after another comes back after its own round trip (tens of
/// microseconds); an app that reads now and then comes back after milliseconds or more. The executor
/// spins only in the first case, for about twice the recent gap and never longer than its limit: a
/// spin that would end before the job comes only burns the core.
struct IdleGaps {
    /// The longest spin; `.zero` turns spinning off.
    let limit: Duration
    /// A moving average of the recent gaps, in nanoseconds, each counted as at most twice the limit.
    private var average: Int64

    init(limit: Duration) {
        self.limit = limit
        // Start as if the last gaps were long: the first job after a quiet time never spins.
        average = Self.nanoseconds(limit) * 2
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    mutating func record(_ gap: Duration) {
        let cap = Self.nanoseconds(limit) * 2
        let sample = min(Self.nanoseconds(gap), cap)
        // Each new gap weighs a quarter: a few quick returns start spinning, a few slow ones stop it.
        average += (sample - average) / 4
    }

    /// How long to spin now: `.zero` when the recent gaps were longer than the limit.
    var expected: Duration {
        let limit = Self.nanoseconds(limit)
        guard limit > 0, average < limit else { return .zero }
        return .nanoseconds(min(limit, average * 2 + 2_000))
    }
}

extension ThreadExecutor {
    private static let labelKey = "strata.executor"

    /// Marks the current thread as this executor's, for ``currentLabel``.
    fileprivate static func nameCurrentThread(_ name: String) {
        Thread.current.threadDictionary[labelKey] = name
    }

    /// The label of the Strata executor whose thread the caller runs on, or `nil` elsewhere (on Swift's
    /// cooperative pool, for example).
    static var currentLabel: String? {
        Thread.current.threadDictionary[labelKey] as? String
    }
}
