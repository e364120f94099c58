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
    /// while it ran (`outcome`: `rolled_back`).
    let rolledBack: Counter
    /// Transactions whose commit failed (`outcome`: `failed`).
    let failed: Counter
    /// Transactions (and unsafe transactions) whose task was cancelled before they began: before or
    /// while they waited for the writer's turn (`outcome`: `cancelled`).
    let cancelled: Counter
    /// Transactions (and unsafe transactions) refused before they began because their task holds the
    /// stack's unsafe transaction, which they would wait for forever (`outcome`: `refused`).
    let refused: Counter
    /// How long a commit took (saving ID marks, recording history, `COMMIT`).
    let commitDuration: Timer
    /// Waits for the writer's turn that suspended.
    let writerWait: Timer
    /// Observation fetches started (publishers re-reading after a commit).
    let observationFetches: Counter
    /// Active observations: publishers being iterated and live change streams.
    let activeObservations: Meter
    /// The reader pool's instruments (`pool`: `reader`).
    let readers: Pool
    /// The ``DataStack/fetchBatches(_:)`` cursors' instruments (`pool`: `cursor`).
    let cursors: Pool
    /// The ``ReadGeneration``s' instruments (`pool`: `generation`).
    let generations: Pool

    /// The instruments of one pool of read connections, told apart by a `pool` dimension: each pool has
    /// a limit of its own (``DataStack/Configuration/maximumReaderCount``,
    /// ``DataStack/Configuration/maximumConcurrentBatchFetches``,
    /// ``DataStack/Configuration/maximumReadGenerations``), so a wait in one says nothing of the others.
    struct Pool: Sendable {
        /// Waits for a connection that suspended.
        let wait: Timer
        /// Connections lent out now.
        let inUse: Meter
    }

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
        func pool(_ name: String) -> Pool {
            let dimensions = dimensions + [("pool", name)]
            return Pool(
                wait: Timer(label: "strata_reader_wait", dimensions: dimensions, factory: factory),
                inUse: Meter(label: "strata_reader_pool_in_use", dimensions: dimensions, factory: factory))
        }
        committed = outcome("committed")
        rolledBack = outcome("rolled_back")
        failed = outcome("failed")
        cancelled = outcome("cancelled")
        refused = outcome("refused")
        commitDuration = Timer(label: "strata_commit_duration", dimensions: dimensions, factory: factory)
        writerWait = Timer(label: "strata_writer_wait", dimensions: dimensions, factory: factory)
        observationFetches = Counter(
            label: "strata_observation_fetches_total", dimensions: dimensions, factory: factory)
        activeObservations = Meter(label: "strata_active_observations", dimensions: dimensions, factory: factory)
        readers = pool("reader")
        cursors = pool("cursor")
        generations = pool("generation")
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
