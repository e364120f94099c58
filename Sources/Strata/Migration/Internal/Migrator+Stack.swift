import Foundation
import Logging


extension Migrator {
    /// Migrates the store at `path` to `current` if it is at an older version of `history`, on a thread
    /// outside Swift's pool; does nothing for a new store or one at the current version. Cancelling the
    /// awaiting task interrupts the migration and rolls it back.
    static func migrateIfNeeded(
        history: SchemaHistory, current: Schema, path: String, options: Connection.Options, progress: MigrationProgress?,
        configuration: String? = nil, logger: Logger? = nil
    ) async throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let control = Locked<(cancelled: Bool, handle: InterruptHandle?)>((false, nil))
        do {
            try await withTaskCancellationHandler {
                try await OffPool.run {
                    let connection = try Connection(path: path, options: options)
                    defer { connection.close() }
                    guard let state = try storeState(connection), state.version != current.version else { return }
                    connection.storeTag = state.tag
                    let migrator = Migrator(
                        history: history, current: current, connection: connection, progress: progress,
                        configuration: configuration, logger: logger)
                    let plans = try migrator.path(for: state)
                    let handle = connection.interruptHandle
                    handle.arm()
                    defer { handle.disarm() }
                    let cancelledAlready = control.withLock { state in
                        state.handle = handle
                        return state.cancelled
                    }
                    if cancelledAlready { throw CancellationError() }
                    try migrator.run(plans, cancelled: { control.withLock { $0.cancelled } })
                }
            } onCancel: {
                control.withLock { state in
                    state.cancelled = true
                    state.handle?.interrupt()
                }
            }
        } catch let error as StrataError where (error.code == .interrupted || error.code == .busy) && Task.isCancelled {
            throw CancellationError()
        }
    }

    /// For a store that is recreated on mismatch: deletes its files when it is a Strata store that
    /// `history` cannot open (a version it does not declare, or a declared version edited since), and
    /// returns the store's version; `nil` (nothing deleted) otherwise.
    static func removeIfMismatched(
        history: SchemaHistory, current: Schema, path: String, options: Connection.Options
    ) async throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let readOptions = options.readingOnly
        let mismatched: String? = try await OffPool.run {
            let connection = try Connection(path: path, options: readOptions)
            defer { connection.close() }
            try connection.execute("BEGIN")
            defer { try? connection.execute("COMMIT") }
            guard let state = try storeState(connection) else { return nil }
            guard history.path(from: state.version) != nil, let schema = history.schema(state.version),
                schema.isStoredHash(state.hash)
            else { return state.version }
            return nil
        }
        guard let mismatched else { return nil }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            guard unlink(path + suffix) == 0 || errno == ENOENT else {
                throw StrataError(
                    .cannotOpen,
                    "The store at \(path) was made with schema version \(mismatched), which this app cannot open, and "
                        + "could not be deleted to be made anew: \(String(cString: strerror(errno))). Check the directory's permissions.")
            }
        }
        return mismatched
    }

    /// Logs a warning for each field `plan` removes beside an added one of the same type, with no rename
    /// between them (``MigrationPlan/SuspectedRename``): the step runs as declared, since removing a field
    /// is legitimate, but a forgotten rename would drop its values without a word.
    func warnOfSuspectedRenames(_ plan: MigrationPlan) {
        guard let logger else { return }
        for suspect in plan.suspectedRenames {
            logger.warning("\(suspect.message)", metadata: [
                "strata.path": "\(connection.path)", "strata.step": "\(suspect.step)", "strata.entity": "\(suspect.entity)",
                "strata.field": "\(suspect.removed)", "strata.added": "\(suspect.added.joined(separator: ", "))",
            ])
        }
    }

    /// What `migrateIfNeeded` would do, read without changing the file.
    static func forecast(history: SchemaHistory, current: Schema, path: String, options: Connection.Options) async throws
        -> MigrationForecast
    {
        guard FileManager.default.fileExists(atPath: path) else {
            return MigrationForecast(storeVersion: nil, currentVersion: current.version, steps: [])
        }
        let readOptions = options.readingOnly
        return try await OffPool.run {
            let connection = try Connection(path: path, options: readOptions)
            defer { connection.close() }
            guard let state = try storeState(connection) else {
                return MigrationForecast(storeVersion: nil, currentVersion: current.version, steps: [])
            }
            guard state.version != current.version else {
                // Opening checks the stored hash against the current version's: a version edited since the
                // store was made is refused, and so is its forecast.
                guard current.isStoredHash(state.hash) else { throw SchemaSetup.editedSchema(connection, schema: current) }
                return MigrationForecast(storeVersion: state.version, currentVersion: current.version, steps: [])
            }
            let migrator = Migrator(history: history, current: current, connection: connection, progress: nil)
            let plans = try migrator.path(for: state)
            try connection.execute("BEGIN")
            defer { try? connection.execute("COMMIT") }
            let rows = try migrator.estimatedRows(plans)
            // Values the first step's new Swift types cannot read refuse the migration: the forecast too.
            if let first = plans.first {
                do throws(StrataError) { try migrator.forecastReads(first) } catch {
                    throw error.adding(place: "in the migration step \(first.source.version) → \(first.destination.version)")
                }
            }
            var steps: [MigrationForecast.Step] = []
            for (plan, rows) in zip(plans, rows) {
                var entities: [MigrationForecast.EntityChange] = []
                for table in plan.tables {
                    // The rows a step works through: those it copies, transforms or drops. A table kept in
                    // place (columns added or renamed with ALTER TABLE) copies none, whatever it holds.
                    let (kind, worksThroughRows): (MigrationForecast.Kind, Bool) =
                        switch table.action {
                        case .create: (.create, false)
                        case .alter: (.inferred, false)
                        case .rebuild: (.rebuild, true)
                        case .transform: (.custom, true)
                        case .delete: (.delete, true)
                        }
                    let count = worksThroughRows ? table.source.map { rows[$0.name] ?? 0 } ?? 0 : 0
                    let fields = table.fieldChanges
                    let constraints = table.constraintChanges
                    entities.append(MigrationForecast.EntityChange(
                        entity: table.name, sourceEntity: table.source?.name, kind: kind, rows: count,
                        removedFields: fields.removed, addedFields: fields.added,
                        renamedFields: fields.renamed.map { MigrationForecast.RenamedField(from: $0.old, to: $0.new) },
                        addedUniqueConstraints: constraints.addedUnique, removedUniqueConstraints: constraints.removedUnique,
                        addedIndexes: constraints.addedIndexes, removedIndexes: constraints.removedIndexes))
                }
                steps.append(MigrationForecast.Step(
                    source: plan.source.version, destination: plan.destination.version, entities: entities,
                    customChanges: plan.customs.count))
            }
            return MigrationForecast(storeVersion: state.version, currentVersion: current.version, steps: steps)
        }
    }
}
