import Foundation
import Logging

/// Stacks of several stores: opening them, adding one, and setting up and checking each store.
extension DataStack {
    /// Opens (creating if needed) a stack of several stores: one per configuration of `schema` (see
    /// ``Schema/configuration(_:_:)``), each storage naming its configuration with `.configuration(_:)`.
    ///
    /// ```swift
    /// let schema = Schema("V1", Person.self, Thumbnail.self).configuration("Cache", Thumbnail.self)
    /// let stack = try await DataStack(schema, storages: [
    ///     SQLiteStore(path: "app.sqlite"),
    ///     SQLiteStore(path: "cache.sqlite").configuration("Cache"),
    /// ])
    /// ```
    /// Each store holds the tables of its configuration's entities and its own version lock, and is
    /// set up (or checked) on its own. The stack reads them together: every connection attaches them
    /// all, so a fetch of an entity that lives in several stores reads them in one statement. The
    /// default configuration's store (or, without one, the first) is the main store: ``path`` names
    /// it, and the persistent history lives in it.
    ///
    /// - Throws: ``StrataError/Code/invalidArgument`` for no storage, a configuration the schema does
    ///   not declare (the message lists those it does), two storages for one configuration or one
    ///   file, more than 10 stores besides the main one; the errors of ``init(_:storage:configuration:)``.
    public convenience init(_ schema: Schema, storages: [any Storage], configuration: Configuration = Configuration()) async throws {
        try await self.init(
            schema: schema, history: nil, locations: storages.map { try $0.location() }, configuration: configuration,
            progress: nil)
    }

    /// Opens (creating if needed) a stack of several stores at the current version of `history`, first
    /// migrating each store along the history's chain if it is at an older version.
    ///
    /// Each store migrates on its own, in a transaction of its own, as the versions of its
    /// configuration say: the history restricted to the configuration's entities. A custom change
    /// (``MigrationChange/custom(_:)``) runs in the default configuration's store only. Entities do not
    /// move between stores: an entity a version moves to another configuration starts empty there.
    /// `progress` receives every store's migration, one after the other, and ends with the last.
    ///
    /// - Throws: the errors of ``init(_:storages:configuration:)`` and of
    ///   ``init(_:storage:configuration:progress:)``.
    public convenience init(
        _ history: SchemaHistory, storages: [any Storage], configuration: Configuration = Configuration(),
        progress: MigrationProgress? = nil
    ) async throws {
        try progress?.claim()
        defer { progress?.finish() }
        let schema = try history.validate()
        try await self.init(
            schema: schema, history: history, locations: storages.map { try $0.location() }, configuration: configuration,
            progress: progress)
    }

    /// What opening a stack of several stores with `history` would do to each store, in the order of
    /// `storages`: each store migrates along the history restricted to its configuration's entities.
    /// Read without changing anything.
    public static func forecast(_ history: SchemaHistory, storages: [any Storage]) async throws -> [MigrationForecast] {
        let schema = try history.validate()
        let locations = try storages.map { try $0.location() }
        let layout = try StoreLayout(schema: schema, locations: locations)
        var forecasts: [MigrationForecast] = []
        for location in locations {
            let key = location.configuration ?? ""
            forecasts.append(try await Migrator.forecast(
                history: history.forStore(key),
                current: layout.isPartitioned ? schema.restricted(to: key) : schema, path: location.path,
                options: Connection.Options()))
        }
        return forecasts
    }

