import CoreMetrics
import Logging
import Tracing

/// The entry point of Strata: one store, one writer, a pool of readers.
///
/// ```swift
/// let stack = try await DataStack(Schema("V1", Person.self), storage: SQLiteStore(path: "app.sqlite"))
/// let id = try await stack.perform { tx in
///     try tx.create(Into<Person>()) { $0.name = "John"; $0.age = 42 }.id
/// }
/// let adults = try await stack.fetchAll(From<Person>().where(\.age >= 18))
/// ```
///
/// A stack is `Sendable`: share one across tasks, actors and request handlers. Its guarantees:
/// 1. Writes run one at a time, in the order they reach the writer, each atomically.
/// 2. A read never waits for a write transaction in progress, and sees only committed states. (In a
///    stack of several stores, and for an observation's fetch, a read's start may wait for the
///    `COMMIT` statement that ends a transaction, so that it sees the commit in every store or in none.)
/// 3. Every read (a fetch, with its prefetches; ``read(_:)``; an observation's fetch) is one read
///    transaction and sees one committed state throughout.
/// 4. Nothing mutable leaves the stack: fetched objects are values and can change only through a
///    transaction.
/// 5. No SQLite call runs on Swift's cooperative thread pool: the writer and each reader have a thread
///    of their own, and the closures of ``perform(_:)`` and ``read(_:)`` run there, inside the calling
///    task (its task-locals and cancellation apply).
///
/// The article *Transactions and Concurrency* lists every guarantee.
public final class DataStack: Sendable {
    /// The schema the stack was opened with.
    public let schema: Schema
    /// The path of the database file.
    public let path: String

    let writer: Writer
    let readers: ReaderPool
    /// The connections of ``fetchBatches(_:)`` streams, outside the reader pool.
    let cursors: ReaderPool
    /// The connections of ``ReadGeneration``s, outside the reader pool, and the generations held.
    let generationReaders: ReaderPool
    let generations: GenerationRegistry
    let files: StoreFiles
    let feed: CommitFeed
    /// The schema and stores as of now (a store added with ``addStorage(_:)`` changes them).
    let stores: StoreSource
    /// The main store's context (for a stack of several, the one that chooses among them).
    var store: StoreContext { stores.current }
    /// What opening the stack was given, for ``addStorage(_:)``.
    let history: SchemaHistory?
    let connectionOptions: Connection.Options
    /// The turn to add a store (``addStorage(_:progress:)``): one at a time.
    let addingStore = LeasePool<Void>(idle: [()])
    /// The one run of closing that every ``close()`` (and the deinit) awaits.
    let closing = Locked<Task<Void, Never>?>(nil)
    let logger: Logger
    let observation: ObservationCenter

    /// Opens (creating if needed) a store and prepares its tables.
    ///
    /// - Parameters:
    ///   - schema: The entities of the store.
    ///   - storage: ``InMemoryStore`` (the default) or ``SQLiteStore``.
    ///   - configuration: Pool size, timeouts, durability and logging.
    /// - Throws: ``StrataError`` with ``StrataError/Code/notADatabase``, ``StrataError/Code/cannotOpen``,
    ///   ``StrataError/Code/readOnly`` or ``StrataError/Code/schemaMismatch``; the file is left unchanged.
    public convenience init(
        _ schema: Schema, storage: some Storage = InMemoryStore(), configuration: Configuration = Configuration()
    ) async throws {
        try await self.init(schema: schema, history: nil, locations: [storage.location()], configuration: configuration, progress: nil)
    }

    /// Opens (creating if needed) a store at the current version of `history`, first migrating it along
    /// the history's chain if it is at an older version.
    ///
    /// The migration runs before the stack is usable, on a thread outside Swift's pool, in one
    /// transaction: it completes, or the store stays at its version (an error, a full disk, the task's
    /// cancellation or a crash change nothing). A store at a version the history does not declare (made
    /// by a newer app, say) is refused and left untouched.
    ///
    /// - Parameters:
    ///   - history: Every schema version, the chain between them and the declared steps.
    ///   - storage: ``InMemoryStore`` (the default) or ``SQLiteStore``.
    ///   - configuration: Pool size, timeouts, durability and logging.
    ///   - progress: Receives the migration's progress, if you want to show it; it ends when the
    ///     migration does. A progress serves one stack (see ``MigrationProgress``).
    /// - Throws: ``StrataError`` with ``StrataError/Code/invalidMigration`` for a history, chain or step
    ///   that cannot work (before any file is opened) or data a step cannot migrate as declared,
    ///   ``StrataError/Code/schemaMismatch`` for a store outside the history, a constraint code when
    ///   the migrated data violates one, ``StrataError/Code/invalidArgument`` for a `progress` given to
    ///   another stack or store already (before any file is opened); `CancellationError` when the task
    ///   was cancelled.
    public convenience init(
        _ history: SchemaHistory, storage: some Storage = InMemoryStore(), configuration: Configuration = Configuration(),
        progress: MigrationProgress? = nil
    ) async throws {
        try progress?.claim()
        defer { progress?.finish() }
        let schema = try history.validate()
        try await self.init(
            schema: schema, history: history, locations: [storage.location()], configuration: configuration, progress: progress)
    }

