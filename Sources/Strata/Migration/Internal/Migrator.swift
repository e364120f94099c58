import Foundation

/// Migrates a store along a schema history, on a connection of its own, in one transaction: every step
/// commits together or none does.
///
/// Foreign keys are off for the transaction (SQLite's procedure for table rebuilds, which must be set
/// outside a transaction) and checked with `PRAGMA foreign_key_check` before the commit.
struct Migrator {
    let history: SchemaHistory
    let current: Schema
    let connection: Connection
    let progress: MigrationProgress?
    private let sql = SchemaSQL()
    private let dialect = SQLiteDialect()
    /// Rows copied per statement, between progress reports.
    static let chunk = 10_000

    init(history: SchemaHistory, current: Schema, connection: Connection, progress: MigrationProgress?) {
        self.history = history
        self.current = current
        self.connection = connection
        self.progress = progress
    }

    /// The store's version and hash, or `nil` for a store Strata has not set up yet.
    static func storeState(_ connection: Connection) throws(StrataError) -> (version: String, hash: String, tag: UInt32)? {
        let tables = try connection.makeStatement(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '\(SchemaSQL.metadataTable)'")
        guard try tables.step() else { return nil }
        let statement = try connection.makeStatement("SELECT key, value FROM \(SchemaSQL.metadataTable)")
        var metadata: [String: String] = [:]
        while try statement.step() {
            if case .text(let key) = statement.value(at: 0), case .text(let value) = statement.value(at: 1) {
                metadata[key] = value
            }
        }
        return (metadata["schema_version"] ?? "?", metadata["schema_hash"] ?? "", UInt32(metadata["store_tag"] ?? "") ?? 0)
    }

    /// The steps from the store's version to the current one, checked against the store: an unknown
    /// version, or a declared version whose entities changed since the store was made, is refused.
    func path(for state: (version: String, hash: String, tag: UInt32)) throws(StrataError) -> [MigrationPlan] {
        guard let path = history.path(from: state.version) else {
            throw StrataError(
                .schemaMismatch,
                "The store at \(connection.path) is at schema version \(state.version), which this app's schema history "
                    + "(\(history.schemas.map(\.version).joined(separator: ", "))) does not declare: it was made by a "
                    + "newer version of the app, or by another app. The app's current version is \(current.version). "
                    + "The file was not changed.")
        }
        if let schema = history.schema(state.version), !path.isEmpty,
            state.hash != schema.versionHash, state.hash != schema.legacyVersionHash
        {
            throw StrataError(
                .schemaMismatch,
                "Schema \(state.version) changed since the store at \(connection.path) was made with it (its entities, "
                    + "fields or options differ). A version that shipped must stay as it was: undo the edit, and declare "
                    + "changes as a new version. The file was not changed.")
        }
        var plans: [MigrationPlan] = []
        for edge in path {
            plans.append(try MigrationPlan(source: edge.source, destination: edge.destination, step: edge.step))
        }
        return plans
    }

    /// Runs the plans in one transaction.
    func run(_ plans: [MigrationPlan], cancelled: @Sendable () -> Bool) throws {
        try connection.execute("PRAGMA foreign_keys = OFF")
        defer { try? connection.execute("PRAGMA foreign_keys = ON") }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            // Another process may have migrated the store while this one waited for the lock.
            if let state = try Self.storeState(connection), state.version == current.version {
                try connection.execute("COMMIT")
                return
            }
            let counts = try estimatedRows(plans)
            var totals = Progress(total: zip(plans, counts).reduce(0) { sum, pair in
                sum + pair.0.tables.filter { $0.action == .rebuild || $0.action == .transform }
                    .reduce(0) { $0 + (pair.1[$1.source?.name ?? ""] ?? 0) }
            })
            for (index, plan) in plans.enumerated() {
                try run(plan, index: index, of: plans.count, counts: counts[index], progress: &totals, cancelled: cancelled)
            }
            let update = "UPDATE \(SchemaSQL.metadataTable) SET value = ? WHERE key = ?"
            try connection.execute(update, [.text(current.version), .text("schema_version")])
            try connection.execute(update, [.text(current.versionHash), .text("schema_hash")])
            try checkForeignKeys()
            try connection.execute("COMMIT")
        } catch {
            connection.interruptHandle.disarm()
            _ = connection.resetActiveStatements()
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Rows done and to do, over all steps.
    struct Progress {
        var done = 0
        let total: Int
    }

    /// The rows of each source entity of each plan: counted in the store for the first plan, carried
    /// over by name (renames followed) for the later ones.
    func estimatedRows(_ plans: [MigrationPlan]) throws(StrataError) -> [[String: Int]] {
        var rows: [String: Int] = [:]
        for entity in plans.first?.source.entities ?? [] {
            rows[entity.name] = try count("SELECT count(*) FROM \(dialect.quote(entity.name))")
        }
        var result: [[String: Int]] = []
        for plan in plans {
            result.append(rows)
            var next: [String: Int] = [:]
            for table in plan.tables {
                if let destination = table.destination { next[destination.name] = table.source.map { rows[$0.name] ?? 0 } ?? 0 }
            }
            rows = next
        }
        return result
    }

    func count(_ query: String, _ values: [DatabaseValue] = []) throws(StrataError) -> Int {
        let statement = try connection.makeStatement(query)
        try statement.bind(values)
        guard try statement.step(), case .integer(let count) = statement.value(at: 0) else { return 0 }
        return Int(count)
    }

    private func report(_ plan: MigrationPlan, index: Int, of steps: Int, entity: String?, done: Int, total: Int, overall: Progress) {
        progress?.report(MigrationProgress.Event(
            source: plan.source.version, destination: plan.destination.version, stepIndex: index, stepCount: steps,
            entity: entity, completedRows: done, totalRows: total, overallCompletedRows: overall.done,
            overallTotalRows: overall.total))
    }

    // MARK: One step

    private func run(
        _ plan: MigrationPlan, index: Int, of steps: Int, counts: [String: Int], progress overall: inout Progress,
        cancelled: @Sendable () -> Bool
    ) throws {
        report(plan, index: index, of: steps, entity: nil, done: 0, total: 0, overall: overall)
        for deletion in plan.deletions {
            try deleteObjects(deletion.entity, where: deletion.predicate, plan: plan)
        }
        for table in plan.tables where table.action == .rebuild || table.action == .transform {
            try check(table)
        }
        // Renames first, through temporary names (so that names can swap), with SQLite's ALTER TABLE,
        // which also rewrites the foreign keys of other tables that point at a renamed table.
        for table in plan.tables {
            guard let source = table.source else { continue }
            if table.action == .delete {
                try connection.execute("DROP TABLE \(dialect.quote(source.name))")
                try connection.execute("DELETE FROM \(SchemaSQL.metadataTable) WHERE key = ?", [.text(SchemaSQL.idMarkKey(source.name))])
            } else if let destination = table.destination, source.name != destination.name {
                try rename(source.name, to: Self.keptName(destination.name))
            }
        }
        for join in plan.joins {
            switch join {
            case .drop(let name): try connection.execute("DROP TABLE \(dialect.quote(name))")
            case .keep(let source, let destination) where source != destination.name: try rename(source, to: Self.keptName(destination.name))
            default: break
            }
        }
        for table in plan.tables {
            guard let source = table.source, let destination = table.destination, source.name != destination.name else { continue }
            try rename(Self.keptName(destination.name), to: destination.name)
            try connection.execute(
                "UPDATE \(SchemaSQL.metadataTable) SET key = ? WHERE key = ?",
                [.text(SchemaSQL.idMarkKey(destination.name)), .text(SchemaSQL.idMarkKey(source.name))])
        }
        for join in plan.joins {
            if case .keep(let source, let destination) = join, source != destination.name {
                try rename(Self.keptName(destination.name), to: destination.name)
            }
        }
        // Rebuilds: a new table, the rows copied or transformed, the old table dropped, the new one named.
        for table in plan.tables where table.action == .rebuild || table.action == .transform {
            guard let destination = table.destination, let source = table.source else { continue }
            try connection.execute(sql.createTable(destination, graph: plan.destinationGraph, named: Self.newName(destination.name)))
            let total = counts[source.name] ?? 0
            report(plan, index: index, of: steps, entity: destination.name, done: 0, total: total, overall: overall)
            var done = 0
            let onRows = { (rows: Int) throws in
                if cancelled() { throw CancellationError() }
                done += rows
                overall.done += rows
                report(plan, index: index, of: steps, entity: destination.name, done: done, total: total, overall: overall)
            }
            if table.action == .rebuild {
                try copy(table, from: destination.name, to: destination, onRows: onRows)
            } else {
                try transform(table, from: source, reading: destination.name, to: destination, onRows: onRows)
            }
            try connection.execute("DROP TABLE \(dialect.quote(destination.name))")
            try rename(Self.newName(destination.name), to: destination.name)
        }
        // Columns of kept tables, new tables, and every index.
        for table in plan.tables {
            guard let destination = table.destination else { continue }
            let name = dialect.quote(destination.name)
            switch table.action {
            case .alter:
                for (old, new) in table.renamedColumns {
                    try connection.execute("ALTER TABLE \(name) RENAME COLUMN \(dialect.quote(old)) TO \(dialect.quote(new))")
                }
                for definition in table.addedColumns {
                    try connection.execute("ALTER TABLE \(name) ADD COLUMN \(definition)")
                }
            case .create:
                try connection.execute(sql.createTable(destination, graph: plan.destinationGraph, named: destination.name))
            default:
                break
            }
            try reconcileIndexes(table: destination.name, wanted: sql.indexes(destination, graph: plan.destinationGraph))
        }
        for join in plan.joins {
            switch join {
            case .create(let table):
                try connection.execute(sql.createTable(table))
                try reconcileIndexes(table: table.name, wanted: [sql.joinIndex(table)])
            case .keep(_, let table):
                try reconcileIndexes(table: table.name, wanted: [sql.joinIndex(table)])
            case .drop:
                break
            }
        }
        report(plan, index: index, of: steps, entity: nil, done: 0, total: 0, overall: overall)
    }

    static func newName(_ table: String) -> String { "strata_new_" + table }
    static func keptName(_ table: String) -> String { "strata_kept_" + table }

    private func rename(_ old: String, to new: String) throws(StrataError) {
        try connection.execute("ALTER TABLE \(dialect.quote(old)) RENAME TO \(dialect.quote(new))")
    }

    /// Drops the indexes of `table` that are not wanted (by name) and creates the wanted ones it lacks.
    private func reconcileIndexes(table: String, wanted: [(name: String, statement: String)]) throws(StrataError) {
        let statement = try connection.makeStatement(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
        try statement.bind([.text(table)])
        var existing: Set<String> = []
        while try statement.step() {
            if case .text(let name) = statement.value(at: 0) { existing.insert(name) }
        }
        let names = Set(wanted.map(\.name))
        for name in existing.sorted() where !names.contains(name) {
            try connection.execute("DROP INDEX \(dialect.quote(name))")
        }
        for index in wanted where !existing.contains(index.name) {
            try connection.execute(index.statement)
        }
    }

    // MARK: Checks

    /// The SQL expression of a destination column over the source table, and the values it binds.
    private func expression(_ source: MigrationPlan.ColumnSource) -> (sql: String, values: [DatabaseValue]) {
        switch source {
        case .value(let value):
            return ("?", [value])
        case .column(let column, let cast, let fill, _):
            var expression = dialect.quote(column)
            if let cast { expression = "CAST(\(expression) AS \(cast))" }
            if let fill { return ("coalesce(\(expression), ?)", [fill]) }
            return (expression, [])
        }
    }

    /// The expressions of every destination column of a rebuilt table, in order, and their bound values.
    private func expressions(_ table: MigrationPlan.Table) -> (sql: [String], values: [DatabaseValue]) {
        var expressions: [String] = []
        var values: [DatabaseValue] = []
        for (_, origin) in table.columns {
            let (expression, bound) = expression(origin)
            expressions.append(expression)
            values += bound
        }
        return (expressions, values)
    }

    /// Refuses, before anything is copied, what the destination's constraints would refuse: `nil`s of a
    /// field that becomes required without a fill, and duplicates of a field that becomes unique.
    private func check(_ table: MigrationPlan.Table) throws(StrataError) {
        guard let source = table.source, let destination = table.destination else { return }
        let from = dialect.quote(source.name)
        for (column, origin) in table.columns {
            guard case .column(let old, _, nil, true) = origin, table.action == .rebuild else { continue }
            let nulls = try count("SELECT count(*) FROM \(from) WHERE \(dialect.quote(old)) IS NULL")
            guard nulls == 0 else {
                let property = destination.field(forColumn: column)?.property ?? column
                throw StrataError(
                    .invalidMigration,
                    "\(destination.name).\(property) becomes required, but \(nulls) object(s) have no value. Declare "
                        + ".fill(\"\(destination.name)\", \"\(property)\", with: ...) in the step to give them one.",
                    entity: destination.name, field: property)
            }
        }
        for column in table.newlyUnique {
            guard let origin = table.columns.first(where: { $0.column == column })?.source else { continue }
            let (expression, values) = expression(origin)
            let statement = try connection.makeStatement(
                "SELECT group_concat(\"id\", ', ') FROM (SELECT \"id\" FROM \(from) WHERE (\(expression)) IN "
                    + "(SELECT (\(expression)) FROM \(from) WHERE (\(expression)) IS NOT NULL GROUP BY 1 HAVING count(*) > 1) "
                    + "ORDER BY \"id\" LIMIT 10)")
            try statement.bind(values + values + values)
            if try statement.step(), case .text(let ids) = statement.value(at: 0) {
                let property = destination.field(forColumn: column)?.property ?? column
                throw StrataError(
                    .invalidMigration,
                    "\(destination.name).\(property) becomes unique, but objects share values (IDs \(ids)"
                        + "\(ids.split(separator: ",").count == 10 ? ", …" : "")). Make the values unique in a .transform "
                        + "or an earlier step, or delete the duplicates with .deleteObjects.",
                    entity: destination.name, field: property)
            }
        }
    }

    /// `PRAGMA foreign_key_check`: any row pointing at an object that does not exist fails the migration.
    private func checkForeignKeys() throws(StrataError) {
        let statement = try connection.makeStatement("PRAGMA foreign_key_check")
        if try statement.step() {
            let table = statement.value(at: 0)
            let parent = statement.value(at: 2)
            throw StrataError(
                .constraint,
                "After the migration, \(table) holds a relationship to \(parent) objects that do not exist. Check the "
                    + "step's transforms and deletions; nothing was changed.",
                sqliteCode: 19, extendedCode: 787)
        }
    }

    // MARK: Copying

    /// Copies the rows of a rebuilt table in chunks of ``chunk`` IDs, in SQL.
    private func copy(
        _ table: MigrationPlan.Table, from source: String, to destination: EntityDescription,
        onRows: (Int) throws -> Void
    ) throws {
        let (expressions, values) = expressions(table)
        let columns = (["id"] + table.columns.map(\.column)).map(dialect.quote)
        let insert = try connection.makeStatement(
            "INSERT INTO \(dialect.quote(Self.newName(destination.name))) (\(columns.joined(separator: ", "))) "
                + "SELECT \"id\", \(expressions.joined(separator: ", ")) FROM \(dialect.quote(source)) "
                + "WHERE \"id\" > ? ORDER BY \"id\" LIMIT \(Self.chunk)")
        let last = try connection.makeStatement("SELECT max(\"id\") FROM \(dialect.quote(Self.newName(destination.name)))")
        var after: Int64 = .min
        while true {
            insert.reset()
            try insert.bind(values + [.integer(after)])
            _ = try insert.step()
            let copied = connection.changes
            guard copied > 0 else { return }
            last.reset()
            guard try last.step(), case .integer(let id) = last.value(at: 0) else { return }
            after = id
            try onRows(copied)
        }
    }

    /// Migrates each object of a table through the step's transform.
    private func transform(
        _ table: MigrationPlan.Table, from source: EntityDescription, reading sourceTable: String,
        to destination: EntityDescription, onRows: (Int) throws -> Void
    ) throws {
        guard let transform = table.transform else { return }
        let fieldCount = destination.fields.count
        let (expressions, values) = expressions(table)
        // The destination object's row: ID, fields, to-many relationships (empty), derived fields (0);
        // then hidden position columns; then the source object's fields.
        let fieldExpressions = expressions.prefix(fieldCount)
        let hiddenExpressions = expressions.dropFirst(fieldCount)
        let select = ["\"id\""] + fieldExpressions
            + Array(repeating: "'[]'", count: destination.toMany.count) + Array(repeating: "0", count: destination.derived.count)
            + hiddenExpressions + source.fields.map { dialect.quote($0.column) }
        let query = try connection.makeStatement(
            "SELECT \(select.joined(separator: ", ")) FROM \(dialect.quote(sourceTable)) ORDER BY \"id\"")
        try query.bind(values)
        let columns = (["id"] + table.columns.map(\.column)).map(dialect.quote)
        let insert = try connection.makeStatement(
            "INSERT INTO \(dialect.quote(Self.newName(destination.name))) (\(columns.joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")")
        let hiddenStart = Int32(1 + fieldCount + destination.toMany.count + destination.derived.count)
        let sourceStart = hiddenStart + Int32(hiddenExpressions.count)
        var pending = 0
        while try query.step() {
            guard case .integer(let id) = query.value(at: 0) else { continue }
            var old: [String: DatabaseValue] = [:]
            for (offset, field) in source.fields.enumerated() {
                old[field.property] = query.value(at: sourceStart + Int32(offset))
            }
            let object = MigrationObject(entity: source.name, id: id, values: old)
            let fields: [DatabaseValue]
            do {
                fields = try transform.run(Row(statement: query), object)
            } catch let error as StrataError {
                throw error.with(entity: destination.name)
            }
            var row: [DatabaseValue] = [.integer(id)] + fields
            for offset in 0..<Int32(hiddenExpressions.count) { row.append(query.value(at: hiddenStart + offset)) }
            insert.reset()
            try insert.bind(row)
            do {
                _ = try insert.step()
            } catch {
                throw error.with(entity: destination.name)
            }
            pending += 1
            if pending == 1_000 {
                try onRows(pending)
                pending = 0
            }
        }
        query.reset()
        if pending > 0 { try onRows(pending) }
    }

    /// Deletes the objects of a source entity that `predicate` selects, with their join rows, and clears
    /// to-one relationships that pointed at them; their IDs are never used again.
    private func deleteObjects(
        _ entity: String, where predicate: @Sendable (MigrationObject) throws -> Bool, plan: MigrationPlan
    ) throws {
        guard let description = plan.source.entity(named: entity) else { return }
        let query = try connection.makeStatement(
            "SELECT \"id\"" + description.fields.map { ", " + dialect.quote($0.column) }.joined()
                + " FROM \(dialect.quote(entity)) ORDER BY \"id\"")
        var doomed: [Int64] = []
        while try query.step() {
            guard case .integer(let id) = query.value(at: 0) else { continue }
            var values: [String: DatabaseValue] = [:]
            for (offset, field) in description.fields.enumerated() { values[field.property] = query.value(at: Int32(offset + 1)) }
            if try predicate(MigrationObject(entity: entity, id: id, values: values)) { doomed.append(id) }
        }
        query.reset()
        guard let largest = doomed.max() else { return }
        let delete = try connection.makeStatement("DELETE FROM \(dialect.quote(entity)) WHERE \"id\" = ?")
        var cleanups: [Statement] = []
        for join in plan.sourceGraph.joinTables {
            if join.ownerTable == entity {
                cleanups.append(try connection.makeStatement("DELETE FROM \(dialect.quote(join.name)) WHERE \"source\" = ?"))
            }
            if join.otherTable == entity {
                cleanups.append(try connection.makeStatement("DELETE FROM \(dialect.quote(join.name)) WHERE \"target\" = ?"))
            }
        }
        for (other, toOnes) in plan.sourceGraph.toOne {
            for toOne in toOnes where toOne.target == entity {
                let column = dialect.quote(toOne.column)
                cleanups.append(try connection.makeStatement(
                    "UPDATE \(dialect.quote(other)) SET \(column) = NULL WHERE \(column) = ?"))
            }
        }
        for id in doomed {
            for statement in [delete] + cleanups {
                statement.reset()
                try statement.bind([.integer(id)])
                _ = try statement.step()
            }
        }
        try connection.execute(sql.raiseIDMark, [.text(SchemaSQL.idMarkKey(entity)), .text(String(largest))])
    }
}

// MARK: - Running from a stack

extension Migrator {
    /// Migrates the store at `path` to `current` if it is at an older version of `history`, on a thread
    /// outside Swift's pool; does nothing for a new store or one at the current version. Cancelling the
    /// awaiting task interrupts the migration and rolls it back.
    static func migrateIfNeeded(
        history: SchemaHistory, current: Schema, path: String, options: Connection.Options, progress: MigrationProgress?
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
                    let migrator = Migrator(history: history, current: current, connection: connection, progress: progress)
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
        } catch let error as StrataError where error.code == .interrupted && Task.isCancelled {
            throw CancellationError()
        }
    }

    /// What `migrateIfNeeded` would do, read without changing the file.
    static func forecast(history: SchemaHistory, current: Schema, path: String, options: Connection.Options) async throws
        -> MigrationForecast
    {
        guard FileManager.default.fileExists(atPath: path) else {
            return MigrationForecast(storeVersion: nil, currentVersion: current.version, steps: [])
        }
        var readOnly = options
        readOnly.readOnly = true
        readOnly.create = false
        let readOptions = readOnly
        return try await OffPool.run {
            let connection = try Connection(path: path, options: readOptions)
            defer { connection.close() }
            guard let state = try storeState(connection) else {
                return MigrationForecast(storeVersion: nil, currentVersion: current.version, steps: [])
            }
            guard state.version != current.version else {
                return MigrationForecast(storeVersion: state.version, currentVersion: current.version, steps: [])
            }
            let migrator = Migrator(history: history, current: current, connection: connection, progress: nil)
            let plans = try migrator.path(for: state)
            try connection.execute("BEGIN")
            defer { try? connection.execute("COMMIT") }
            let rows = try migrator.estimatedRows(plans)
            var steps: [MigrationForecast.Step] = []
            for (plan, rows) in zip(plans, rows) {
                var entities: [MigrationForecast.EntityChange] = []
                for table in plan.tables {
                    let count = table.source.map { rows[$0.name] ?? 0 } ?? 0
                    let kind: MigrationForecast.Kind =
                        switch table.action {
                        case .create: .create
                        case .alter: .inferred
                        case .rebuild: .rebuild
                        case .transform: .custom
                        case .delete: .delete
                        }
                    entities.append(MigrationForecast.EntityChange(
                        entity: table.name, sourceEntity: table.source?.name, kind: kind, rows: count))
                }
                steps.append(MigrationForecast.Step(
                    source: plan.source.version, destination: plan.destination.version, entities: entities))
            }
            return MigrationForecast(storeVersion: state.version, currentVersion: current.version, steps: steps)
        }
    }
}
