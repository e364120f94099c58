import CoreMetrics
import Logging
import Synchronization
import Tracing

/// The writer: the only connection that writes, on an executor of its own.
///
/// A transaction runs inside the task that awaits it, isolated to the writer's thread: task-locals,
/// `Task.isCancelled` and priority are the caller's. Its body is a synchronous closure, so it runs from
/// `BEGIN` to `COMMIT` without suspending and actor reentrancy can never interleave two of them.
///
/// Before it hops onto the writer's thread a transaction takes the *turn* (one transaction, or one
/// unsafe transaction across its awaits, at a time). Turns are handed out first come, first served, in
/// a queue that a cancelled waiter leaves at once; the writer's own job queue thus never holds more
/// than the transaction that runs, so nothing waits there uncancellably.
actor Writer {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    nonisolated let interruptHandle: InterruptHandle
    /// The store's tag, which its IDs carry (see `EntityID`).
    nonisolated let storeTag: UInt32

    let connection: Connection
    /// The stack's stores; a store added to the stack replaces it (only ``attach(_:store:)`` sets it).
    var store: StoreContext
    let feed: CommitFeed
    /// The change sets of the latest commits, by number, for list publishers (see ``CommitLog``).
    nonisolated let commitLog = CommitLog()
    let files: StoreFiles
    nonisolated let logger: Logger
    nonisolated let waitLog: WaitLog
    /// The read generations held, told of each commit (see ``GenerationRegistry/noteCommit()``).
    nonisolated let generations: GenerationRegistry?
    /// The stack's metrics, `nil` when they go nowhere (see ``StackMetrics``).
    nonisolated let metrics: StackMetrics?
    /// The stack's tracer, `nil` when spans go nowhere (see ``StackTracer``).
    nonisolated let tracer: StackTracer?

    var lastDataVersion: [Int64]?
    /// Records every commit in the persistent history, when the store keeps one.
    var history: HistoryRecorder?
    /// While ``history`` is `nil`: the main store's `PRAGMA data_version` when the writer last looked
    /// for a history another connection may have turned on since (see
    /// ``adoptHistoryIfTurnedOn(dataVersion:)``).
    var historyLookedAt: Int64?
    /// In a stack of several stores, per store (by index on the connection): its `PRAGMA data_version`
    /// when a transaction last found it keeping no history this stack follows (see
    /// ``followHistory(ofStore:)``).
    var storeHistoryLookedAt: [Int64?] = []
    /// The main store's `PRAGMA data_version` when the writer last found the store at the stack's schema
    /// version (see ``checkStoreVersion(dataVersion:)``).
    var versionLookedAt: Int64?
    /// Whether some store of the stack keeps a persistent history (this stack turned it on, or another
    /// one did); a store added later may turn it on.
    nonisolated var recordsHistory: Bool { historyKept.withLock { $0 } }
    nonisolated let historyKept: Locked<Bool>
    /// Assigns the IDs of created objects (replaced, with the stores, by ``attach(_:store:)``).
    var ids: IDAllocator
    /// Where the transactions' unscoped creations went last, in a stack of several stores.
    let routes = RouteMemo()
    /// Set when the stack begins to close: transactions asked for afterwards throw `stackClosed`, while
    /// those already waiting for their turn run first (see ``close()``).
    nonisolated let isClosing = Atomic<Bool>(false)

    /// Marks the writer as closing (see ``isClosing``); the stack's `close()` calls it first.
    nonisolated func beginClosing() {
        isClosing.store(true, ordering: .releasing)
    }

    /// The turn: one transaction (or unsafe transaction) at a time.
    private let turn = LeasePool<Void>(idle: [()])
    var unsafeTransaction: UnsafeHold?
    var nextToken: UInt64 = 1
    /// The token of the open unsafe transaction, readable from any task (see `checkNotHoldingUnsafe`).
    let openUnsafeToken = Locked<UInt64?>(nil)

    /// The unsafe transaction that holds the turn.
    struct UnsafeHold {
        let token: UInt64
        let transaction: Transaction
        /// Its `strata.unsafe_transaction` span, with a tracer; the figures below are kept for it only.
        let span: (any Span)?
        /// The commits made so far.
        var commits = 0
        /// The statements its blocks ran so far.
        var statements = 0
        /// The entities its blocks changed so far.
        var entities: Set<String> = []

        /// Sets the commit and statement counts and the entities on the span, and ends it.
        func finishSpan() {
            guard let span else { return }
            span.attributes["strata.commits"] = commits
            span.setStrataAttributes(statements: statements, entities: Array(entities))
            span.end()
        }
    }

    /// Opens the write connection on its own executor and prepares the schema there.
    static func open(
        files: StoreFiles, options: Connection.Options, store: StoreContext, feed: CommitFeed, logger: Logger,
        longWait: Duration? = nil, history: HistoryOptions? = nil, generations: GenerationRegistry? = nil,
        metrics: StackMetrics? = nil, tracer: StackTracer? = nil
    ) async throws -> Writer {
        let schema = store.schema
        let storeSchema = store.storeSchema
        let (connection, recorder) = try await OffPool.run { () throws -> sending (Connection, HistoryRecorder?) in
            let connection = try Connection(path: files.path, options: options)
            do {
                try SchemaSetup.prepare(connection, schema: storeSchema)
                connection.checkpointAfterCommits()
                // A store whose history another stack turned on keeps recording it: a commit without
                // its history would be lost to every consumer of the history.
                let recorder = try HistoryRecorder(options: history, store: store, connection: connection)
                return (connection, recorder)
            } catch {
                connection.close()
                throw error
            }
        }
        if history == nil, recorder != nil {
            logger.notice(
                "the store keeps a persistent history, so this stack records it too",
                metadata: ["strata.path": "\(files.path)"])
        }
        let executor = ThreadExecutor(label: "strata.writer")
        logger.debug("store ready", metadata: ["strata.path": "\(files.path)", "strata.schema": "\(schema.version)"])
        return Writer(
            executor: executor, connection: connection, store: store, feed: feed, files: files, logger: logger,
            waitLog: WaitLog(logger: logger, threshold: longWait), history: recorder, generations: generations,
            metrics: metrics, tracer: tracer)
    }

    private init(
        executor: ThreadExecutor, connection: sending Connection, store: StoreContext, feed: CommitFeed,
        files: StoreFiles, logger: Logger, waitLog: WaitLog, history: sending HistoryRecorder?,
        generations: GenerationRegistry?, metrics: StackMetrics?, tracer: StackTracer?
    ) {
        self.metrics = metrics
        self.tracer = tracer
        self.history = history
        self.historyKept = Locked(history != nil)
        self.executor = executor
        self.interruptHandle = connection.interruptHandle
        self.storeTag = connection.storeTag
        self.connection = connection
        self.store = store
        self.ids = IDAllocator(homes: store.idHomes)
        self.feed = feed
        self.files = files
        self.logger = logger
        self.waitLog = waitLog
        self.generations = generations
    }

    isolated deinit {
        connection.close()
        executor.stop()
    }

    // MARK: Turns

    /// Waits for the writer's turn (cancellable: a cancelled task then holds nothing). A wait longer
    /// than the configured threshold is logged: a sign of long transactions ahead.
    ///
    /// With metrics, a wait that suspends is recorded in `strata_writer_wait` (a free turn reads no clock).
    nonisolated func takeTurn() async throws {
        // A call that comes once the stack has begun to close is not let in ahead of the close.
        if isClosing.load(ordering: .acquiring) { throw Connection.closedError }
        if try turn.tryAcquire() != nil { return }
        // Behind an unsafe transaction from `beginUnsafe()`, the stack cannot tell whether this task is
        // the one that began it, which would wait forever: say so while the wait lasts.
        let warning = openUnsafeToken.withLock { $0 } != nil ? unsafeWaitWarning() : nil
        defer { warning?.cancel() }
        guard let metrics else {
            _ = try await waitLog.timing("waited for the writer", pool: "strata.writer") { try await turn.acquire() }
            return
        }
        _ = try await waitLog.timing("waited for the writer", pool: "strata.writer") {
            try await StackMetrics.time(metrics.writerWait) { try await turn.acquire() }
        }
    }

    nonisolated func passTurn() {
        turn.release(())
    }

    /// The number of transactions waiting for the turn.
    nonisolated var turnWaiterCount: Int { turn.waiterCount }

    /// Returns once at least `count` transactions wait for the turn (for tests; see
    /// ``LeasePool/waitForWaiters(_:)``).
    nonisolated func waitForTurnWaiters(_ count: Int = 1) async {
        await turn.waitForWaiters(count)
    }

    /// Ends an open unsafe transaction, waits for the running transaction (and any queued before), then
    /// closes the connection. Transactions queued after the close throw ``StrataError/Code/stackClosed``.
    func close() async {
        // An unsafe transaction still open holds the turn, for as long as its owner likes: closing
        // rolls back its uncommitted work and ends it (its later calls throw stackClosed). The
        // transactions queued behind it then run, as those queued before a close do.
        if let hold = unsafeTransaction { endUnsafe(hold.token) }
        // Closing must not be abandoned when the closing task is cancelled: wait in a task of its own.
        let turn = self.turn
        // A second close finds the turn closed by the first: the connection is closed already.
        guard case .success = await Task(operation: { try await turn.acquire() }).result else { return }
        rollback()
        if !files.isTemporary { connection.checkpointBeforeClose() }
        connection.close()
        _ = turn.close(Connection.closedError)
        // The thread ends once this job returns; a later call runs on a short-lived thread and throws.
        executor.stop()
    }

    // MARK: Transactions

    /// Runs a transaction in the calling task: waits for the turn where the caller runs, then hops to
    /// the writer's thread, begins, runs the body, commits (or rolls back), and passes the turn on.
    ///
    /// With a tracer, a `strata.transaction` span, started here in the caller's task (its parent is the
    /// caller's span), covers the wait for the turn and the transaction.
    nonisolated func perform<T: Sendable>(_ body: @Sendable (Transaction) throws -> T) async throws -> T {
        guard let tracer else { return try await perform(body, span: nil) }
        return try await tracer.withSpan("strata.transaction") { span in try await perform(body, span: span) }
    }

    private nonisolated func perform<T: Sendable>(
        _ body: @Sendable (Transaction) throws -> T, span: (any Span)?
    ) async throws -> T {
        try await countingNotBegun {
            try Task.checkCancellation()
            try checkNotHoldingUnsafe()
            try await takeTurn()
        }
        return try await runTransactionInTurn(body, span: span)
    }

    /// Runs `wait` (the steps before a transaction begins), counting a transaction that never began:
    /// with the outcome `cancelled` when its task was cancelled then, `refused` when its task holds the
    /// stack's unsafe transaction (``checkNotHoldingUnsafe()``). Neither was committed nor rolled back,
    /// but its caller asked for it.
    nonisolated func countingNotBegun(_ wait: () async throws -> Void) async throws {
        guard let metrics else { return try await wait() }
        do {
            try await wait()
        } catch {
            if error is CancellationError {
                metrics.cancelled.increment()
            } else if let strata = error as? StrataError, strata.code == .reentrantTransaction {
                metrics.refused.increment()
            }
            throw error
        }
    }

    /// Runs a transaction for a caller that holds the turn, and passes the turn on.
    private func runTransactionInTurn<T: Sendable>(
        _ body: @Sendable (Transaction) throws -> T, span: (any Span)?
    ) async throws -> T {
        defer { passTurn() }
        return try await runTransaction(body, span: span)
    }

    /// Begins a transaction, runs the body and commits, or rolls back. Only the body can be
    /// interrupted: once the commit has started, it completes.
    ///
    /// With metrics, the outcome is counted in `strata_transactions_total`; with a span, the statements
    /// the body ran and the entities it changed are set on it.
    private func runTransaction<T: Sendable>(_ body: (Transaction) throws -> T, span: (any Span)?) async throws -> T {
        if Task.isCancelled {
            metrics?.cancelled.increment()
            throw CancellationError()
        }
        if connection.isClosed { throw Connection.closedError }
        let handle = interruptHandle
        handle.arm()
        // Waiting for another connection's lock ends when the task is cancelled (the busy handler reads
        // the interrupt flag).
        do {
            try await withTaskCancellationHandler {
                try self.begin()
            } onCancel: {
                handle.interrupt()
            }
        } catch {
            handle.disarm()
            throw Self.cancellationOrError(error)
        }
        let transaction = Transaction(
            connection: connection, store: store, ids: ids, preserved: preserved, routes: routes,
            splitsChanges: history?.isPerStore ?? false, lockObserver: lockObserver)
        defer { transaction.isOpen = false }
        let statementsBefore = connection.statementCount
        // The operation captures `self`, which isolates it to the writer (a closure that captured
        // nothing isolated would run on the global executor).
        let result: Result<T, any Error> = await withTaskCancellationHandler {
            self.runBody(body, transaction, span: span)
        } onCancel: {
            handle.interrupt()
        }
        handle.disarm()
        span?.setStrataAttributes(
            statements: connection.statementCount &- statementsBefore,
            entities: Array(transaction.changes.changedEntityNames))
        var committing = false
        do {
            let value = try result.get()
            try Task.checkCancellation()
            // A cancel() the closure caught: rolled back, as if it had thrown. Likewise an error after
            // which SQLite rolled the transaction back itself.
            if let lost = connection.lostWrite { throw lost }
            if let broken = transaction.broken { throw broken }
            connection.resetActiveStatements()
            committing = true
            try commit(transaction)
            metrics?.committed.increment()
            return value
        } catch {
            (committing ? metrics?.failed : metrics?.rolledBack)?.increment()
            rollback()
            // A failed COMMIT is reported as it is, also in a task cancelled meanwhile: it may say that
            // some stores kept the transaction.
            let reported = committing ? error : Self.cancellationOrError(error)
            logger.debug("transaction rolled back", metadata: ["strata.error": "\(Self.summary(of: reported))"])
            throw reported
        }
    }

    /// An error for the log: its code and message, never values (Strata's messages name entities,
    /// fields and IDs, and its SQL elides values).
    private static func summary(of error: any Error) -> String {
        if let strata = error as? StrataError { return strata.summaryWithoutValues }
        return "\(type(of: error))"
    }

    private func runBody<T>(
        _ body: (Transaction) throws -> T, _ transaction: Transaction, span: (any Span)?
    ) -> Result<T, any Error> {
        Result { try StackTracer.within(span) { try body(transaction) } }
    }

    /// The error to report: a cancelled task reports `CancellationError`, whatever SQLite said.
    static func cancellationOrError(_ error: any Error) -> any Error {
        if let strata = error as? StrataError, strata.code == .transactionCancelled { return error }
        return Task.isCancelled ? CancellationError() : error
    }
}
