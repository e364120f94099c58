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
/// Between jobs an idle executor parks. It can be set to spin for a few microseconds first (see
/// ``idleSpin``), and then spins only while Strata's busy threads fit in the cores the process may use
/// (``CoreBudget``); callers never spin.
/// The thread runs until ``stop()``.
final class ThreadExecutor: SerialExecutor {
    private struct Queue {
        var jobs = Deque<UnownedJob>()
        var isStopped = false
    }

    let label: String
    private let queue = Locked(Queue())
    private let pending = Atomic<Int>(0)
    private let parked = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    /// The executor's thread, set by the thread itself before it runs anything.
    private let threadID = Locked<pthread_t?>(nil)
    /// How long an idle executor spins before it parks.
    private let spin: Duration

    init(label: String, spin: Duration = ThreadExecutor.idleSpin) {
        self.label = label
        self.spin = spin
        // The thread holds the executor until it is stopped.
        let thread = Thread { self.run() }
        thread.name = label
        thread.start()
    }

    /// How long an idle executor spins by default: not at all (a 25 µs spin measured no better than none
    /// on the benchmarks' 2-core machine), or the whole number of microseconds in the environment
    /// variable `STRATA_IDLE_SPIN_MICROSECONDS`, for measuring what a spin is worth on another machine.
    static let idleSpin: Duration = {
        if let text = ProcessInfo.processInfo.environment["STRATA_IDLE_SPIN_MICROSECONDS"], let value = Int(text), value >= 0 {
            return .microseconds(value)
        }
        return .zero
    }()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        signal()
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

    /// Lets `assumeIsolated` and dynamic isolation checks see that the caller runs on this thread.
    func checkIsolated() {
        precondition(isCurrentThread, "not on the thread of executor \(label)")
    }

    /// Whether the caller runs on this executor's thread.
    var isCurrentThread: Bool {
        let current = pthread_self()
        return threadID.withLock { id in id.map { pthread_equal($0, current) != 0 } ?? false }
    }

    /// Ends the thread once the jobs already enqueued have run.
    func stop() {
        queue.withLock { $0.isStopped = true }
        signal()
    }

    private enum Next {
        case job(UnownedJob)
        case idle
        case stopped
    }

    private func next() -> Next {
        queue.withLock { queue in
            if let job = queue.jobs.popFirst() { return .job(job) }
            return queue.isStopped ? .stopped : .idle
        }
    }

    private func run() {
        Self.nameCurrentThread(label)
        threadID.withLock { $0 = pthread_self() }
        let executor = asUnownedSerialExecutor()
        let clock = ContinuousClock()
        // Whether this thread counts in the core budget: while it runs jobs, and while it spins for more.
        var isCounted = false
        while true {
            switch next() {
            case .job(let job):
                if !isCounted {
                    CoreBudget.take()
                    isCounted = true
                }
                pending.subtract(1, ordering: .sequentiallyConsistent)
                job.runSynchronously(on: executor)
                continue
            case .stopped:
                if isCounted { CoreBudget.release() }
                return
            case .idle:
                break
            }
            // Spin a little, but only while Strata's busy threads fit in the cores: otherwise spinning
            // would take a core from the work.
            if spin > .zero, isCounted ? CoreBudget.isWithinCores : CoreBudget.takeForSpinning() {
                isCounted = true
                let deadline = clock.now.advanced(by: spin)
                while pending.load(ordering: .sequentiallyConsistent) == 0, clock.now < deadline {}
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
