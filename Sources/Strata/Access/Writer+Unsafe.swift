import CoreMetrics
import Tracing
import Logging
import Synchronization

/// Unsafe transactions: one holds the writer's turn across its caller's awaits, runs each block in a
/// savepoint, and commits when its owner says so (see ``DataStack/beginUnsafe()``).
///
/// With a tracer, one `strata.unsafe_transaction` span covers the whole of it, from the wait for the
/// turn to its end: how long it held the writer (which every other transaction waited for) is what it
/// costs the app, and a span per block and per commit would bury that under thousands of spans in a
/// chunked import. The span counts the commits (`strata.commits`), the statements the blocks ran and
/// the entities they changed; it records the errors blocks threw and, as its error status, a failed
/// commit.
extension Writer {
    /// Waits for the turn and starts an unsafe transaction; returns its token and its span.
    nonisolated func beginUnsafe() async throws -> (token: UInt64, span: (any Span)?) {
        let span = tracer?.start("strata.unsafe_transaction")
        do {
            try await countingNotBegun {
                try Task.checkCancellation()
                try checkNotHoldingUnsafe()
                try await takeTurn()
            }
            return (try await startUnsafe(span: span), span)
        } catch {
            if let span { StackTracer.finish(span, error: error) }
            throw error
        }
    }

    /// Starts an unsafe transaction for a caller that holds the turn.
    private func startUnsafe(span: (any Span)?) throws -> UInt64 {
        // Once closing has begun, an unsafe transaction (even one queued before) would hold the writer
        // past the close: it is refused, where a queued transaction still runs.
        if connection.isClosed || isClosing.load(ordering: .acquiring) {
            passTurn()
            throw Connection.closedError
        }
        let token = nextToken
        nextToken += 1
        unsafeTransaction = UnsafeHold(
            token: token, transaction: Transaction(
                connection: connection, store: store, ids: ids, preserved: preserved, routes: routes,
                splitsChanges: history?.isPerStore ?? false, lockObserver: lockObserver),
            span: span)
        openUnsafeToken.withLock { $0 = token }
        return token
    }

    /// The unsafe transaction of `token`.
    private func unsafe(_ token: UInt64) throws(StrataError) -> Transaction {
        guard let hold = unsafeTransaction, hold.token == token else {
            if isClosing.load(ordering: .acquiring) { throw Connection.closedError }
            throw StrataError(.transactionClosed, "This unsafe transaction has ended; begin a new one.")
        }
        return hold.transaction
    }

    func performUnsafe<T: Sendable>(_ token: UInt64, _ body: @Sendable (Transaction) throws -> T) async throws -> T {
        let transaction = try unsafe(token)
        try Task.checkCancellation()
        try reportLoss(transaction)
        let handle = interruptHandle
        handle.arm()
        defer { handle.disarm() }
        // Both the wait at BEGIN for another connection's lock and the block stop at cancellation.
        return try await withTaskCancellationHandler {
            do {
                if !self.connection.isInTransaction { try self.begin() }
            } catch {
                throw Self.cancellationOrError(error)
            }
            return try self.runSavepoint(transaction, body)
        } onCancel: {
            handle.interrupt()
        }
    }

    /// Runs one block of an unsafe transaction in a savepoint, so a block that throws leaves no trace
    /// while the uncommitted work before it stays.
    private func runSavepoint<T>(_ transaction: Transaction, _ body: (Transaction) throws -> T) throws -> T {
        let changesBefore = transaction.changes
        let storeChangesBefore = transaction.storeChanges
        try connection.execute("SAVEPOINT strata_block")
        let statementsBefore = connection.statementCount
        do {
            let result = try body(transaction)
            // A block that cancelled (`tx.cancel()`, its error caught in the block) or broke its
            // transaction ends like one that threw: rolled back alone.
            if let broken = transaction.broken { throw broken }
            noteBlock(statements: connection.statementCount &- statementsBefore, changes: transaction.changes, error: nil)
            connection.resetActiveStatements()
            try connection.execute("RELEASE strata_block")
            return result
        } catch {
            let reported = Self.cancellationOrError(error)
            noteBlock(statements: connection.statementCount &- statementsBefore, changes: nil, error: reported)
            connection.resetActiveStatements()
            if let lost = connection.lostWrite {
                // SQLite rolled back the whole transaction, the earlier blocks' uncommitted work with it:
                // nothing is left to commit, and the next `perform` or `commit` says so (once).
                transaction.clearChanges()
                transaction.lostWork = lost
                rollback()
            } else {
                transaction.changes = changesBefore
                transaction.storeChanges = storeChangesBefore
                // A cancellation that comes now must not stop the undoing of the block.
                interruptHandle.disarm()
                do {
                    if connection.isInTransaction {
                        try connection.execute("ROLLBACK TO strata_block")
                        try connection.execute("RELEASE strata_block")
                    }
                } catch {
                    // The block's writes could not be undone, and committing would keep them without
                    // their changes: the whole transaction is rolled back, as when SQLite does it, and
                    // the next `perform` or `commit` says so (once).
                    transaction.clearChanges()
                    transaction.lostWork = StrataError(
                        error.code,
                        "A block of the unsafe transaction failed and its work could not be undone (\(error.message)), so "
                            + "the transaction's uncommitted work was rolled back. Redo it from the last commit.",
                        sqliteCode: error.sqliteCode, extendedCode: error.extendedCode)
                    rollback()
                }
                // The block left no trace (or the whole uncommitted work is gone): the transaction goes on,
                // whatever the block did to it.
                transaction.broken = nil
                transaction.isOpen = true
            }
            throw reported
        }
    }

