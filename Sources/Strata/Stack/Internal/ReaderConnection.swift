/// One read-only connection of the reader pool, on an executor of its own.
actor ReaderConnection {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    nonisolated let interruptHandle: InterruptHandle

    private let connection: Connection
    private let files: StoreFiles
    private var cursor: Statement?

    /// Opens a read-only connection on its own executor.
    static func open(files: StoreFiles, options: Connection.Options, number: Int) async throws -> ReaderConnection {
        let connection = try await OffPool.run { () throws -> sending Connection in
            try Connection(path: files.path, options: options)
        }
        let executor = ThreadExecutor(label: "strata.reader.\(number)")
        return ReaderConnection(executor: executor, connection: connection, files: files)
    }

    private init(executor: ThreadExecutor, connection: sending Connection, files: StoreFiles) {
        self.executor = executor
        self.interruptHandle = connection.interruptHandle
        self.connection = connection
        self.files = files
    }

    deinit {
        executor.stop()
    }

    /// Closes the connection.
    func close() {
        connection.close()
    }

    /// Runs a read. Single statements run in SQLite's implicit transaction, which is consistent by
    /// itself; ``readInTransaction(_:)`` wraps several statements in one.
    func read<T: Sendable>(_ body: @Sendable (Connection) throws -> T) throws -> T {
        try body(connection)
    }

    /// Runs several statements in one read transaction, so they all see one committed state.
    func readInTransaction<T: Sendable>(_ body: @Sendable (Connection) throws -> T) throws -> T {
        let begin = try connection.statement(.beginDeferred)
        while try begin.step() {}
        defer {
            if let end = try? connection.statement(.commit) {
                while (try? end.step()) == true {}
            }
        }
        return try body(connection)
    }

    /// Runs a read like ``read(_:)`` or ``readInTransaction(_:)``, handed off to the reader's thread
    /// (see ``ThreadExecutor/handOff(spin:_:)``) rather than through an actor hop, so that a short read
    /// returns to its caller without a wake-up.
    nonisolated func handOffRead<T: Sendable>(
        inTransaction: Bool, _ body: @Sendable @escaping (Connection) throws -> T
    ) async throws -> T {
        let result: Result<T, any Error> = await executor.handOff(spin: ReaderConnection.handOffSpin) {
            self.assumeIsolated { reader in
                Result { inTransaction ? try reader.readInTransaction(body) : try reader.read(body) }
            }
        }
        return try result.get()
    }

    /// Runs `work` with the connection on the reader's thread, in order with its other work, without
    /// waiting for it: for observation fetches, whose results go to their consumers from there.
    nonisolated func execute(_ work: @escaping @Sendable (Connection) -> Void) {
        executor.execute {
            self.assumeIsolated { reader in work(reader.connection) }
        }
    }

    /// How long a caller waits for a read's result before it suspends.
    static let handOffSpin = Duration.microseconds(250)

    // MARK: Cursors

    /// Starts a read transaction and prepares a statement that ``nextBatch(_:count:)`` steps through.
    /// One cursor at a time: the pool lends this reader to the cursor's owner alone.
    func openCursor(_ query: SQLQuery) throws {
        closeCursor()
        let begin = try connection.statement(.beginDeferred)
        while try begin.step() {}
        do {
            let statement = try connection.makeStatement(query.sql)
            try statement.bind(query.bindings)
            cursor = statement
        } catch {
            closeCursor()
            throw error
        }
    }

    /// Decodes up to `count` more objects from the open cursor.
    func nextBatch<E: Entity>(_ type: E.Type, count: Int) throws -> [E] {
        guard let statement = cursor else { return [] }
        var batch: [E] = []
        batch.reserveCapacity(count)
        let row = Row(statement: statement)
        do {
            while batch.count < count, try statement.step() {
                batch.append(try E(row: row))
            }
        } catch let error as StrataError {
            closeCursor()
            throw error.with(entity: E.entityDescription.name)
        }
        return batch
    }

    /// Finalizes the cursor's statement and ends its read transaction.
    func closeCursor() {
        cursor = nil
        if connection.isInTransaction, let end = try? connection.cachedStatement("COMMIT") {
            while (try? end.step()) == true {}
        }
    }
}