    /// Adds a store to the running stack: the store of a configuration the stack has no store for yet.
    ///
    /// ```swift
    /// try await stack.addStorage(SQLiteStore(path: "archive.sqlite").configuration("Archive"))
    /// let old = try await stack.fetchAll(From<Order>("Archive"))
    /// ```
    /// The store is made or opened, migrated along the stack's ``SchemaHistory`` when it was opened
    /// with one, and checked as at opening, without holding the writer. Then, between two transactions,
    /// the writer attaches it, and every read that starts afterwards sees it, publishers' next fetches
    /// included; reads under way and held ``ReadGeneration``s keep the stores they started with.
    ///
    /// - Parameters:
    ///   - storage: The store, named for its configuration (`.configuration("Archive")`).
    ///   - progress: Receives the added store's migration's progress, as at opening (see
    ///     ``MigrationProgress``); it finishes when `addStorage` returns or throws. A progress serves
    ///     one call: one given to a stack or store before is refused with
    ///     ``StrataError/Code/invalidArgument``.
    /// Stores are added one at a time: a call made while another adds a store waits for it.
    ///
    /// - Throws: ``StrataError/Code/invalidArgument`` when the schema declares no configurations, the
    ///   configuration is not declared or already has a store, the file is one of the stack's, or the
    ///   stack holds 11 stores already; the errors of opening a store. The stack is unchanged then.
    ///   `CancellationError` when the task is cancelled while it waits for another call to add its
    ///   store; ``StrataError/Code/stackClosed`` when the stack closes meanwhile.
    public func addStorage(_ storage: some Storage, progress: MigrationProgress? = nil) async throws {
        try progress?.claim()
        defer { progress?.finish() }
        let location = try storage.location()
        let key = location.configuration ?? ""
        guard schema.hasConfigurations else {
            throw StrataError(
                .invalidArgument,
                "Schema \(schema.version) declares no configurations, so the stack has its one store. Place entities in "
                    + "configurations with Schema.configuration(_:_:) to keep them in stores of their own.")
        }
        try schema.checkStorageConfiguration(key)
        // One store is added at a time, so that two cannot take the same configuration, file or schema
        // name: a second call waits for the first (cancellably; a close ends the wait with stackClosed).
        if try addingStore.tryAcquire() == nil { _ = try await addingStore.acquire() }
        defer { _ = addingStore.release(()) }
        let schemaName = try { () throws(StrataError) -> String in
            let current = store
            guard !current.allStores.contains(where: { $0.configuration == key }) else {
                throw StrataError(
                    .invalidArgument, "The stack has a store for configuration \(StoreContext.shown(key)) already.")
            }
            guard !files.allPaths.contains(location.path) else {
                throw StrataError(
                    .invalidArgument, "The stack's stores include the file \(location.path) already; each store needs a file of its own.")
            }
            guard current.attached.count < StoreLayout.maximumAttached else {
                throw StrataError(
                    .invalidArgument,
                    "A stack holds at most \(StoreLayout.maximumAttached + 1) stores (SQLite attaches at most "
                        + "\(StoreLayout.maximumAttached) databases to a connection).")
            }
            return "store\(current.allStores.count)"
        }()
        let planned = StoreLayout.Store(location: location, configuration: key, schemaName: schemaName)
        // Made before the store is prepared: when adding it fails at any point, an in-memory store's
        // files go with it.
        let addedFiles = StoreFiles(path: location.path, isTemporary: location.isTemporary)
        let tag = try await Self.prepareStore(
            planned, schema: schema, history: history, options: connectionOptions,
            logger: logger, progress: progress)
        let current = store
        if let same = current.allStores.first(where: { $0.tag == tag }) {
            throw StrataError(
                .invalidArgument,
                "The store at \(location.path) carries the same store tag as the stack's store of configuration "
                    + "\(StoreContext.shown(same.configuration)): one is a copy of the other. Give it a new file.")
        }
        let added = try StoreContext(schema: schema, configuration: key, schemaName: schemaName, tag: tag)
        let next = try StoreContext(
            schema: schema, configuration: current.configuration, tag: current.tag, attached: current.attached + [added])
        let entry = AttachmentList.Entry(
            schemaName: schemaName, path: location.path,
            synchronous: connectionOptions.configuredSynchronous ?? location.defaultSynchronous.connectionValue)
        var checkOptions = connectionOptions
        checkOptions.attachments = AttachmentList((connectionOptions.attachments?.current ?? []) + [entry])
        try await Self.checkSharedIDs(store: next, files: files, options: checkOptions)
        // The stack takes the files once the writer has the store: a refusal or a cancellation before
        // leaves the stack as it was, and a second call can add the same file.
        try await writer.attach(entry, store: next)
        files.attach(addedFiles)
        connectionOptions.attachments?.append(entry)
        stores.replace(with: next)
        observation.storesChanged()
        logger.debug("store added", metadata: ["strata.path": "\(location.path)", "strata.configuration": "\(key)"])
    }

