import Tracing

/// One read-only connection, on an executor of its own: a reader of the pool, the cursor of a
/// ``FetchBatches`` stream, or the connection of a ``ReadGeneration``.
///
/// Its methods run inside the calling task, isolated to the connection's thread: task-locals,
/// `Task.isCancelled` and priority are the caller's, and cancelling the task interrupts the statement
/// that is running. Every access is one read transaction, and the connection is left clean after it
/// (no statement active, no transaction open), or closed when it cannot be.
actor ReaderConnection {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    nonisolated let interruptHandle: InterruptHandle

    private let connection: Connection
    private let files: StoreFiles
    private var cursor: Statement?
    /// The token of the read generation whose read transaction stays open on this connection, if any.
    private var pin: UInt64?

    /// Opens a read-only connection on its own executor.
    static func open(files: StoreFiles, options: Connection.Options, label: String) async throws -> ReaderConnection {
        let connection = try await OffPool.run { () throws -> sending Connection in
            try Connection(path: files.path, options: options)
        }
        let executor = ThreadExecutor(label: label)
        return ReaderConnection(executor: executor, connection: connection, files: files)
    }

    private init(executor: ThreadExecutor, connection: sending Connection, files: StoreFiles) {
        self.executor = executor
        self.interruptHandle = connection.interruptHandle
        self.connection = connection
        self.files = files
    }

    isolated deinit {
        connection.close()
        executor.stop()
    }

    /// Closes the connection and stops the executor's thread (the actor's owner calls it once, when
    /// the pool closes).
    func close() {
        cursor = nil
        pin = nil
        connection.close()
        executor.stop()
    }

    // MARK: Leases

    /// Runs `body` in one read transaction, then gives the connection back to `pool` clean (or discards
    /// it when it cannot be cleaned). The pool lent this connection to the caller alone. With a `span`,
    /// the body runs in its context, and the statements it ran are set on it.
    func lease<T: Sendable>(
        returningTo pool: ReaderPool, span: (any Span)? = nil, oneStore: Bool = false, _ body: @Sendable (Connection) throws -> T
    ) async throws -> T {
        let result = await interruptible { reader in Result { try reader.readTransaction(span: span, oneStore: oneStore, body) } }
        returnClean(to: pool)
        return try result.get()
    }

    /// Runs `body` where cancelling the task interrupts SQLite.
    ///
    /// The operation captures `self`, which isolates it to this actor: a closure that captured nothing
    /// isolated would run on the global executor.
    private func interruptible<T>(_ body: (isolated ReaderConnection) -> T) async -> T {
        let handle = interruptHandle
        handle.arm()
        defer { handle.disarm() }
        return await withTaskCancellationHandler {
            body(self)
        } onCancel: {
            handle.interrupt()
        }
    }

    /// `BEGIN DEFERRED`, the body, `COMMIT`; on any error every statement is reset and the transaction
    /// rolled back. A value the body could not decode because another stack migrated the store throws
    /// `schemaMismatch` (see ``Connection/explainingMigration(_:)``).
    private func readTransaction<T>(span: (any Span)?, oneStore: Bool = false, _ body: (Connection) throws -> T) throws -> T {
        try Task.checkCancellation()
        try connection.beginRead(oneStore: oneStore)
        let statementsBefore = connection.statementCount
        defer { span?.setStrataAttributes(statements: connection.statementCount &- statementsBefore, entities: []) }
        do {
            let result = try StackTracer.within(span) { try body(connection) }
            connection.resetActiveStatements()
            try connection.run(.commit)
            return result
        } catch {
            let explained = connection.explainingMigration(error)
            endTransaction()
            if Task.isCancelled { throw CancellationError() }
            throw explained
        }
    }

    /// Resets every statement and ends the read transaction, whatever state it is in.
    private func endTransaction() {
        cursor = nil
        connection.resetActiveStatements()
        if connection.isInTransaction { try? connection.run(.rollback) }
    }

    /// Gives the connection back to `pool` if it is clean; closes it otherwise (or when the pool closed).
    private func returnClean(to pool: ReaderPool) {
        if isClean() {
            if !pool.giveBack(self) { close() }
        } else {
            close()
            pool.discard(self)
        }
    }

    /// Whether the connection can go back to its pool: open, no active statement, no transaction.
    private func isClean() -> Bool {
        if connection.isClosed { return false }
        if connection.resetActiveStatements() > 0 || connection.isInTransaction {
            endTransaction()
        }
        return !connection.isInTransaction
    }

    // MARK: Cursors

    /// Starts a read transaction and prepares a statement that ``nextBatch(_:count:prefetch:)`` steps
    /// through. The transaction stays open between batches, so every batch sees one committed state.
    func openCursor(_ query: SQLQuery) async throws {
        endTransaction()
        try await interruptible { reader in
            Result { () throws -> Void in
                try Task.checkCancellation()
                try reader.connection.beginRead()
                let statement = try reader.connection.makeStatement(query.sql)
                statement.tagColumn = query.tagColumn
                try statement.bind(query.bindings)
                reader.cursor = statement
            }
        }.mapError { error -> any Error in
            endTransaction()
            return Task.isCancelled ? CancellationError() : error
        }.get()
    }

    /// Decodes up to `count` more objects from the open cursor, and loads what they prefetch; returns
    /// them with the number of statements the prefetch ran.
    func nextBatch<E: Entity>(
        _ type: E.Type, count: Int, prefetch: (@Sendable (inout [E], Connection) throws -> Void)?
    ) async throws -> (objects: [E], statements: Int) {
        try await interruptible { reader in
            Result { () throws -> (objects: [E], statements: Int) in
                guard let statement = reader.cursor else {
                    // The stack closed the connection between two batches: the rest is not read.
                    if reader.connection.isClosed { throw Connection.closedError }
                    return ([], 0)
                }
                try Task.checkCancellation()
                var batch: [E] = []
                // A batch size may be far larger than the rows there are (`.max` for "all"): reserved
                // up to a bound, grown past it as rows come.
                batch.reserveCapacity(Swift.min(count, 4_096))
                // A row of a read across stores reads its store's tag; otherwise one row reader serves all.
                let perRow = statement.tagColumn >= 0
                var row = Row(statement: statement)
                do {
                    while batch.count < count, try statement.step() {
                        if perRow { row = Row(statement: statement) }
                        batch.append(try E(row: row))
                    }
                } catch let error as StrataError {
                    throw error.with(entity: E.entityDescription.name)
                }
                let statementsBefore = reader.connection.statementCount
                if let prefetch, !batch.isEmpty { try prefetch(&batch, reader.connection) }
                return (batch, reader.connection.statementCount &- statementsBefore)
            }
        }.mapError { error -> any Error in
            let explained = connection.explainingMigration(error)
            endTransaction()
            return Task.isCancelled ? CancellationError() : explained
        }.get()
    }

    /// Finalizes the cursor's statement, ends its read transaction, ends the iteration's span (with
    /// `error`, if any) and gives the connection back to `pool` (or discards it). The span ends before
    /// the connection is back, so whoever gets the connection next finds the span ended.
    func closeCursor(returningTo pool: ReaderPool, ending span: (any Span)? = nil, error: (any Error)? = nil) {
        endTransaction()
        if let span { StackTracer.finish(span, error: error) }
        returnClean(to: pool)
    }

    // MARK: Pinned read transactions

    /// Why a read of a pinned transaction did not run, or did not count.
    enum PinFailure: Error {
        /// The connection no longer holds this token's transaction: it was released meanwhile.
        case unpinned
        /// The read transaction ended (SQLite rolls it back after some errors), so reads would see the
        /// latest state, not the pinned one. `underlying` is the error the read threw, if any.
        case transactionLost(underlying: (any Error)?)
    }

    /// Begins a read transaction that stays open across calls, for the holder of `token`, and takes its
    /// snapshot at once: `BEGIN DEFERRED` alone reads nothing, and a WAL snapshot starts with the first
    /// read, so it also reads the schema table. Returns the size of the write-ahead log file then.
    ///
    /// On failure the connection still belongs to `token`'s holder, which gives it back with
    /// ``unpin(_:returningTo:)``.
    func pin(_ token: UInt64) async throws -> Int {
        try await interruptible { reader in
            Result { () throws -> Int in
                reader.endTransaction()
                reader.pin = token
                try reader.beginPinned()
                return reader.files.walFileSize
            }
        }.get()
    }

    /// Ends the pinned read transaction and begins a new one on the latest committed state. Returns the
    /// size of the write-ahead log file then.
    ///
    /// - Throws: ``PinFailure/unpinned`` when the token no longer holds the connection;
    ///   ``PinFailure/transactionLost(underlying:)`` when the new transaction could not begin.
    func repin(_ token: UInt64) async throws -> Int {
        try await interruptible { reader in
            Result { () throws -> Int in
                try reader.checkPinned(token)
                reader.endTransaction()
                do {
                    try reader.beginPinned()
                } catch let error as CancellationError {
                    throw error
                } catch {
                    throw PinFailure.transactionLost(underlying: error)
                }
                return reader.files.walFileSize
            }
        }.get()
    }

    /// Runs `body` in the pinned read transaction of `token`, inside the calling task, and leaves the
    /// transaction open. Every statement is reset afterwards, whatever happened.
    ///
    /// The checks, the body and the reset run in one job of the actor: ``unpin(_:returningTo:)``, called
    /// by another task, runs before or after them, never between (the awaits around the body are
    /// suspension points where it could).
    ///
    /// - Throws: what `body` throws (`schemaMismatch` for a value it cannot decode because another
    ///   stack migrated the store, see ``Connection/explainingMigration(_:)``); ``PinFailure/unpinned``
    ///   when the token no longer holds the connection; ``PinFailure/transactionLost(underlying:)`` when
    ///   the transaction was not open at the end (its result could mix states, so it is not returned).
    ///
    /// With a `span`, the body runs in its context, and the statements it ran are set on it.
    func readPinned<T: Sendable>(
        _ token: UInt64, span: (any Span)? = nil, _ body: @Sendable (Connection) throws -> T
    ) async throws -> T {
        try await interruptible { reader in
            Result { () throws -> T in
                try reader.checkPinned(token)
                guard reader.connection.isInTransaction else { throw PinFailure.transactionLost(underlying: nil) }
                try Task.checkCancellation()
                let statementsBefore = reader.connection.statementCount
                let result = Result { try StackTracer.within(span) { try body(reader.connection) } }
                    .mapError { reader.connection.explainingMigration($0) }
                span?.setStrataAttributes(statements: reader.connection.statementCount &- statementsBefore, entities: [])
                reader.connection.resetActiveStatements()
                guard reader.connection.isInTransaction else {
                    if case .failure(let error) = result { throw PinFailure.transactionLost(underlying: error) }
                    throw PinFailure.transactionLost(underlying: nil)
                }
                return try result.get()
            }
        }.get()
    }

    /// Throws unless the connection is open and holds `token`'s transaction.
    private func checkPinned(_ token: UInt64) throws {
        if connection.isClosed { throw Connection.closedError }
        guard pin == token else { throw PinFailure.unpinned }
    }

    /// `BEGIN DEFERRED` and the read that takes the snapshot; on any error the transaction is ended.
    private func beginPinned() throws {
        do {
            try Task.checkCancellation()
            try connection.beginRead(snapshot: true)
        } catch {
            endTransaction()
            if Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    /// Ends the pinned read transaction of `token` and gives the connection back to `pool` (or discards
    /// it); does nothing when the token no longer holds the connection.
    func unpin(_ token: UInt64, returningTo pool: ReaderPool) {
        guard pin == token else { return }
        pin = nil
        endTransaction()
        returnClean(to: pool)
    }
}
