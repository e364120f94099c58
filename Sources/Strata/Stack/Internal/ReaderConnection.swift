/// One read-only connection of the reader pool, on an executor of its own.
actor ReaderConnection {
    nonisolated let executor: QueueExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    nonisolated let interruptHandle: InterruptHandle

    private let connection: Connection
    private let files: StoreFiles

    /// Opens a read-only connection on its own executor.
    static func open(files: StoreFiles, options: Connection.Options, number: Int) async throws -> ReaderConnection {
        let executor = QueueExecutor(label: "strata.reader.\(number)")
        let connection = try await executor.run { () throws -> sending Connection in
            try Connection(path: files.path, options: options)
        }
        return ReaderConnection(executor: executor, connection: connection, files: files)
    }

    private init(executor: QueueExecutor, connection: sending Connection, files: StoreFiles) {
        self.executor = executor
        self.interruptHandle = connection.interruptHandle
        self.connection = connection
        self.files = files
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
        let begin = try connection.cachedStatement("BEGIN DEFERRED")
        while try begin.step() {}
        defer {
            if let end = try? connection.cachedStatement("COMMIT") {
                while (try? end.step()) == true {}
            }
        }
        return try body(connection)
    }
}
