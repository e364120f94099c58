import Foundation
import Logging

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
    /// The configuration of the store in a stack of several (`nil`: the default one), for the progress.
    let configuration: String?
    /// The stack's logger, for the warnings of a step (fields dropped beside new ones of the same type).
    let logger: Logger?
    let sql = SchemaSQL()
    let dialect = SQLiteDialect()
    /// Rows copied per statement, between progress reports.
    static let chunk = 10_000

    init(
        history: SchemaHistory, current: Schema, connection: Connection, progress: MigrationProgress?,
        configuration: String? = nil, logger: Logger? = nil
    ) {
        self.history = history
        self.current = current
        self.connection = connection
        self.progress = progress
        self.configuration = configuration
        self.logger = logger
    }

    /// The store's version and hash, or `nil` for a store Strata has not set up yet.
    static func storeState(_ connection: Connection) throws(StrataError) -> (version: String, hash: String, tag: UInt32)? {
        let tables = try connection.makeStatement(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '\(SchemaSQL.metadataTable)'")
        guard try tables.step() else { return nil }
        let metadata = try SchemaSetup.metadata(connection)
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
            !schema.isStoredHash(state.hash)
        {
            throw StrataError(
                .schemaMismatch,
                "Schema \(state.version) changed since the store at \(connection.path) was made with it: "
                    + "\(SchemaSetup.differences(connection, schema: schema)). A version that shipped must stay as it "
                    + "was: undo the edit, and declare changes as a new version. The file was not changed.")
        }
        var plans: [MigrationPlan] = []
        for edge in path {
            // In a tree chain, the other versions that migrate to the same one (a `renamedFrom:` may be theirs).
            let others = history.schemas.filter {
                $0.version != edge.source.version && history.chain.successor(of: $0.version) == edge.destination.version
            }.map { other in (schema: other, step: history.steps.first { $0.source == other.version }) }
            plans.append(try MigrationPlan(source: edge.source, destination: edge.destination, step: edge.step, otherSources: others))
        }
        return plans
    }

    /// Runs the plans in one transaction.
    func run(_ plans: [MigrationPlan], cancelled: @Sendable () -> Bool) throws {
        try connection.execute("PRAGMA foreign_keys = OFF")
        defer { try? connection.execute("PRAGMA foreign_keys = ON") }
        // Begun as the writer begins: an error after which SQLite rolls the migration back is noted, and
        // a custom step's closure that caught it can write nothing more (see `Connection.lostWrite`).
        try connection.beginWrite()
        defer { connection.writeEnded() }
        var plans = plans
        do {
            // Another process may have migrated the store while this one waited for the lock: to this
            // version (nothing left to do), or to another one, from which the path is found again (and
            // refused, when the history does not declare it: a newer app migrated it).
            if let state = try Self.storeState(connection) {
                if state.version == current.version {
                    try connection.execute("COMMIT")
                    return
                }
                if state.version != plans.first?.source.version { plans = try path(for: state) }
            }
            if let first = plans.first { try SchemaSetup.addMissingJoinTables(connection, schema: first.source) }
            let counts = try estimatedRows(plans, copiedOnly: true)
            var totals = Progress(total: zip(plans, counts).reduce(0) { sum, pair in
                sum + pair.0.tables.filter { $0.action == .rebuild || $0.action == .transform }
                    .reduce(0) { $0 + (pair.1[$1.source?.name ?? ""] ?? 0) }
            })
            for (index, plan) in plans.enumerated() {
                warnOfSuspectedRenames(plan)
                try run(plan, index: index, of: plans.count, counts: counts[index], progress: &totals, cancelled: cancelled)
            }
            let update = "UPDATE \(SchemaSQL.metadataTable) SET value = ? WHERE key = ?"
            try connection.execute(update, [.text(current.version), .text("schema_version")])
            try connection.execute(update, [.text(current.versionHash), .text("schema_hash")])
            try checkForeignKeys(plans.last?.destinationGraph)
            try connection.execute("COMMIT")
            if let last = plans.last {
                report(last, index: plans.count - 1, of: plans.count, entity: nil, done: 0, total: 0, overall: totals, finished: true)
            }
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
        var total: Int
    }

    /// The rows of each source entity of each plan: counted in the store for the first plan, carried
    /// over by name (renames followed) for the later ones. With `copiedOnly`, only the entities whose
    /// rows some step copies or transforms are counted (the others are 0): a step that keeps every table
    /// (fields added with `ALTER TABLE`) then counts no rows.
    func estimatedRows(_ plans: [MigrationPlan], copiedOnly: Bool = false) throws(StrataError) -> [[String: Int]] {
        // The first version's entities that some step copies, following each one back through the steps.
        var needed: Set<String> = []
        for plan in plans.reversed() {
            var sources: Set<String> = []
            for table in plan.tables {
                guard let source = table.source?.name else { continue }
                if table.action == .rebuild || table.action == .transform || needed.contains(table.destination?.name ?? "") {
                    sources.insert(source)
                }
            }
            needed = sources
        }
        var rows: [String: Int] = [:]
        for entity in plans.first?.source.entities ?? [] where !copiedOnly || needed.contains(entity.name) {
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

    private func report(
        _ plan: MigrationPlan, index: Int, of steps: Int, entity: String?, done: Int, total: Int, overall: Progress,
        finished: Bool = false
    ) {
        progress?.report(MigrationProgress.Event(
            source: plan.source.version, destination: plan.destination.version, stepIndex: index, stepCount: steps,
            entity: entity, completedRows: done, totalRows: total, overallCompletedRows: overall.done,
            overallTotalRows: overall.total, isFinished: finished, configuration: configuration))
    }

    // MARK: One step

    private func run(
        _ plan: MigrationPlan, index: Int, of steps: Int, counts: [String: Int], progress overall: inout Progress,
        cancelled: @Sendable () -> Bool
    ) throws {
        do {
            try runStep(plan, index: index, of: steps, counts: counts, progress: &overall, cancelled: cancelled)
        } catch let error as MigrationError {
            throw error.inStep(from: plan.source.version, to: plan.destination.version)
        } catch let error as StrataError where !error.message.hasPrefix("Migration ") && error.code != .transactionCancelled {
            // Strata's own errors (a constraint, a value a closure read with the wrong type) say which step.
            throw error.adding(place: "in the migration step \(plan.source.version) → \(plan.destination.version)")
        }
    }

    private func runStep(
        _ plan: MigrationPlan, index: Int, of steps: Int, counts: [String: Int], progress overall: inout Progress,
        cancelled: @Sendable () -> Bool
    ) throws {
        report(plan, index: index, of: steps, entity: nil, done: 0, total: 0, overall: overall)
        for deletion in plan.deletions {
            try deleteObjects(deletion.entity, where: deletion.predicate, plan: plan)
        }
        // The rows counted before the migration, less those deleted since (by this step or an earlier
        // one): each copied table is counted again, and a smaller count lowers the totals (a larger one,
        // rows an earlier step added, is left to the clamp, so the fraction never goes back).
        var counts = counts
        for table in plan.tables where table.action == .rebuild || table.action == .transform {
            guard let source = table.source?.name, let estimated = counts[source] else { continue }
            let actual = try count("SELECT count(*) FROM \(dialect.quote(source))")
            guard actual < estimated else { continue }
            counts[source] = actual
            overall.total = max(overall.done, overall.total - (estimated - actual))
        }
        for table in plan.tables {
            try checkExactness(table)
            if table.action == .rebuild || table.action == .transform { try check(table) }
        }
        for (number, move) in plan.linkMoves.enumerated() {
            try collectLinks(move, into: Self.linksName(number))
        }
        if !plan.customs.isEmpty {
            for entity in plan.source.entities {
                try connection.execute(
                    "CREATE TEMP TABLE \(dialect.quote(MigrationTransaction.sourceTable(entity.name))) AS "
                        + "SELECT * FROM \(dialect.quote(entity.name))")
            }
        }
        try clearLinksToDeletedEntities(plan)
        // Renames first, through temporary names (so that names can swap), with SQLite's ALTER TABLE,
        // which also rewrites the foreign keys of other tables that point at a renamed table.
        for table in plan.tables {
            guard let source = table.source else { continue }
            if table.action == .delete {
                try dropDeletedEntity(source.name)
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
        // ID marks move with their tables, through keys of their own first (entities that swap names).
        for table in plan.tables {
            guard let source = table.source, let destination = table.destination, source.name != destination.name else { continue }
            try rename(Self.keptName(destination.name), to: destination.name)
            try connection.execute(
                "UPDATE \(SchemaSQL.metadataTable) SET key = ? WHERE key = ?",
                [.text(Self.keptName(SchemaSQL.idMarkKey(destination.name))), .text(SchemaSQL.idMarkKey(source.name))])
        }
        // The mark of an entity deleted now or earlier may hold the name already: the larger one stays.
        for table in plan.tables {
            guard let source = table.source, let destination = table.destination, source.name != destination.name else { continue }
            let kept = Self.keptName(SchemaSQL.idMarkKey(destination.name))
            try connection.execute(sql.copyIDMark, [.text(SchemaSQL.idMarkKey(destination.name)), .text(kept)])
            try connection.execute("DELETE FROM \(SchemaSQL.metadataTable) WHERE key = ?", [.text(kept)])
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
        var wantedIndexes: [String: [(name: String, statement: String)]] = [:]
        for table in plan.tables {
            guard let destination = table.destination else { continue }
            let name = dialect.quote(destination.name)
            switch table.action {
            case .alter:
                // A swap (a to b, b to a) or a chain (a to b, b to c) renames a column to a name another
                // column still has: each then goes through a name of its own first.
                let sourceColumns = Set(table.source?.fields.map(\.column) ?? [])
                let renames = table.renamedColumns.contains { sourceColumns.contains($0.new) }
                    ? table.renamedColumns.enumerated().map { (old: $1.old, new: "strata_renaming_\($0)") }
                        + table.renamedColumns.enumerated().map { (old: "strata_renaming_\($0)", new: $1.new) }
                    : table.renamedColumns
                for (old, new) in renames {
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
            wantedIndexes[destination.name] = sql.indexes(destination, graph: plan.destinationGraph)
        }
        for join in plan.joins {
            switch join {
            case .create(let table):
                try connection.execute(sql.createTable(table))
                wantedIndexes[table.name] = sql.joinIndexes(table)
            case .keep(_, let table):
                wantedIndexes[table.name] = sql.joinIndexes(table)
            case .drop:
                break
            }
        }
        let uniqueChecks = plan.tables.compactMap(\.destination).flatMap { entity in
            sql.uniqueIndexes(entity).map { (name: $0.name, check: (entity: entity.name, properties: $0.properties, columns: $0.columns)) }
        }
        try reconcileIndexes(wantedIndexes, checking: Dictionary(uniqueChecks, uniquingKeysWith: { a, _ in a }))
        for (number, move) in plan.linkMoves.enumerated() {
            try writeLinks(move, from: Self.linksName(number), graph: plan.destinationGraph)
        }
        for relationship in plan.renumbered {
            try numberPositions(relationship)
        }
        if !plan.customs.isEmpty {
            report(plan, index: index, of: steps, entity: nil, done: 0, total: 0, overall: overall)
            try runCustoms(plan)
        }
        try checkReads(plan)
        report(plan, index: index, of: steps, entity: nil, done: 0, total: 0, overall: overall)
    }

    static func newName(_ table: String) -> String { "strata_new_" + table }
    static func keptName(_ table: String) -> String { "strata_kept_" + table }
    static func linksName(_ number: Int) -> String { "strata_links_\(number)" }

    private func rename(_ old: String, to new: String) throws(StrataError) {
        try connection.execute("ALTER TABLE \(dialect.quote(old)) RENAME TO \(dialect.quote(new))")
    }

    /// Gives the tables the indexes wanted, by table: drops every index of theirs that is not wanted as
    /// it is (by name, table and definition: SQLite keeps an index's name when its table or column is
    /// renamed, so a name may now belong to another table, or cover another column), then creates the
    /// wanted ones missing. All drops come first: a name a renamed table's index still has may be one a
    /// new table wants. A unique index over several fields created anew (`checking`, by name) is first
    /// checked for objects that break it (``checkUnique(_:)``).
    private func reconcileIndexes(
        _ wanted: [String: [(name: String, statement: String)]], checking: [String: UniqueCheck]
    ) throws(StrataError) {
        let statement = try connection.makeStatement(
            "SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")
        var existing: [(name: String, table: String, sql: String)] = []
        while try statement.step() {
            guard case .text(let name) = statement.value(at: 0), case .text(let table) = statement.value(at: 1),
                case .text(let sql) = statement.value(at: 2)
            else { continue }
            existing.append((name, table, sql))
        }
        statement.reset()
        func normalized(_ sql: String) -> String { sql.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        var kept: Set<String> = []
        for index in existing.sorted(by: { $0.name < $1.name }) {
            let inScope = wanted[index.table] != nil || wanted.values.contains { $0.contains { $0.name == index.name } }
            guard inScope else { continue }
            if let match = wanted[index.table]?.first(where: { $0.name == index.name }),
                normalized(match.statement) == normalized(index.sql)
            {
                kept.insert(index.name)
            } else {
                try connection.execute("DROP INDEX \(dialect.quote(index.name))")
            }
        }
        for (_, indexes) in wanted.sorted(by: { $0.key < $1.key }) {
            for index in indexes where !kept.contains(index.name) {
                if let check = checking[index.name] { try checkUnique(check) }
                try connection.execute(index.statement)
            }
        }
    }

}
