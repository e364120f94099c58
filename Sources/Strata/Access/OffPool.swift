import Dispatch

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
