import Logging

/// Opening the stores of a stack: each migrated and set up on its own, then checked together.
extension DataStack {
    /// Recreates (when asked and needed), migrates and, in a stack that chooses stores, sets up one store
    /// on a connection of its own; returns its tag (0 when the writer sets the store up itself).
    static func prepareStore(
        _ planned: StoreLayout.Store, layout: StoreLayout, schema: Schema, history: SchemaHistory?,
        options: Connection.Options, logger: Logger, progress: MigrationProgress?
    ) async throws -> UInt32 {
        let location = planned.location
        let storeSchema = layout.isPartitioned ? schema.restricted(to: planned.configuration) : schema
        let storeHistory = layout.isPartitioned ? history?.restricted(to: planned.configuration) : history
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
                history: storeHistory, current: storeSchema, path: location.path, options: options, progress: progress)
        }
        guard layout.isPartitioned else { return 0 }
        var unattached = options
        unattached.attachments = []
        let storeOptions = unattached
        return try await OffPool.run {
            let connection = try Connection(path: location.path, options: storeOptions)
            defer { connection.close() }
            return try SchemaSetup.prepare(connection, schema: storeSchema)
        }
    }

    /// Refuses stores that hold the same ID of an entity they share (stores filled apart, then opened
    /// together): an entity's IDs must be unique across the stack's stores, as this stack keeps them.
    static func checkSharedIDs(store: StoreContext, files: StoreFiles, options: Connection.Options) async throws {
        let homes = store.idHomes.filter { $0.value.count > 1 }
        guard !homes.isEmpty else { return }
        var readOnly = options
        readOnly.readOnly = true
        readOnly.create = false
        let readOptions = readOnly
        let dialect = SQLiteDialect()
        try await OffPool.run {
            let connection = try Connection(path: files.path, options: readOptions)
            defer { connection.close() }
            try connection.execute("BEGIN")
            defer { try? connection.execute("COMMIT") }
            for (entity, schemas) in homes.sorted(by: { $0.key < $1.key }) {
                let tables = schemas.map { name in (name.map { dialect.quote($0) + "." } ?? "") + dialect.quote(entity) }
                for first in tables.indices {
                    for second in tables.indices where second > first {
                        let statement = try connection.makeStatement(
                            "SELECT a.\"id\" FROM \(tables[first]) AS a JOIN \(tables[second]) AS b ON a.\"id\" = b.\"id\" LIMIT 1")
                        guard try statement.step(), case .integer(let id) = statement.value(at: 0) else { continue }
                        let paths = [first, second].map { index in
                            schemas[index].flatMap { name in store.attached.first { $0.builder.schemaName == name } }?
                                .configurationName.map { "\"\($0)\"" } ?? StoreContext.shown(schemas[index] == nil ? store.configuration : "")
                        }
                        throw StrataError(
                            .invalidArgument,
                            "The stores of configurations \(paths[0]) and \(paths[1]) both hold \(entity) \(id): a stack's stores "
                                + "must not share the IDs of an entity they both hold, so that an ID names one object. "
                                + "They were filled apart; open them in stacks of their own, or move the objects of one into the other.",
                            entity: entity)
                    }
                }
            }
        }
    }
}
