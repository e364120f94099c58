/// One read-only connection, on an executor of its own: a reader of the pool, or the cursor of a
/// ``FetchBatches`` stream.
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
        connection.close()
        executor.stop()
    }

    // MARK: Leases

    /// Runs `body` in one read transaction, then gives the connection back to `pool` clean (or discards
    /// it when it cannot be cleaned). The pool lent this connection to the caller alone.
    func lease<T: Sendable>(
        returningTo pool: ReaderPool, _ body: @Sendable (Connection) throws -> T
    ) async throws -> T {
        let result = await interruptible { reader in Result { try reader.readTransaction(body) } }
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
    /// rolled back.
    private func readTransaction<T>(_ body: (Connection) throws -> T) throws -> T {
        try Task.checkCancellation()
        try connection.run(.beginDeferred)
        do {
            let result = try body(connection)
            connection.resetActiveStatements()
            try connection.run(.commit)
            return result
        } catch {
            endTransaction()
            if Task.isCancelled { throw CancellationError() }
            throw error
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
                try reader.connection.run(.beginDeferred)
                let statement = try reader.connection.makeStatement(query.sql)
                try statement.bind(query.bindings)
                reader.cursor = statement
            }
        }.mapError { error -> any Error in
            endTransaction()
            return Task.isCancelled ? CancellationError() : error
        }.get()
    }

    /// Decodes up to `count` more objects from the open cursor, and loads what they prefetch.
    func nextBatch<E: Entity>(
        _ type: E.Type, count: Int, prefetch: (@Sendable (inout [E], Connection) throws -> Void)?
    ) async throws -> [E] {
        try await interruptible { reader in
            Result { () throws -> [E] in
                guard let statement = reader.cursor else { return [] }
                try Task.checkCancellation()
                var batch: [E] = []
                batch.reserveCapacity(count)
                let row = Row(statement: statement)
                do {
                    while batch.count < count, try statement.step() {
                        batch.append(try E(row: row))
                    }
                } catch let error as StrataError {
                    throw error.with(entity: E.entityDescription.name)
                }
                if let prefetch, !batch.isEmpty { try prefetch(&batch, reader.connection) }
                return batch
            }
        }.mapError { error -> any Error in
            endTransaction()
            return Task.isCancelled ? CancellationError() : error
        }.get()
    }

    /// Finalizes the cursor's statement, ends its read transaction and gives the connection back to
    /// `pool` (or discards it).
    func closeCursor(returningTo pool: ReaderPool) {
        endTransaction()
        returnClean(to: pool)
    }
}
