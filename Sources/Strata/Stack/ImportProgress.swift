/// The progress of a chunked import, as an `AsyncSequence` of ``ImportSummary`` values, one after each
/// committed chunk; it ends with the import. It keeps only the newest value, so the import never waits
/// for a slow consumer, and nobody has to consume it.
///
/// A progress serves one import: once its sequence has ended it can report nothing more, so giving
/// it to a second one (after the first, or while the first still runs) throws
/// ``StrataError/Code/invalidArgument`` before anything is read, and leaves the first one's sequence
/// as it was. Make a new `ImportProgress` for each import.
public struct ImportProgress: AsyncSequence, Sendable {
    public typealias Element = ImportSummary
    public typealias Failure = Never

    private let stream: AsyncStream<ImportSummary>
    private let continuation: AsyncStream<ImportSummary>.Continuation
    private let reported = Locked(ImportSummary())
    /// Whether an import took the progress already (see ``claim()``).
    private let claimed = Locked(false)

    /// A progress to pass to a chunked import.
    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: ImportSummary.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// What the chunks committed so far did (all zero before the first): readable at any time, without
    /// iterating. After an import that was cancelled, or stopped by an error of its sequence, it tells
    /// what stayed in the store.
    public var latest: ImportSummary { reported.withLock { $0 } }

    public func makeAsyncIterator() -> AsyncStream<ImportSummary>.Iterator {
        stream.makeAsyncIterator()
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
        reported.withLock { $0 = summary }
        continuation.yield(summary)
    }

    func finish() {
        continuation.finish()
    }
}
