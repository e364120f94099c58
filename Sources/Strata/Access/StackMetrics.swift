import CoreMetrics

/// The metrics of one stack, made once when it opens: `strata_`-named, with a `stack` dimension (the
/// configured ``DataStack/Configuration/name``) and dimensions that never hold a stored value.
///
/// A stack whose metrics factory is swift-metrics' no-op one (the default until the app bootstraps a
/// backend) has none: callers hold a `StackMetrics?` that is `nil` then, and skip even the clock reads.
final class StackMetrics: Sendable {
    /// Committed transactions (`outcome`: `committed`).
    let committed: Counter
    /// Transactions rolled back: their body threw or called `cancel()`, or the task was cancelled
    /// (`outcome`: `rolled_back`).
    let rolledBack: Counter
    /// Transactions whose commit failed (`outcome`: `failed`).
    let failed: Counter
    /// How long a commit took (saving ID marks, recording history, `COMMIT`).
    let commitDuration: Timer
    /// Waits for the writer's turn that suspended.
    let writerWait: Timer
    /// Waits for a reader connection that suspended.
    let readerWait: Timer
    /// Observation fetches started (publishers re-reading after a commit).
    let observationFetches: Counter
    /// Reader connections lent out now.
    let readersInUse: Meter

    /// The metrics of a stack named `stack`, or `nil` when `factory` is the no-op one.
    static func make(factory: any MetricsFactory, stack: String) -> StackMetrics? {
        if factory is NOOPMetricsHandler { return nil }
        return StackMetrics(factory: factory, stack: stack)
    }

    private init(factory: any MetricsFactory, stack: String) {
        let dimensions = [("stack", stack)]
        func outcome(_ value: String) -> Counter {
            Counter(label: "strata_transactions_total", dimensions: dimensions + [("outcome", value)], factory: factory)
        }
        committed = outcome("committed")
        rolledBack = outcome("rolled_back")
        failed = outcome("failed")
        commitDuration = Timer(label: "strata_commit_duration", dimensions: dimensions, factory: factory)
        writerWait = Timer(label: "strata_writer_wait", dimensions: dimensions, factory: factory)
        readerWait = Timer(label: "strata_reader_wait", dimensions: dimensions, factory: factory)
        observationFetches = Counter(
            label: "strata_observation_fetches_total", dimensions: dimensions, factory: factory)
        readersInUse = Meter(label: "strata_reader_pool_in_use", dimensions: dimensions, factory: factory)
    }
}

extension StackMetrics {
    /// Runs `body`, recording how long it took in `timer`.
    static func time<T, E: Error>(_ timer: Timer, _ body: () throws(E) -> T) throws(E) -> T {
        let start = ContinuousClock.now
        defer { timer.recordNanoseconds(nanoseconds(start.duration(to: .now))) }
        return try body()
    }

    /// Runs `wait`, recording how long it took in `timer`.
    static func time<T>(_ timer: Timer, _ wait: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        defer { timer.recordNanoseconds(nanoseconds(start.duration(to: .now))) }
        return try await wait()
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
