import Foundation

/// Runs `body` on a new thread of its own, outside Swift's cooperative pool, and returns its result
/// to the awaiting task: for code that blocks the calling thread on purpose, such as GRDB's
/// synchronous `read` and `write`. Starting the thread is not part of what `body` measures.
func onPlainThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}
