import Synchronization
import Logging

/// The writer: the only connection that writes, on an executor of its own.
///
/// Transactions are synchronous closures, so one runs from `BEGIN` to `COMMIT` without suspending and
/// actor reentrancy can never interleave two of them. The only suspension is waiting for the turn,
/// which an unsafe transaction holds across its awaits; turns are handed out first come, first served.
actor Writer {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    nonisolated let interruptHandle: InterruptHandle

    private let connection: Connection
    private let store: StoreContext
    private let feed: CommitFeed
    private let files: StoreFiles
    private let logger: Logger

    private var lastDataVersion: Int64?
    /// Assigns the IDs of created objects.
    private let ids = IDAllocator()
    private var isTurnTaken = false
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextWaiter: UInt64 = 0
    private var unsafeTransaction: (token: UInt64, transaction: Transaction)?
    private var nextToken: UInt64 = 1

    /// Opens the write connection on its own executor and prepares the schema there.
    static func open(
        files: StoreFiles, options: Connection.Options, store: StoreContext, feed: CommitFeed, logger: Logger
    ) async throws -> Writer {
        let schema = store.schema
        let connection = try await OffPool.run { () throws -> sending Connection in
            let connection = try Connection(path: files.path, options: options)
            try SchemaSetup.prepare(connection, schema: schema)
            return connection
        }
        let executor = ThreadExecutor(label: "strata.writer")
        logger.debug("opened writer", metadata: ["strata.path": "\(files.path)", "strata.schema": "\(schema.version)"])
        return Writer(executor: executor, connection: connection, store: store, feed: feed, files: files, logger: logger)
    }

    private init(
        executor: ThreadExecutor, connection: sending Connection, store: StoreContext, feed: CommitFeed,
        files: StoreFiles, logger: Logger
    ) {
        self.executor = executor
        self.interruptHandle = connection.interruptHandle
        self.connection = connection
        self.store = store
        self.feed = feed
        self.files = files
        self.logger = logger
    }

    deinit {
        executor.stop()
    }

    // MARK: Turns

    /// Waits for the writer's turn. Returns `false` when the task was cancelled while waiting (it then
    /// does not hold the turn); a wait that must not be abandoned passes `cancellable: false`.
    private func takeTurn(cancellable: Bool = true) async -> Bool {
        if !isTurnTaken {
            isTurnTaken = true
            return true
        }
        let id = nextWaiter
        nextWaiter += 1
        guard cancellable else {
            return await withCheckedContinuation { waiters.append((id, $0)) }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { waiters.append((id, $0)) }
        } onCancel: {
            Task { await self.abandonWait(id) }
        }
    }

    private func abandonWait(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: false)
    }

    private func passTurn() {
        if waiters.isEmpty {
            isTurnTaken = false
        } else {
            waiters.removeFirst().continuation.resume(returning: true)
        }
    }

    /// Waits for the running transaction (and any queued before), then closes the connection.
    /// Transactions queued after the close throw ``StrataError/Code/stackClosed``.
    func close() async {
        _ = await takeTurn(cancellable: false)
        rollback()
        unsafeTransaction?.transaction.isOpen = false
        unsafeTransaction = nil
        connection.close()
        passTurn()
    }

    // MARK: External changes

    /// Whether another connection (another process or stack) committed since the last check: the writer
    /// connection's `PRAGMA data_version` changes exactly then, never for its own commits.
    func externalChangeCheck() throws -> Bool {
        guard let version = try connection.dataVersion() else { return false }
        defer { lastDataVersion = version }
        guard let lastDataVersion else { return false }
        return version != lastDataVersion
    }

    // MARK: Transactions

    /// Runs a transaction. When the writer is free, the transaction is handed off to its thread (see
    /// ``ThreadExecutor/handOff(spin:_:)``), so that a short one returns without a wake-up; otherwise
    /// it waits for its turn like any actor call.
    nonisolated func perform<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T {
        try Task.checkCancellation()
        let cancellation = BodyCancellation(interruptHandle)
        let outcome: HandOffOutcome<T> = await withTaskCancellationHandler {
            await executor.handOff(spin: Writer.handOffSpin) {
                self.assumeIsolated { writer in writer.performIfFree(body, cancellation) }
            }
        } onCancel: {
            cancellation.cancel()
        }
        switch outcome {
        case .finished(let result): return try result.get()
        case .busy: return try await performInTurn(body)
        }
    }

    /// How long a caller waits for a transaction's result before it suspends.
    static let handOffSpin = Duration.microseconds(250)

    /// Runs the transaction at once if no other holds the turn (one that waits, or an unsafe transaction).
    private func performIfFree<T: Sendable>(
        _ body: (Transaction) throws -> T, _ cancellation: BodyCancellation
    ) -> HandOffOutcome<T> {
        guard !isTurnTaken else { return .busy }
        return .finished(runTransaction(body, cancellation))
    }

    /// Waits for the turn, then runs the transaction.
    private func performInTurn<T: Sendable>(_ body: @Sendable (Transaction) throws -> T) async throws -> T {
        try Task.checkCancellation()
        guard await takeTurn() else { throw CancellationError() }
        defer { passTurn() }
        let cancellation = BodyCancellation(interruptHandle)
        // The operation calls an isolated method so that it runs on the writer's executor (a nonisolated
        // async closure would run on the global pool).
        return try await withTaskCancellationHandler {
            self.runTransaction(body, cancellation)
        } onCancel: {
            cancellation.cancel()
        }.get()
    }

    /// Begins a transaction, runs the body and commits, or rolls back. Only the body can be
    /// interrupted: once the commit has started, it completes.
    private func runTransaction<T: Sendable>(
        _ body: (Transaction) throws -> T, _ cancellation: BodyCancellation
    ) -> Result<T, any Error> {
        guard !cancellation.isCancelled else { return .failure(CancellationError()) }
        do {
            try begin()
        } catch {
            return .failure(error)
        }
        let transaction = Transaction(connection: connection, store: store, ids: ids)
        defer { transaction.isOpen = false }
        do {
            let result = try cancellation.whileInterruptible { try body(transaction) }
            if cancellation.isCancelled { throw CancellationError() }
            try commit(transaction.changes)
            return .success(result)
        } catch {
            rollback()
            if let strata = error as? StrataError, strata.code == .transactionCancelled { return .failure(error) }
            return .failure(cancellation.isCancelled ? CancellationError() : error)
        }
    }

    /// The error to report: a cancelled task reports `CancellationError`, whatever SQLite said.
    private static func cancellationOrError(_ error: any Error) -> any Error {
        if let strata = error as? StrataError, strata.code == .transactionCancelled { return error }
        return Task.isCancelled ? CancellationError() : error
    }

    private func begin() throws(StrataError) {
        let statement = try connection.statement(.beginImmediate)
        while try statement.step() {}
        do {
            try ids.checkExternalChanges(connection)
        } catch {
            rollback()
            throw error
        }
    }

    private func commit(_ changes: ChangeSet) throws(StrataError) {
        try ids.saveMarks(connection)
        let statement = try connection.statement(.commit)
        while try statement.step() {}
        if !changes.isEmpty {
            logger.trace("committed", metadata: ["strata.entities": "\(changes.changedEntityNames.sorted())"])
            feed.publish(changes)
        }
    }

    private func rollback() {
        ids.transactionEnded()
        guard connection.isInTransaction else { return }
        do {
            let statement = try connection.statement(.rollback)
            while try statement.step() {}
        } catch {
            logger.error("rollback failed", metadata: ["strata.error": "\(error)"])
        }
    }

    // MARK: Unsafe transactions

    func beginUnsafe() async throws -> UInt64 {
        try Task.checkCancellation()
        guard await takeTurn() else { throw CancellationError() }
        if connection.isClosed {
            passTurn()
            throw Connection.closedError
        }
        let token = nextToken
        nextToken += 1
        unsafeTransaction = (token, Transaction(connection: connection, store: store, ids: ids))
        return token
    }

    private func unsafe(_ token: UInt64) throws(StrataError) -> Transaction {
        guard let unsafeTransaction, unsafeTransaction.token == token else {
            throw StrataError(.transactionClosed, "This unsafe transaction has ended; begin a new one.")
        }
        return unsafeTransaction.transaction
    }

    func performUnsafe<T: Sendable>(_ token: UInt64, _ body: @Sendable (Transaction) throws -> T) async throws -> T {
        let transaction = try unsafe(token)
        try Task.checkCancellation()
        if !connection.isInTransaction { try begin() }
        let handle = interruptHandle
        defer { handle.reset() }
        return try await withTaskCancellationHandler {
            try runSavepoint(transaction, body)
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
            try connection.execute("RELEASE strata_block")
            return result
        } catch {
            transaction.changes = changesBefore
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
                try commit(changes)
            } catch {
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
        guard let unsafeTransaction, unsafeTransaction.token == token else { return }
        rollback()
        unsafeTransaction.transaction.isOpen = false
        self.unsafeTransaction = nil
        passTurn()
    }

    /// Whether an unsafe transaction holds uncommitted changes.
    func unsafeHasChanges(_ token: UInt64) throws -> Bool {
        try unsafe(token).hasChanges
    }
}

/// What a handed-off transaction came to: a result, or the news that another transaction holds the turn.
private enum HandOffOutcome<T: Sendable>: Sendable {
    case finished(Result<T, any Error>)
    case busy
}

/// Task cancellation for a transaction handed off to the writer's thread, where `Task.isCancelled`
/// does not reach: cancelling raises a flag, and interrupts SQLite only while the body runs (never the
/// commit).
private final class BodyCancellation: Sendable {
    private struct State {
        var isCancelled = false
        var isInBody = false
    }

    private let state = Mutex(State())
    private let handle: InterruptHandle

    init(_ handle: InterruptHandle) {
        self.handle = handle
    }

    var isCancelled: Bool { state.withLock { $0.isCancelled } }

    func cancel() {
        state.withLock { state in
            state.isCancelled = true
            if state.isInBody { handle.interrupt() }
        }
    }

    /// Runs `body` where ``cancel()`` interrupts it.
    func whileInterruptible<T>(_ body: () throws -> T) rethrows -> T {
        state.withLock { $0.isInBody = true }
        defer {
            state.withLock { $0.isInBody = false }
            handle.reset()
        }
        return try body()
    }
}
