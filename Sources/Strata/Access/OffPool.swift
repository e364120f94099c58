import Dispatch

/// Runs one-off blocking work (opening a connection) on a dispatch thread, never on Swift's cooperative
/// pool, and returns its result to the awaiting task.
enum OffPool {
    static func run<T>(_ body: @escaping @Sendable () throws -> sending T) async throws -> sending T {
        try await run(body, dispatch: { DispatchQueue.global(qos: .userInitiated).async(execute: $0) })
    }

    /// ``run(_:)`` with the way the work is started given: `dispatch` must run its block once, on
    /// some thread (tests start one of their own, to take a path that Dispatch takes only by chance).
    ///
    /// The result crosses threads twice over: through the continuation, which is what orders it, and
    /// through `handoff`, a lock the work lets go of before it resumes the continuation and the task
    /// takes after. The lock is for ThreadSanitizer: when the work resumes the continuation before
    /// the task has reached its `await` (the work was quick, or the task's thread was preempted), the
    /// task goes on at once, ordered by an atomic load inside the Swift runtime that ThreadSanitizer
    /// does not see (swiftlang/swift#57803), and the task's first read of what the work made (the
    /// connection's fields) would be reported as a race. With the lock the ordering is one
    /// ThreadSanitizer sees, on every path.
    static func run<T>(
        _ body: @escaping @Sendable () throws -> sending T,
        dispatch: (@escaping @Sendable () -> Void) -> Void
    ) async throws -> sending T {
        let handoff = Locked(())
        let result = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            dispatch {
                do {
                    let value = try body()
                    handoff.synchronize()
                    continuation.resume(returning: value)
                } catch {
                    handoff.synchronize()
                    continuation.resume(throwing: error)
                }
            }
        }
        handoff.synchronize()
        return result
    }
}
