internal import CSQLite
import Foundation
import Synchronization

/// The busy handler of a connection: SQLite's own busy-timeout schedule (the delays of
/// `sqlite3_busy_timeout`), plus one report when a wait for a lock held by another connection passes a
/// threshold, so that an operator hears about it while it lasts.
///
/// Not `Sendable`: its connection owns it, and SQLite calls the handler only from a statement that
/// connection is running, on the connection's thread.
final class BusyWait {
    /// The delays, in milliseconds, SQLite's busy timeout sleeps between attempts (then the last one).
    private static let delays: [Int32] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    private let timeoutMilliseconds: Int32
    private let threshold: Duration?
    private let report: (@Sendable (Duration) -> Void)?
    private let clock = ContinuousClock()
    private var started: ContinuousClock.Instant
    private var reported = false
    /// The connection's interrupt flag: a wait ends when its task is cancelled (see `InterruptHandle`).
    private let interrupt: InterruptFlag?
    /// Set while the connection holds the stack's commit gate: a statement meeting a lock then fails at
    /// once with `SQLITE_BUSY`, and the connection waits with ``wait(after:)`` once it has let the gate go.
    var failsAtOnce = false

    init(
        timeoutMilliseconds: Int32, threshold: Duration?, report: (@Sendable (Duration) -> Void)?,
        interrupt: InterruptFlag? = nil
    ) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.threshold = threshold
        self.report = report
        self.interrupt = interrupt
        self.started = clock.now
    }

    /// Installs the handler on `db`; the connection keeps this object alive while `db` is open.
    func install(on db: OpaquePointer) {
        sqlite3_busy_handler(db, { context, attempts in
            guard let context else { return 0 }
            return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().retry(after: attempts)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Waits as the busy handler would before its attempt number `attempts` (0 for the first), for a
    /// statement that failed with `SQLITE_BUSY` while ``failsAtOnce`` was set; `false`, without waiting,
    /// once the busy timeout has passed or the task is cancelled: the caller then reports the failure.
    func wait(after attempts: Int32) -> Bool {
        retry(after: attempts) == 1
    }

    /// 1 to try again after a delay, 0 to give up (the statement then fails with `SQLITE_BUSY`).
    private func retry(after attempts: Int32) -> Int32 {
        if failsAtOnce { return 0 }
        if attempts == 0 {
            started = clock.now
            reported = false
        }
        let waited = started.duration(to: clock.now)
        let elapsed = Int32(clamping: waited.components.seconds * 1000 + waited.components.attoseconds / 1_000_000_000_000_000)
        guard elapsed < timeoutMilliseconds else { return 0 }
        // A cancelled task stops waiting: the statement fails at once, and its owner reports the cancellation.
        if interrupt?.raised.load(ordering: .acquiring) == true { return 0 }
        if let threshold, let report, !reported, waited >= threshold {
            reported = true
            report(waited)
        }
        let delay = min(Self.delays[min(Int(attempts), Self.delays.count - 1)], timeoutMilliseconds - elapsed)
        usleep(useconds_t(delay) * 1000)
        return 1
    }
}
