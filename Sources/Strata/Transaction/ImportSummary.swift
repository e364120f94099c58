/// What a chunked import has done so far: ``DataStack/importUniqueObjects(_:from:chunkSize:progress:)``
/// and its siblings return it at the end and report it after each committed chunk.
public struct ImportSummary: Sendable, Hashable {
    /// The sources read from the sequence. In the summary an ``ImportError`` carries
    /// (``ImportError/committed``), the sources of the chunk that failed are counted too; a cancelled
    /// import throws `CancellationError` (or ``StrataError/Code/transactionCancelled`` for a
    /// ``Transaction/cancel()`` in its code), and the progress's last summary is that of its last
    /// committed chunk.
    public internal(set) var sourcesRead = 0
    /// The chunks committed, one transaction each.
    public internal(set) var chunksCommitted = 0
    /// The objects created by the committed chunks.
    public internal(set) var inserted = 0
    /// The objects updated by the committed chunks.
    public internal(set) var updated = 0
    /// The objects the committed chunks found unchanged.
    public internal(set) var unchanged = 0
    /// The sources of committed chunks that were skipped.
    public internal(set) var skipped = 0
    /// The sources of committed chunks superseded by a later source of their chunk with the same key.
    public internal(set) var superseded = 0

    /// A summary with these counts (all 0 by default: nothing imported yet), for a test's expected
    /// value or a mock's result.
    public init(
        sourcesRead: Int = 0, chunksCommitted: Int = 0, inserted: Int = 0, updated: Int = 0, unchanged: Int = 0,
        skipped: Int = 0, superseded: Int = 0
    ) {
        self.sourcesRead = sourcesRead
        self.chunksCommitted = chunksCommitted
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
        self.skipped = skipped
        self.superseded = superseded
    }

    mutating func add<E: Entity>(_ result: ImportResult<E>) {
        chunksCommitted += 1
        inserted += result.insertedIDs.count
        updated += result.updated.count
        unchanged += result.unchanged
        skipped += result.skipped
        superseded += result.superseded
    }
}
