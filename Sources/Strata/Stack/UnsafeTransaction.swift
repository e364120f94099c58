import Tracing

/// A transaction you commit yourself, possibly several times: CoreStore's `beginUnsafe()`, for long
/// imports that commit in chunks.
///
/// ```swift
/// let unsafe = try await stack.beginUnsafe()
/// for chunk in chunks {
///     try await unsafe.perform { tx in for row in chunk { try tx.create(Into<Person>()) { $0.name = row } } }
///     try await unsafe.commit()
/// }
/// await unsafe.end()
/// ```
/// It holds the writer from ``DataStack/beginUnsafe()`` until ``end()`` (or until it is released, or
/// its stack closes, which rolls back what was not committed):
/// other transactions wait, reads go on and see only committed work. Each ``perform(_:)`` block runs
/// in a savepoint: a block that throws (or calls ``Transaction/cancel()``) leaves no trace, and the
/// uncommitted work before it stays, unless SQLite rolled the whole transaction back on the block's
/// error (a full disk or an I/O error in a write, an interrupt at some points) or the block's work could
/// not be undone: that work is then gone too, and the next ``perform(_:)`` or ``commit()`` throws that
/// error, once.
/// Ending it, or letting it go, rolls back whatever was not committed.
public final class UnsafeTransaction: Sendable {
    private let writer: Writer
    let token: UInt64
    /// Its `strata.unsafe_transaction` span, with a tracer (the writer ends it).
    let span: (any Span)?

    init(writer: Writer, token: UInt64, span: (any Span)?) {
        self.writer = writer
        self.token = token
        self.span = span
    }

    deinit {
        let writer = self.writer
        let token = self.token
        Task { await writer.endUnsafe(token) }
    }

    /// Runs a block of work in the transaction, without committing it.
    @discardableResult
    public func perform<T: Sendable>(_ body: @Sendable (Transaction) throws -> T) async throws -> T {
        try await writer.performUnsafe(token, body)
    }

    /// Commits the work done so far and keeps the transaction open for more.
    ///
    /// - Returns: The changes that were committed.
    @discardableResult
    public func commit() async throws -> ChangeSet {
        try await writer.commitUnsafe(token)
    }

    /// Rolls back the work done since the last commit and keeps the transaction open.
    public func rollback() async throws {
        try await writer.rollbackUnsafe(token)
    }

    /// Whether there is uncommitted work.
    public var hasChanges: Bool {
        get async throws { try await writer.unsafeHasChanges(token) }
    }

    /// Rolls back uncommitted work and gives the writer back to other transactions.
    public func end() async {
        await writer.endUnsafe(token)
    }
}
