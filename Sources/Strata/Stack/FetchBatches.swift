import Synchronization
import Tracing

/// The objects of a fetch, delivered in chunks: an `AsyncSequence` of arrays, for results too large to
/// hold at once.
///
/// ```swift
/// for try await batch in stack.fetchBatches(From<Person>().orderBy(.ascending(\.id)).tweak(.batchSize(500))) {
///     export(batch)
/// }
/// ```
/// Every batch comes from one read transaction, so the whole stream sees one committed state: commits
/// that land while you iterate are not seen. The stream reads on a connection of its own, outside the
/// reader pool, so other reads (and fetches inside the loop) never wait for it, however slowly you
/// consume the batches. At most ``DataStack/Configuration/maximumConcurrentBatchFetches`` streams read at
/// once; another waits for one of them to end (cancellably). A stream gives its connection back when the
/// last batch was delivered, when an error is thrown, or when the iteration stops (the iterator is
/// released or its task cancelled). While it iterates, its open read transaction keeps SQLite from
/// recycling the write-ahead log, which grows with the writes made meanwhile: iterate long streams
/// promptly.
///
/// With a tracer, each iteration is one `strata.read` span (it is one read transaction), a child of the
/// span of the task that asks for the first batch: it covers the wait for a connection and lasts until
/// the connection goes back, and carries `strata.entities`, `strata.statements` and `strata.batches`.
public struct FetchBatches<E: Entity>: AsyncSequence, Sendable {
    public typealias Element = [E]

    let cursors: ReaderPool
    let query: Result<SQLQuery, StrataError>
    let batchSize: Int
    /// Loads the prefetched relationships of a batch (``From/prefetching(_:)``).
    var prefetch: (@Sendable (inout [E], Connection) throws -> Void)?

    /// Makes an iterator; each iterator runs the fetch anew.
    public func makeAsyncIterator() -> Iterator {
        Iterator(cursor: BatchCursor(cursors: cursors, query: query, batchSize: batchSize, prefetch: prefetch))
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

/// The state of one iteration: the cursor connection it holds, until it is done.
final class BatchCursor<E: Entity>: Sendable {
    private struct State {
        var reader: ReaderConnection?
        var isFinished = false
        /// The iteration's `strata.read` span, with a tracer, from the first batch asked for to the end.
        var span: (any Span)?
        /// The batches delivered and the statements run, for the span.
        var batches = 0
        var statements = 0
    }

    private let cursors: ReaderPool
    private let query: Result<SQLQuery, StrataError>
    private let batchSize: Int
    /// Loads the prefetched relationships of a batch, in the cursor's read transaction.
    private let prefetch: (@Sendable (inout [E], Connection) throws -> Void)?
    private let state = Locked(State())

    init(
        cursors: ReaderPool, query: Result<SQLQuery, StrataError>, batchSize: Int,
        prefetch: (@Sendable (inout [E], Connection) throws -> Void)? = nil
    ) {
        self.cursors = cursors
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
                if let tracer = cursors.tracer {
                    let span = tracer.start("strata.read")
                    span.attributes["strata.entities"] = E.entityDescription.name
                    state.withLock { $0.span = span }
                }
                let query = try self.query.get()
                reader = try await cursors.acquire()
                state.withLock {
                    $0.reader = reader
                    $0.statements = 1
                }
                try await reader.openCursor(query)
            }
            let (batch, statements) = try await reader.nextBatch(E.self, count: batchSize, prefetch: prefetch)
            state.withLock { state in
                guard state.span != nil else { return }
                state.statements &+= statements
                if !batch.isEmpty { state.batches += 1 }
            }
            if batch.count < batchSize { await finish(error: nil) }
            return batch.isEmpty ? nil : batch
        } catch {
            let reported = Task.isCancelled ? CancellationError() : error
            await finish(error: reported)
            throw reported
        }
    }

    private func finish(error: (any Error)?) async {
        let (reader, span) = state.withLock { state in
            state.isFinished = true
            defer {
                state.reader = nil
                state.span = nil
            }
            return (state.reader, Self.finishing(state))
        }
        if let reader {
            await reader.closeCursor(returningTo: cursors, ending: span, error: error)
        } else if let span {
            StackTracer.finish(span, error: error)
        }
    }

    /// The iteration's span, if it has one, with its figures set (ended with the cursor, before the
    /// connection goes back to the pool).
    private static func finishing(_ state: State) -> (any Span)? {
        guard let span = state.span else { return nil }
        span.setStrataAttributes(statements: state.statements, entities: [])
        span.attributes["strata.batches"] = state.batches
        return span
    }

    deinit {
        let (reader, span) = state.withLock { ($0.reader, Self.finishing($0)) }
        guard let reader else {
            span?.end()
            return
        }
        let cursors = self.cursors
        Task { await reader.closeCursor(returningTo: cursors, ending: span) }
    }
}