    /// Throws, once, the error after which SQLite rolled back the unsafe transaction's uncommitted work
    /// (see `runSavepoint`), so that its owner learns that the work of blocks that succeeded is gone.
    private func reportLoss(_ transaction: Transaction) throws(StrataError) {
        guard let lost = transaction.lostWork else { return }
        transaction.lostWork = nil
        throw lost
    }

    /// Adds a block's statements and changed entities to the unsafe transaction's span, and records the
    /// error it threw there (the block left no trace, the transaction goes on: not an error status).
    private func noteBlock(statements: Int, changes: ChangeSet?, error: (any Error)?) {
        guard let span = unsafeTransaction?.span else { return }
        unsafeTransaction?.statements &+= statements
        if let changes { unsafeTransaction?.entities.formUnion(changes.changedEntityNames) }
        if let error { span.recordError(StackTracer.RecordedError(error)) }
    }

    func commitUnsafe(_ token: UInt64) throws -> ChangeSet {
        let transaction = try unsafe(token)
        try reportLoss(transaction)
        // As a transaction checks before its COMMIT: a cancelled task commits nothing (the work stays).
        try Task.checkCancellation()
        let changes = transaction.changes
        if connection.isInTransaction {
            do {
                connection.resetActiveStatements()
                try commit(transaction)
                metrics?.committed.increment()
                if unsafeTransaction?.span != nil { unsafeTransaction?.commits += 1 }
            } catch {
                metrics?.failed.increment()
                if let span = unsafeTransaction?.span {
                    span.recordError(StackTracer.RecordedError(error))
                    span.setStatus(SpanStatus(code: .error))
                }
                rollback()
                transaction.clearChanges()
                throw error
            }
        }
        transaction.clearChanges()
        return changes
    }

    func rollbackUnsafe(_ token: UInt64) throws {
        let transaction = try unsafe(token)
        rollback()
        transaction.clearChanges()
        transaction.lostWork = nil
    }

    func endUnsafe(_ token: UInt64) {
        guard let hold = unsafeTransaction, hold.token == token else { return }
        rollback()
        hold.transaction.isOpen = false
        unsafeTransaction = nil
        openUnsafeToken.withLock { $0 = nil }
        passTurn()
        hold.finishSpan()
    }

    /// Whether an unsafe transaction holds uncommitted changes.
    func unsafeHasChanges(_ token: UInt64) throws -> Bool {
        try unsafe(token).hasChanges
    }

    /// Logs a warning once the wait for the turn an unsafe transaction holds passes the long-wait
    /// threshold (if the wait lasts that long: the task is cancelled when it ends); `nil` when long
    /// waits are not logged.
    nonisolated func unsafeWaitWarning() -> Task<Void, Never>? {
        guard let threshold = waitLog.threshold else { return nil }
        let logger = self.logger
        return Task {
            do {
                // A timer, not a wait for an event: the warning is due once the wait has lasted this
                // long, and the task is cancelled (the sleep throws) as soon as the wait ends.
                try await Task.sleep(for: threshold)
            } catch {
                return
            }
            let message = "waiting for the writer, which an unsafe transaction holds: a task that holds one (begun "
                + "with beginUnsafe(), or inside withUnsafeTransaction awaiting a detached task) and awaits a "
                + "transaction before ending it waits forever; end the unsafe transaction first"
            logger.warning(
                "\(message)",
                metadata: ["strata.pool": "strata.writer", "strata.wait": "\(threshold)"])
        }
    }

    // MARK: Reentrancy

    /// A transaction of this stack awaited inside ``DataStack/withUnsafeTransaction(_:)`` (or a task
    /// started there) while that unsafe transaction is open would wait for the turn it holds, forever:
    /// it throws instead.
    ///
    /// Only the scope's task-local value tells: Swift gives a task no identity that outlives it (its
    /// address is reused by later tasks), so a check by task would refuse unrelated tasks.
    nonisolated func checkNotHoldingUnsafe() throws(StrataError) {
        guard let scope = UnsafeTransactionScope.current, scope.writer === self,
            openUnsafeToken.withLock({ $0 }) == scope.token
        else { return }
        throw StrataError(
            .reentrantTransaction,
            "This task runs inside an unsafe transaction of the same stack (withUnsafeTransaction), so a "
                + "transaction would wait for it forever. Do the work in the unsafe transaction's perform, or "
                + "after withUnsafeTransaction returns.")
    }
}

/// The unsafe transaction whose ``DataStack/withUnsafeTransaction(_:)`` closure the current task runs
/// in (child tasks and tasks started there inherit it; it counts while that transaction is open).
enum UnsafeTransactionScope {
    struct Scope: Sendable {
        let writer: Writer
        let token: UInt64
    }

    @TaskLocal static var current: Scope?
}