    /// What opening `storage` with `history` would do (which steps, how each entity migrates, how many
    /// rows), read without changing anything. A storage named for a configuration
    /// (`.configuration("Cache")`) is forecast as that configuration's store, as
    /// ``forecast(_:storages:)`` and ``addStorage(_:progress:)`` see it. A store that opening would
    /// refuse is refused the same way: a version the history does not declare, or one edited since the
    /// store was made with it (the current one included) throws ``StrataError/Code/schemaMismatch``.
    public static func forecast(_ history: SchemaHistory, storage: some Storage) async throws -> MigrationForecast {
        let schema = try history.validate()
        let location = try storage.location()
        let key = location.configuration ?? ""
        try schema.checkStorageConfiguration(key)
        return try await Migrator.forecast(
            history: history.forStore(key), current: schema.hasConfigurations ? schema.restricted(to: key) : schema,
            path: location.path, options: Connection.Options())
    }

    /// Opens the stores of `locations` (see ``StoreLayout``); every public initializer ends here.
    init(
        schema: Schema, history: SchemaHistory?, locations: [StorageLocation], configuration: Configuration,
        progress: MigrationProgress?
    ) async throws {
        try schema.validate()
        for warning in schema.warnings {
            configuration.logger.warning("\(warning)", metadata: ["strata.schema": "\(schema.version)"])
        }
        guard configuration.maximumReaderCount > 0 else {
            throw StrataError(.invalidArgument, "maximumReaderCount must be at least 1.")
        }
        guard configuration.maximumConcurrentBatchFetches > 0 else {
            throw StrataError(.invalidArgument, "maximumConcurrentBatchFetches must be at least 1.")
        }
        guard configuration.maximumReadGenerations > 0 else {
            throw StrataError(.invalidArgument, "maximumReadGenerations must be at least 1.")
        }
        guard configuration.busyTimeout >= .zero else {
            throw StrataError(
                .invalidArgument,
                "busyTimeout must not be negative (it was \(configuration.busyTimeout)); use .zero to fail at once on a locked database.")
        }
        if let interval = configuration.externalChangePollInterval, interval <= .zero {
            throw StrataError(
                .invalidArgument,
                "externalChangePollInterval must be positive (it was \(interval)): a poll that never waits would keep a core "
                    + "busy. Use nil to stop noticing other connections' commits.")
        }
        let layout = try StoreLayout(schema: schema, locations: locations)
        let location = layout.main.location
        let timeout = configuration.busyTimeout.components
        // Clamped before multiplying: `.seconds(Int.max)` ("wait forever") must not overflow.
        let milliseconds = min(timeout.seconds, Int64(Int32.max)) * 1000 + timeout.attoseconds / 1_000_000_000_000_000
        var options = Connection.Options()
        options.busyTimeoutMilliseconds = Int32(clamping: milliseconds)
        options.synchronous = (configuration.synchronous ?? location.defaultSynchronous).connectionValue
        options.configuredSynchronous = configuration.synchronous?.connectionValue
        options.trace = configuration.statementTrace
        options.vfsName = configuration.vfsName
        let waitLog = WaitLog(logger: configuration.logger, threshold: configuration.longWaitThreshold)
        options.busyReportThreshold = configuration.longWaitThreshold
        options.busyReport = waitLog.lockReport(path: location.path)
        // Made before the stores are prepared: when opening fails, their release removes the in-memory
        // stores' files made so far (a process keeps its own until it ends: nothing else removes them).
        let attachedFiles = layout.attached.map { StoreFiles(path: $0.location.path, isTemporary: $0.location.isTemporary) }
        let files = StoreFiles(path: location.path, isTemporary: location.isTemporary, attached: attachedFiles)
        var tags: [UInt32] = []
        for planned in layout.stores {
            tags.append(try await Self.prepareStore(
                planned, schema: schema, history: history, options: options, logger: configuration.logger,
                progress: progress))
        }
        try layout.checkTags(tags)
        if layout.isPartitioned {
            options.attachments = AttachmentList(layout.attached.map {
                .init(
                    schemaName: $0.schemaName ?? "", path: $0.location.path,
                    synchronous: (configuration.synchronous ?? $0.location.defaultSynchronous).connectionValue)
            })
        }
        // Every stack counts its commits under the gate: list publishers learn which commits a read sees.
        options.commitGate = Locked(0)
        // Whether another stack migrated a store: looked at by a statement that finds a table or column
        // missing, a read that cannot decode a value, and a write transaction after another's commit (in
        // a stack of several stores, the first write to each store in a transaction). Every store of a
        // stack is at its schema's version.
        options.schemaVersion = schema.version
        var attachedContexts: [StoreContext] = []
        for (planned, tag) in zip(layout.attached, tags.dropFirst()) {
            attachedContexts.append(try StoreContext(
                schema: schema, configuration: planned.configuration, schemaName: planned.schemaName, tag: tag))
        }
        let store = try StoreContext(
            schema: schema, configuration: layout.main.configuration, tag: layout.isPartitioned ? tags[0] : 0,
            attached: attachedContexts)
        if attachedContexts.count > 0 { try await Self.checkSharedIDs(store: store, files: files, options: options) }
        let feed = CommitFeed()
        self.schema = schema
        self.path = location.path
        self.stores = StoreSource(store)
        self.history = history
        self.logger = configuration.logger
        self.feed = feed
        self.files = files
        let metrics = StackMetrics.make(
            factory: configuration.metricsFactory ?? MetricsSystem.factory, stack: configuration.name)
        let tracer = StackTracer.make(configuration.tracer ?? InstrumentationSystem.tracer)
        let generations = GenerationRegistry(
            files: files, logger: configuration.logger, warningSize: configuration.readGenerationWALWarningSize)
        self.generations = generations
        self.writer = try await Writer.open(
            files: files, options: options, store: store, feed: feed, logger: configuration.logger,
            longWait: configuration.longWaitThreshold, history: configuration.history, generations: generations,
            metrics: metrics, tracer: tracer)
        self.observation = ObservationCenter(
            feed: feed, writer: writer, pollInterval: configuration.externalChangePollInterval,
            watchedPaths: { [files] in files.watchablePaths },
            maximumConcurrentFetches: configuration.maximumConcurrentObservationFetches,
            logger: configuration.logger, metrics: metrics)
        self.connectionOptions = options
        var readerOptions = options
        readerOptions.storeTag = writer.storeTag
        readerOptions.readOnly = true
        readerOptions.create = false
        self.readers = ReaderPool(
            files: files, options: readerOptions, capacity: configuration.maximumReaderCount, waitLog: waitLog,
            metrics: metrics?.readers, tracer: tracer)
        self.cursors = ReaderPool(
            files: files, options: readerOptions, capacity: configuration.maximumConcurrentBatchFetches,
            label: "strata.cursor", waitLog: waitLog, metrics: metrics?.cursors, tracer: tracer, closesLeased: true)
        self.generationReaders = ReaderPool(
            files: files, options: readerOptions, capacity: configuration.maximumReadGenerations,
            label: "strata.generation", waitLog: waitLog, metrics: metrics?.generations, tracer: tracer)
        // The baseline of `PRAGMA data_version`: what other connections commit from now on is noticed.
        if configuration.externalChangePollInterval != nil { _ = try? await writer.externalChangeCheck() }
    }