    /// Recreates (when asked and needed), migrates and, in a stack that chooses stores, sets up one store
    /// on a connection of its own; returns its tag (0 when the writer sets the store up itself).
    static func prepareStore(
        _ planned: StoreLayout.Store, schema: Schema, history: SchemaHistory?,
        options: Connection.Options, logger: Logger, progress: MigrationProgress?
    ) async throws -> UInt32 {
        let location = planned.location
        // The store may be at an earlier version until it is migrated: its connections expect none.
        var options = options
        options.schemaVersion = nil
        // Each store is migrated (or deleted) on its own: a connection with the stack's other stores
        // attached would begin its transaction deferred (see `Connection.beginWrite()`), so a writer of
        // another process that comes in after its first read would make its first write fail with `busy`.
        options.attachments = nil
        // A schema with configurations keeps each configuration's entities in a store of their own.
        let isPartitioned = schema.hasConfigurations
        let storeSchema = isPartitioned ? schema.restricted(to: planned.configuration) : schema
        let storeHistory = history?.forStore(planned.configuration)
        try await refuseForeignDatabase(at: location.path, options: options)
        if location.recreatesOnSchemaMismatch,
            let version = try await Migrator.removeIfMismatched(
                history: storeHistory ?? SchemaHistory(storeSchema), current: storeSchema, path: location.path, options: options)
        {
            logger.warning(
                "store deleted and made anew: its schema version could not be opened",
                metadata: ["strata.path": "\(location.path)", "strata.storeSchema": "\(version)", "strata.schema": "\(schema.version)"])
        }
        if let storeHistory {
            try await Migrator.migrateIfNeeded(
                history: storeHistory, current: storeSchema, path: location.path, options: options, progress: progress,
                configuration: planned.configuration.isEmpty ? nil : planned.configuration, logger: logger)
        }
        guard isPartitioned else { return 0 }
        let storeOptions = options
        return try await OffPool.run {
            let connection = try Connection(path: location.path, options: storeOptions)
            defer { connection.close() }
            return try SchemaSetup.prepare(connection, schema: storeSchema)
        }
    }

    /// Refuses another app's database (see ``SchemaSetup/checkMadeByStrata(_:)``) through a read-only
    /// connection, before any connection that writes opens it: one that writes switches the file to WAL
    /// mode when it opens, and a refused database must be left exactly as it was (recreating a store on
    /// a schema mismatch never deletes one either). A file that does not exist yet passes.
    static func refuseForeignDatabase(at path: String, options: Connection.Options) async throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        var readOnly = options.readingOnly
        readOnly.attachments = nil
        let readOptions = readOnly
        try await OffPool.run {
            let connection = try Connection(path: path, options: readOptions)
            defer { connection.close() }
            try SchemaSetup.checkMadeByStrata(connection)
        }
    }

    /// Refuses stores that hold the same ID of an entity they share (stores filled apart, then opened
    /// together): an entity's IDs must be unique across the stack's stores, as this stack keeps them.
    static func checkSharedIDs(store: StoreContext, files: StoreFiles, options: Connection.Options) async throws {
        let shared = store.schema.entities.map(\.name).compactMap { entity -> (String, [StoreContext])? in
            let holding = store.stores(holding: entity)
            return holding.count > 1 ? (entity, holding) : nil
        }
        guard !shared.isEmpty else { return }
        var readOnly = options
        readOnly.readOnly = true
        readOnly.create = false
        let readOptions = readOnly
        try await OffPool.run {
            let connection = try Connection(path: files.path, options: readOptions)
            defer { connection.close() }
            try connection.execute("BEGIN")
            defer { try? connection.execute("COMMIT") }
            for (entity, holding) in shared {
                for (index, first) in holding.enumerated() {
                    for second in holding[(index + 1)...] {
                        let statement = try connection.makeStatement(
                            "SELECT a.\"id\" FROM \(first.builder.qualified(entity)) AS a "
                                + "JOIN \(second.builder.qualified(entity)) AS b ON a.\"id\" = b.\"id\" LIMIT 1")
                        guard try statement.step(), case .integer(let id) = statement.value(at: 0) else { continue }
                        throw StrataError(
                            .invalidArgument,
                            "The stores of configurations \(StoreContext.shown(first.configuration)) and "
                                + "\(StoreContext.shown(second.configuration)) both hold \(entity) \(id): a stack's stores "
                                + "must not share the IDs of an entity they both hold, so that an ID names one object. "
                                + "They were filled apart; open them in stacks of their own, or move the objects of one into the other.",
                            entity: entity)
                    }
                }
            }
        }
    }
}
