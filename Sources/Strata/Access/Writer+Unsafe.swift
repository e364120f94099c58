import CoreMetrics

/// Unsafe transactions: one holds the writer's turn across its caller's awaits, runs each block in a
/// savepoint, and commits when its owner says so (see ``DataStack/beginUnsafe()``).
extension Writer {
    nonisolated func beginUnsafe() async throws -> UInt64 {
        try Task.checkCancellation()
        try checkNotHoldingUnsafe()
        try await takeTurn()
        return try await startUnsafe(holder: Self.currentTask)
    }

    /// Starts an unsafe transaction for a caller that holds the turn.
    private func startUnsafe(holder: Int?) throws -> UInt64 {
        if connection.isClosed {
            passTurn()
            throw Connection.closedError
        }
        let token = nextToken
        nextToken += 1
        unsafeTransaction = UnsafeHold(
            token: token, transaction: Transaction(connection: connection, store: store, ids: ids, preserved: preserved))
        unsafeHolder.withLock { $0 = holder }
        return token
    }

    /// The unsafe transaction of `token`, noting the calling task as the one that holds it.
    private func unsafe(_ token: UInt64) throws(StrataError) -> Transaction {
        guard let hold = unsafeTransaction, hold.token == token else {
            throw StrataError(.transactionClosed, "This unsafe transaction has ended; begin a new one.")
        }
        let current = Self.currentTask
        unsafeHolder.withLock { $0 = current }
        return hold.transaction
    }

    func performUnsafe<T: Sendable>(_ token: UInt64, _ body: @Sendable (Transaction) throws -> T) async throws -> T {
        let transaction = try unsafe(token)
        try Task.checkCancellation()
        if !connection.isInTransaction { try begin() }
        let handle = interruptHandle
        handle.arm()
        defer { handle.disarm() }
        return try await withTaskCancellationHandler {
            try self.runSavepoint(transaction, body)
        } onCancel: {
            handle.interrupt()
        }
    }

    /// Runs one block of an unsafe transaction in a savepoint, so a block that throws leaves no trace
    /// while the uncommitted work before it stays.
    private func runSavepoint<T>(_ transaction: Transaction, _ body: (Transaction) throws -> T) throws -> T {
        let changesBefore = transaction.changes
        try connection.execute("SAVEPOINT strata_block")
        do {
            let result = try body(transaction)
            connection.resetActiveStatements()
            try connection.execute("RELEASE strata_block")
            return result
        } catch {
            transaction.changes = changesBefore
            connection.resetActiveStatements()
            if connection.isInTransaction {
                try? connection.execute("ROLLBACK TO strata_block")
                try? connection.execute("RELEASE strata_block")
            }
            throw Self.cancellationOrError(error)
        }
    }

    func commitUnsafe(_ token: UInt64) throws -> ChangeSet {
        let transaction = try unsafe(token)
        let changes = transaction.changes
        if connection.isInTransaction {
            do {
                connection.resetActiveStatements()
                try commit(changes)
                metrics?.committed.increment()
            } catch {
                metrics?.failed.increment()
                rollback()
                transaction.changes = ChangeSet()
                throw error
            }
        }
        transaction.changes = ChangeSet()
        return changes
    }

    func rollbackUnsafe(_ token: UInt64) throws {
        let transaction = try unsafe(token)
        rollback()
        transaction.changes = ChangeSet()
    }

    func endUnsafe(_ token: UInt64) {
        guard let hold = unsafeTransaction, hold.token == token else { return }
        rollback()
        hold.transaction.isOpen = false
        unsafeTransaction = nil
        unsafeHolder.withLock { $0 = nil }
        passTurn()
    }

    /// Whether an unsafe transaction holds uncommitted changes.
    func unsafeHasChanges(_ token: UInt64) throws -> Bool {
        try unsafe(token).hasChanges
    }
}
