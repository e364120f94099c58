/// Long imports: sources read from an `AsyncSequence` (a streamed JSON array, a file read line by line)
/// and imported in chunks, one transaction per chunk.
///
/// The writer is free between chunks, so reads and other transactions go on. Cancelling the task, or
/// an error, stops the import after the chunks already committed: they stay, and nothing of the chunk
/// in progress does; the same holds when the process is killed.
extension DataStack {
    /// Imports each source by its key, `chunkSize` sources per transaction (see
    /// ``Transaction/importUniqueObjects(_:from:)``; the last source of a key wins within a chunk, and a
    /// later chunk updates what an earlier one created).
    ///
    /// - Throws: ``ImportError`` naming the failing source's position in the whole sequence, with
    ///   what the chunks committed before did (``ImportError/committed``); `CancellationError` when
    ///   the task was cancelled; ``StrataError/Code/transactionCancelled`` when the import code called
    ///   ``Transaction/cancel()``; the ``StrataError`` of a chunk's transaction that SQLite rolled back as
    ///   a whole (an I/O error, a full disk); what the sequence throws. The chunks committed before stay,
    ///   and a `progress` tells what they did (``ImportProgress/latest``), in every case.
    @discardableResult
    public func importUniqueObjects<E: ImportableUniqueObject, S: AsyncSequence>(
        _ into: Into<E>, from sources: S, chunkSize: Int = 1_000, progress: ImportProgress? = nil
    ) async throws -> ImportSummary where S.Element == E.ImportSource, E.ImportSource: Sendable {
        try await importInChunks(sources, chunkSize: chunkSize, progress: progress) { tx, chunk in
            try tx.importUniqueObjects(into, from: chunk)
        }
    }

    /// Imports an object from each source, `chunkSize` sources per transaction (see
    /// ``Transaction/importObjects(_:from:)``).
    @discardableResult
    public func importObjects<E: ImportableObject, S: AsyncSequence>(
        _ into: Into<E>, from sources: S, chunkSize: Int = 1_000, progress: ImportProgress? = nil
    ) async throws -> ImportSummary where S.Element == E.ImportSource, E.ImportSource: Sendable {
        try await importInChunks(sources, chunkSize: chunkSize, progress: progress) { tx, chunk in
            try tx.importObjects(into, from: chunk)
        }
    }

    /// Inserts an object per source, filled by `configure`, `chunkSize` sources per transaction (see
    /// ``Transaction/insertAll(_:from:_:)``). Memory stays bounded whatever the number of sources: one
    /// chunk is held at a time, and the summary counts.
    @discardableResult
    public func insertAll<E: Entity, S: AsyncSequence>(
        _ into: Into<E>, from sources: S, chunkSize: Int = 1_000, progress: ImportProgress? = nil,
        _ configure: @escaping @Sendable (S.Element, inout E) throws -> Void
    ) async throws -> ImportSummary where S.Element: Sendable {
        try await importInChunks(sources, chunkSize: chunkSize, progress: progress) { tx, chunk in
            try tx.insertAll(into, from: chunk, configure)
        }
    }

    /// Reads `chunkSize` sources at a time and runs `body` on each chunk in a transaction of its own.
    private func importInChunks<E: Entity, S: AsyncSequence>(
        _ sources: S, chunkSize: Int, progress: ImportProgress?,
        _ body: @escaping @Sendable (Transaction, [S.Element]) throws -> ImportResult<E>
    ) async throws -> ImportSummary where S.Element: Sendable {
        // Checked before the progress is claimed: a refused call leaves it to the corrected one.
        guard chunkSize > 0 else {
            throw StrataError(.invalidArgument, "chunkSize must be at least 1 (it was \(chunkSize)).")
        }
        try progress?.claim()
        defer { progress?.finish() }
        var summary = ImportSummary()
        var chunk: [S.Element] = []
        // A chunk size may be far larger than the stream (`.max` for "one transaction"): reserved up to a
        // bound, grown past it as sources come.
        chunk.reserveCapacity(Swift.min(chunkSize, 4_096))
        func commit() async throws {
            try Task.checkCancellation()
            let sources = chunk
            let first = summary.sourcesRead - sources.count
            let result: ImportResult<E>
            do {
                result = try await perform { tx in try body(tx, sources) }
            } catch let error as ImportError {
                throw ImportError(
                    sourceIndex: first + error.sourceIndex, entity: error.entity, underlying: error.underlying,
                    committed: summary)
            }
            summary.add(result)
            chunk.removeAll(keepingCapacity: true)
            progress?.report(summary)
        }
        for try await source in sources {
            chunk.append(source)
            summary.sourcesRead += 1
            if chunk.count == chunkSize { try await commit() }
        }
        // A cancelled task's sequence may just end early (AsyncStream does): that is no success.
        try Task.checkCancellation()
        if !chunk.isEmpty { try await commit() }
        return summary
    }
}