    // MARK: Writing

    /// Runs a transaction on the writer and commits it.
    ///
    /// The transaction waits for its turn (transactions run one at a time, first come first served),
    /// then its closure runs alone on the writer's thread, inside the calling task: task-local values
    /// and `Task.isCancelled` inside it are the caller's. When the closure returns, its changes commit
    /// together and its result is returned. When it throws, calls ``Transaction/cancel()``, or the
    /// awaiting task is cancelled before the commit, everything it did is rolled back and the error is
    /// rethrown (`CancellationError` for task cancellation, which also interrupts the statement that is
    /// running, and ends a wait for the turn at once). Once the commit has started, cancellation no
    /// longer undoes it.
    ///
    /// - Returns: Whatever the closure returns, which must be `Sendable` (IDs, snapshots, counts).
    /// - Throws: ``StrataError/Code/reentrantTransaction`` when the calling task runs inside this
    ///   stack's ``withUnsafeTransaction(_:)`` (the call would wait for it forever).
    @discardableResult
    public func perform<T: Sendable>(_ body: @Sendable (Transaction) throws -> T) async throws -> T {
        try await writer.perform(body)
    }

    /// Begins a transaction you commit yourself, possibly several times, for long imports.
    ///
    /// An unsafe transaction holds the writer from `beginUnsafe()` until ``UnsafeTransaction/end()``:
    /// other transactions wait for their turn meanwhile, while reads go on and see only what was
    /// committed. Every other transaction waits for `end()`, those of the task that began it included:
    /// Swift gives a task no identity that outlives it, so the stack cannot tell that task from a later
    /// one, and end the transaction before awaiting ``perform(_:)`` (a wait behind it longer than
    /// ``Configuration/longWaitThreshold`` logs a warning that says so). Prefer
    /// ``withUnsafeTransaction(_:)``, which ends the transaction for you, and inside which (and in tasks
    /// started there while it runs) ``perform(_:)`` throws ``StrataError/Code/reentrantTransaction``
    /// instead of waiting forever.
    ///
    /// With a tracer, a `strata.unsafe_transaction` span, a child of the calling task's span, covers it
    /// from the wait for the writer to ``UnsafeTransaction/end()``, with its commit count.
    public func beginUnsafe() async throws -> UnsafeTransaction {
        let (token, span) = try await writer.beginUnsafe()
        return UnsafeTransaction(writer: writer, token: token, span: span)
    }

