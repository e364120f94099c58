import Dispatch
import Foundation
import Synchronization

/// A serial executor on a thread of its own that briefly spins for the next job before it parks.
///
/// Reads and transactions are short and come in bursts: a thread that parks after every job pays a
/// wake-up (a futex and a trip through the scheduler, several microseconds) on every hop. Spinning for
/// a few microseconds first keeps bursts cheap; a quiet executor parks and costs nothing. Like a
/// dispatch queue it keeps SQLite's blocking calls off Swift's cooperative pool. The thread runs until
/// ``stop()``.
///
/// Besides the jobs of the actors it serves (the writer, a reader connection), it runs closures handed
/// to it by ``handOff(spin:_:)`` and ``execute(_:)``, in one queue with the jobs, so the closures are
/// isolated to those actors (``checkIsolated()`` lets `assumeIsolated` see that).
final class ThreadExecutor: SerialExecutor {
    /// What the thread runs: a job of an actor on this executor, or a closure from ``handOff(spin:_:)``
    /// or ``execute(_:)``.
    private enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
        /// A slot whose work was taken.
        case done
    }

    private struct Queue {
        var jobs: [Work] = []
        var head = 0
        var isStopped = false
    }

    let label: String
    private let queue = Mutex(Queue())
    private let pending = Atomic<Int>(0)
    private let parked = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    /// The executor's thread, set by the thread itself before it runs anything.
    private let threadID = Mutex<pthread_t?>(nil)
    /// How long an idle executor spins before it parks.
    private let spin: Duration

    init(label: String, spin: Duration = .microseconds(25)) {
        self.label = label
        self.spin = spin
        // The thread holds the executor until it is stopped.
        let thread = Thread { self.run() }
        thread.name = label
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    private func submit(_ work: Work) {
        queue.withLock { $0.jobs.append(work) }
        pending.add(1, ordering: .sequentiallyConsistent)
        if parked.exchange(false, ordering: .sequentiallyConsistent) {
            wakeUp.signal()
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` accept closures run by ``handOff(spin:_:)``: they run on this executor's
    /// thread, in order with the jobs of its actors, so they are isolated to those actors.
    func checkIsolated() {
        precondition(isCurrentThread, "not on the thread of executor \(label)")
    }

    /// Whether the caller runs on this executor's thread.
    var isCurrentThread: Bool {
        let current = pthread_self()
        return threadID.withLock { id in id.map { pthread_equal($0, current) != 0 } ?? false }
    }

    /// Runs `work` on this executor's thread, in order with the jobs of its actors, and returns its result.
    ///
    /// An actor call costs two hops: to the executor's thread, and back to the caller's executor, which
    /// for a task on Swift's cooperative pool means waking a parked pool thread (several microseconds,
    /// more than a lookup by ID takes). A hand-off skips the hop back when the work is short: the caller
    /// watches for the result for up to `spin` before it suspends, and when the result comes in time the
    /// task goes on where it is, without suspending. Only SQLite's thread runs SQLite; the caller's
    /// thread only waits, and for a bounded time, and only while ``CoreBudget`` has a core to spare, so
    /// that waiting never takes the cores the work needs.
    func handOff<T: Sendable>(spin: Duration, _ work: @escaping @Sendable () -> T) async -> T {
        let done = HandOffFlag()
        // Work that has lately taken longer than the spin is not waited for: the caller would spin in vain.
        let worthSpinning = recentHandOffNanoseconds.load(ordering: .relaxed) < spin.nanoseconds
        return await withUnsafeContinuation { continuation in
            submit(.closure { [self] in
                let start = ContinuousClock.now
                let result = work()
                noteHandOff(took: ContinuousClock.now - start)
                continuation.resume(returning: result)
                done.isSet.store(true, ordering: .releasing)
            })
            if worthSpinning { Self.spinUntil(done, atMost: spin) }
        }
    }

    /// A moving average of how long handed-off work took, in nanoseconds; written by the executor's thread.
    private let recentHandOffNanoseconds = Atomic<Int64>(0)

    private func noteHandOff(took duration: Duration) {
        let old = recentHandOffNanoseconds.load(ordering: .relaxed)
        recentHandOffNanoseconds.store(old - old / 4 + duration.nanoseconds / 4, ordering: .relaxed)
    }

    /// Runs `work` on this executor's thread, in order with the jobs of its actors, and returns at once.
    func execute(_ work: @escaping @Sendable () -> Void) {
        submit(.closure(work))
    }

    private static func spinUntil(_ done: HandOffFlag, atMost spin: Duration) {
        guard spin > .zero, CoreBudget.takeForSpinning() else { return }
        defer { CoreBudget.release() }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: spin)
        while !done.isSet.load(ordering: .acquiring) {
            if clock.now >= deadline { return }
        }
    }

    /// Ends the thread once the jobs already enqueued have run.
    func stop() {
        queue.withLock { $0.isStopped = true }
        pending.add(1, ordering: .sequentiallyConsistent)
        if parked.exchange(false, ordering: .sequentiallyConsistent) {
            wakeUp.signal()
        }
    }

    private enum Next {
        case work(Work)
        case idle
        case stopped
    }

    private func next() -> Next {
        queue.withLock { queue in
            guard queue.head < queue.jobs.count else { return queue.isStopped ? .stopped : .idle }
            let job = queue.jobs[queue.head]
            // Drop the queue's reference now: a handed-off closure may hold the actor that owns this executor.
            queue.jobs[queue.head] = .done
            queue.head += 1
            if queue.head >= 64, queue.head * 2 >= queue.jobs.count {
                queue.jobs.removeFirst(queue.head)
                queue.head = 0
            }
            return .work(job)
        }
    }

    private func run() {
        Self.nameCurrentThread(label)
        threadID.withLock { $0 = pthread_self() }
        let executor = asUnownedSerialExecutor()
        let clock = ContinuousClock()
        // Whether this thread counts in the core budget: while it runs work, and while it spins for more.
        var isCounted = false
        while true {
            switch next() {
            case .work(let work):
                if !isCounted {
                    CoreBudget.take()
                    isCounted = true
                }
                pending.subtract(1, ordering: .sequentiallyConsistent)
                switch work {
                case .job(let job): job.runSynchronously(on: executor)
                case .closure(let closure): closure()
                case .done: break
                }
                continue
            case .stopped:
                if isCounted { CoreBudget.release() }
                return
            case .idle:
                break
            }
            // Spin a little: the next job of a burst usually arrives within microseconds. But not when
            // more threads are busy than there are cores: then spinning takes a core from the work.
            if isCounted ? CoreBudget.isWithinCores : CoreBudget.takeForSpinning() {
                isCounted = true
                let deadline = clock.now.advanced(by: spin)
                while pending.load(ordering: .sequentiallyConsistent) == 0, clock.now < deadline {}
                // Work arrived, or `stop()` did: `next()` tells which.
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

extension Duration {
    /// The duration in whole nanoseconds (saturating at `Int64.max`).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}

/// The threads of Strata that are busy, running work on an executor or spinning for it (an executor
/// waiting for its next job, a caller waiting for a hand-off's result), against the machine's cores.
///
/// Running work always counts; spinning is allowed only while the busy threads fit in the cores, so
/// that on a loaded machine threads wait by parking and leave the cores to the work.
enum CoreBudget {
    static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
    private static let busy = Atomic<Int>(0)

    /// Counts a thread that starts running work.
    static func take() {
        busy.add(1, ordering: .relaxed)
    }

    /// Counts a thread that wants to spin, if that fits in the cores.
    static func takeForSpinning() -> Bool {
        if busy.add(1, ordering: .relaxed).newValue <= cores { return true }
        busy.subtract(1, ordering: .relaxed)
        return false
    }

    /// Whether the busy threads, a counted caller among them, fit in the cores.
    static var isWithinCores: Bool { busy.load(ordering: .relaxed) <= cores }

    static func release() {
        busy.subtract(1, ordering: .relaxed)
    }
}

/// Set by the executor's thread once a handed-off closure has resumed its caller.
private final class HandOffFlag: Sendable {
    let isSet = Atomic<Bool>(false)
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

/// Runs one-off blocking work (opening a connection) on a dispatch thread, never on Swift's cooperative
/// pool, and returns its result to the awaiting task.
enum OffPool {
    static func run<T>(_ body: @escaping @Sendable () throws -> sending T) async throws -> sending T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            DispatchQueue.global(qos: .userInitiated).async {
                do {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
