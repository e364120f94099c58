import Dispatch

/// A serial executor over a dedicated dispatch queue.
///
/// The writer and every reader connection run on one of these, so that blocking SQLite calls never
/// occupy a thread of Swift's cooperative pool (on Linux a `DispatchSerialQueue` is not itself an
/// executor). Sendable: its only state is an immutable reference to a dispatch queue.
final class QueueExecutor: SerialExecutor {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
        queue.setSpecific(key: Self.labelKey, value: label)
    }

    /// Tags each executor's queue with its label, so code can tell which executor it runs on.
    static let labelKey = DispatchSpecificKey<String>()

    /// The label of the Strata executor the caller runs on, or `nil` outside of one.
    static var currentLabel: String? {
        DispatchQueue.getSpecific(key: labelKey)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async {
            job.runSynchronously(on: executor)
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Runs a closure on the queue and returns its result to the awaiting task.
    func run<T>(_ body: @escaping @Sendable () throws -> sending T) async throws -> sending T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            queue.async {
                do {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
