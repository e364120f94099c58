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
final class ThreadExecutor: SerialExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var head = 0
        var isStopped = false
    }

    let label: String
    private let queue = Mutex(Queue())
    private let pending = Atomic<Int>(0)
    private let parked = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
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
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        pending.add(1, ordering: .sequentiallyConsistent)
        if parked.exchange(false, ordering: .sequentiallyConsistent) {
            wakeUp.signal()
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
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
        case job(UnownedJob)
        case idle
        case stopped
    }

    private func next() -> Next {
        queue.withLock { queue in
            guard queue.head < queue.jobs.count else { return queue.isStopped ? .stopped : .idle }
            let job = queue.jobs[queue.head]
            queue.head += 1
            if queue.head >= 64, queue.head * 2 >= queue.jobs.count {
                queue.jobs.removeFirst(queue.head)
                queue.head = 0
            }
            return .job(job)
        }
    }

    private func run() {
        Self.nameCurrentThread(label)
        let executor = asUnownedSerialExecutor()
        let clock = ContinuousClock()
        while true {
            switch next() {
            case .job(let job):
                pending.subtract(1, ordering: .sequentiallyConsistent)
                job.runSynchronously(on: executor)
                continue
            case .stopped:
                return
            case .idle:
                break
            }
            // Spin a little: the next job of a burst usually arrives within microseconds.
            let deadline = clock.now.advanced(by: spin)
            while pending.load(ordering: .sequentiallyConsistent) == 0, clock.now < deadline {}
            if pending.load(ordering: .sequentiallyConsistent) > 0 {
                if queue.withLock({ $0.isStopped && $0.head >= $0.jobs.count }) { return }
                continue
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