    /// Runs `body` with an unsafe transaction (see ``beginUnsafe()``) and ends it when `body` returns or
    /// throws, rolling back whatever was not committed.
    ///
    /// ```swift
    /// try await stack.withUnsafeTransaction { unsafe in
    ///     for chunk in chunks {
    ///         try await unsafe.perform { tx in for row in chunk { try tx.create(Into<Person>()) { $0.name = row } } }
    ///         try await unsafe.commit()
    ///     }
    /// }
    /// ```
    /// Inside `body`, and in tasks it starts with `Task { }`, ``perform(_:)`` on this stack throws
    /// ``StrataError/Code/reentrantTransaction`` rather than waiting forever. (The mark is a task-local:
    /// a `Task.detached` does not inherit it, and its ``perform(_:)`` waits for `body` to end, so do not
    /// await a detached task that writes inside `body`.) With a tracer, spans started in `body` are
    /// children of the unsafe transaction's span.
    public func withUnsafeTransaction<T: Sendable>(
        _ body: (UnsafeTransaction) async throws -> T
    ) async throws -> T {
        let unsafe = try await beginUnsafe()
        do {
            let scope = UnsafeTransactionScope.Scope(writer: writer, token: unsafe.token)
            let result = try await UnsafeTransactionScope.$current.withValue(scope) {
                try await StackTracer.within(unsafe.span) { try await body(unsafe) }
            }
            await unsafe.end()
            return result
        } catch {
            await unsafe.end()
            throw error
        }
    }

    /// Closes the released stack as ``close()`` does, in a task of its own since a deinit cannot wait.
    /// What outlives the stack (a publisher being iterated, a stream, a read generation, an unsafe
    /// transaction) holds some of its parts, never the stack: without this, an iteration would wait
    /// forever, and the connections and the file watch it holds would stay open.
    deinit {
        let parts = self.parts
        Task { await parts.close() }
    }

    // MARK: Observation feed

    /// The committed change sets, from now on. The input of observation.
    func changeSets() -> AsyncStream<ChangeSet> {
        feed.subscribe()
    }
}

extension DataStack: CustomStringConvertible {
    /// The schema version, its entities and the store: `DataStack(Schema "V1": Person, Pet; file
    /// /data/app.sqlite; 4 readers)`, or `in-memory` for an ``InMemoryStore``.
    public var description: String {
        let store = files.isTemporary ? "in-memory" : "file \(path)"
        return "DataStack(\(schema); \(store); \(readers.capacity) readers)"
    }
}
