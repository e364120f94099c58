import Logging

/// Logs waits for a connection or for the writer's turn that took longer than a threshold, at notice
/// level: a sign of long transactions or of a pool too small for the load.
struct WaitLog: Sendable {
    let logger: Logger
    /// Waits longer than this are logged; `nil` logs none.
    let threshold: Duration?

    /// Runs `wait`, timing it, and logs it as `what` when it took longer than the threshold.
    func timing<T>(_ what: @autoclosure () -> String, pool: String, _ wait: () async throws -> T) async rethrows -> T {
        guard let threshold else { return try await wait() }
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await wait()
        let waited = start.duration(to: clock.now)
        if waited > threshold {
            logger.notice("\(what())", metadata: ["strata.wait": "\(waited)", "strata.pool": "\(pool)"])
        }
        return result
    }

    /// What a connection calls when a wait for a lock held by another connection (another process, or
    /// another stack on the same file) passes the threshold: a notice, while the wait lasts.
    func lockReport(path: String) -> @Sendable (Duration) -> Void {
        let logger = logger
        return { waited in
            logger.notice(
                "waiting for a lock held by another connection",
                metadata: ["strata.wait": "\(waited)", "strata.pool": "sqlite", "strata.path": "\(path)"])
        }
    }
}
