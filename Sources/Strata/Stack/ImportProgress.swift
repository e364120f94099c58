/// The progress of a chunked import, as an `AsyncSequence` of ``ImportSummary`` values, one after each
/// committed chunk; it ends with the import. It keeps only the newest value, so the import never waits
/// for a slow consumer, and nobody has to consume it. Several tasks may iterate it at once, each with
/// an iterator of its own.
///
/// A progress serves one import: once its sequence has ended it can report nothing more, so giving
/// it to a second one (after the first, or while the first still runs) throws
/// ``StrataError/Code/invalidArgument`` before anything is read, and leaves the first one's sequence
/// as it was. Make a new `ImportProgress` for each import.
public struct ImportProgress: AsyncSequence, Sendable {
    public typealias Element = ImportSummary
    public typealias Failure = Never

    /// The consumers' streams, and what was reported.
    private struct State {
        var consumers: [Int: AsyncStream<ImportSummary>.Continuation] = [:]
        var nextConsumer = 0
        var latest = ImportSummary()
        var reportedAny = false
        var finished = false
    }

    private let state = Locked(State())
    /// Whether an import took the progress already (see ``claim()``).
    private let claimed = Locked(false)

    /// A progress to pass to a chunked import.
    public init() {}

    /// What the chunks committed so far did (all zero before the first): readable at any time, without
    /// iterating. After an import that was cancelled (its task, or a ``Transaction/cancel()`` in its
    /// code), or stopped by any error, it tells what stayed in the store.
    public var latest: ImportSummary { state.withLock { $0.latest } }

    /// An iterator of its own: several tasks may each iterate the progress (a progress bar and a log),
    /// and each gets the newest summary when it asks, then every later one it keeps up with (only the
    /// newest is kept for a slow consumer). A consumer whose task is cancelled stops alone.
    public func makeAsyncIterator() -> AsyncStream<ImportSummary>.Iterator {
        let (stream, continuation) = AsyncStream.makeStream(of: ImportSummary.self, bufferingPolicy: .bufferingNewest(1))
        let key: Int? = state.withLock { state in
            if state.reportedAny { continuation.yield(state.latest) }
            guard !state.finished else { return nil }
            let key = state.nextConsumer
            state.nextConsumer += 1
            state.consumers[key] = continuation
            return key
        }
        guard let key else {
            continuation.finish()
            return stream.makeAsyncIterator()
        }
        // Called outside the lock: `finish()` finishes the streams after leaving it.
        continuation.onTermination = { [state] _ in state.withLock { _ = $0.consumers.removeValue(forKey: key) } }
        return stream.makeAsyncIterator()
    }

    /// Takes the progress for the import that was given it, which finishes it when it ends; call it
    /// before anything else, and finish the progress only once it returned.
    ///
    /// - Throws: ``StrataError/Code/invalidArgument`` when another import took it already.
    func claim() throws(StrataError) {
        guard claimed.takeOnce() else {
            throw StrataError(
                .invalidArgument,
                "This ImportProgress was given to another import already; its sequence ends with that import, so it "
                    + "would report nothing of this one. Make a new ImportProgress for each import.")
        }
    }

    func report(_ summary: ImportSummary) {
        let consumers = state.withLock { state in
            state.latest = summary
            state.reportedAny = true
            return Array(state.consumers.values)
        }
        for consumer in consumers { consumer.yield(summary) }
    }

    func finish() {
        let consumers = state.withLock { state in
            state.finished = true
            defer { state.consumers = [:] }
            return Array(state.consumers.values)
        }
        for consumer in consumers { consumer.finish() }
    }
}
