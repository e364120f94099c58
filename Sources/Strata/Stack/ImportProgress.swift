/// The progress of a chunked import, as an `AsyncSequence` of ``ImportSummary`` values, one after each
/// committed chunk; it ends with the import. It keeps only the newest value, so the import never waits
/// for a slow consumer, and nobody has to consume it.
public struct ImportProgress: AsyncSequence, Sendable {
    public typealias Element = ImportSummary
    public typealias Failure = Never

    private let stream: AsyncStream<ImportSummary>
    private let continuation: AsyncStream<ImportSummary>.Continuation
    private let reported = Locked(ImportSummary())

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

    func report(_ summary: ImportSummary) {
        reported.withLock { $0 = summary }
        continuation.yield(summary)
    }

    func finish() {
        continuation.finish()
    }
}
