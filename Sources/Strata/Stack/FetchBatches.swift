import Synchronization

/// The objects of a fetch, delivered in chunks: an `AsyncSequence` of arrays, for results too large to
/// hold at once.
///
/// ```swift
/// for try await batch in stack.fetchBatches(From<Person>().orderBy(.ascending(\.id)).tweak(.batchSize(500))) {
///     export(batch)
/// }
/// ```
/// Every batch comes from one read transaction, so the whole stream sees one committed state. While a
/// stream is being iterated it holds one reader connection of the pool; it gives it back when the last
/// batch was delivered, when an error is thrown, or when the iteration stops (the iterator is released
/// or its task cancelled).
public struct FetchBatches<E: Entity>: AsyncSequence, Sendable {
    public typealias Element = [E]

    let pool: ReaderPool
    let query: Result<SQLQuery, StrataError>
    let batchSize: Int
    /// Loads the prefetched relationships of a batch (``From/prefetching(_:)``).
    var prefetch: (@Sendable (inout [E], Connection) throws -> Void)?

    /// Makes an iterator; each iterator runs the fetch anew.
    public func makeAsyncIterator() -> Iterator {
        Iterator(cursor: BatchCursor(pool: pool, query: query, batchSize: batchSize, prefetch: prefetch))
    }

    /// Delivers the batches.
    public struct Iterator: AsyncIteratorProtocol {
        let cursor: BatchCursor<E>

        /// The next batch, or `nil` after the last one.
        public mutating func next() async throws -> [E]? {
            try await cursor.next()
        }
    }
}

/// The state of one iteration: the reader it holds, until it is done.
final class BatchCursor<E: Entity>: Sendable {
    private struct State {
        var reader: ReaderConnection?
        var isFinished = false
    }

    private let pool: ReaderPool
    private let query: Result<SQLQuery, StrataError>
    private let batchSize: Int
    /// Loads the prefetched relationships of a batch, in the cursor's read transaction.
    private let prefetch: (@Sendable (inout [E], Connection) throws -> Void)?
    private let state = Mutex(State())

    init(
        pool: ReaderPool, query: Result<SQLQuery, StrataError>, batchSize: Int,
        prefetch: (@Sendable (inout [E], Connection) throws -> Void)? = nil
    ) {
        self.pool = pool
        self.query = query
        self.batchSize = batchSize
        self.prefetch = prefetch
    }

    func next() async throws -> [E]? {
        if state.withLock({ $0.isFinished }) { return nil }
        do {
            try Task.checkCancellation()
            let reader: ReaderConnection
            if let held = state.withLock({ $0.reader }) {
                reader = held
            } else {
                let query = try self.query.get()
                reader = try await pool.acquire()
                state.withLock { $0.reader = reader }
                try await reader.openCursor(query)
            }
            let handle = reader.interruptHandle
            defer { handle.reset() }
            var batch = try await withTaskCancellationHandler {
                try await reader.nextBatch(E.self, count: batchSize)
            } onCancel: {
                handle.interrupt()
            }
            if let prefetch, !batch.isEmpty {
                let fetched = batch
                batch = try await reader.read { connection in
                    var objects = fetched
                    try prefetch(&objects, connection)
                    return objects
                }
            }
            if batch.count < batchSize { await finish() }
            return batch.isEmpty ? nil : batch
        } catch {
            await finish()
            if Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    private func finish() async {
        let reader = state.withLock { state in
            state.isFinished = true
            defer { state.reader = nil }
            return state.reader
        }
        guard let reader else { return }
        await reader.closeCursor()
        pool.release(reader)
    }

    deinit {
        let reader = state.withLock { $0.reader }
        guard let reader else { return }
        let pool = self.pool
        Task {
            await reader.closeCursor()
            pool.release(reader)
        }
    }
}
