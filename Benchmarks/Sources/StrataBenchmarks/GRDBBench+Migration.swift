import Foundation
import GRDB

/// Workload m for GRDB: a `DatabaseMigrator` whose migration "v1" created the schema (the V1
/// store was made by running it), and whose "v2" is the part's change, written as GRDB's migration
/// guide does. The time is `migrator.migrate(pool)` on a `DatabasePool` opened beforehand: GRDB reads
/// which migrations ran, then runs "v2" in one transaction with foreign keys off and checked before the
/// commit (its default, `.deferred`, which follows SQLite's procedure for table rebuilds). `migrate` is
/// synchronous, as apps call it at launch, so it runs on a plain thread (``onPlainThread(_:)``).
///
/// - m1: `alter(table:)` adding the column with its default.
/// - m2: GRDB's *How to Recreate a Database Table*: `create(table:)`, `INSERT … SELECT` with the
///   `CAST`, `drop(table:)`, `rename(table:to:)`, `create(index:)`.
/// - m3: the same swap, filled through a `Row` cursor over the old table and a prepared `INSERT`
///   executed with each new row's arguments.
extension GRDBBench {
    /// The migrator of m: "v1" alone (`part` nil) makes the V1 store; with a part, "v2" migrates it.
    static func migrator(_ part: MigrationPart?) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: RawBench.schema)
        }
        switch part {
        case nil:
            break
        case .addField:
            migrator.registerMigration("v2") { db in
                try db.alter(table: "item") { t in
                    t.add(column: "rating", .integer).notNull().defaults(to: 0)
                }
            }
        case .rebuild:
            migrator.registerMigration("v2") { db in
                try createNewItemTable(db, number: "years", .double)
                try db.execute(sql: """
                    INSERT INTO item_new (id, name, years, score, created) \
                    SELECT id, name, CAST(age AS REAL), score, created FROM item
                    """)
                try replaceItemTable(db, indexing: "years")
            }
        case .transform:
            migrator.registerMigration("v2") { db in
                try createNewItemTable(db, number: "age", .integer)
                let insert = try db.makeStatement(sql: RawBench.transformInsertSQL)
                let rows = try Row.fetchCursor(db, sql: RawBench.transformSelectSQL)
                while let row = try rows.next() {
                    let id: Int64 = row[0]
                    let name: String = row[1]
                    let age: Int = row[2]
                    let score: Double = row[3]
                    let created: Double = row[4]
                    try insert.execute(arguments: [id, ItemTransform.name(name), age, ItemTransform.score(score), created])
                }
                try replaceItemTable(db, indexing: "age")
            }
        }
        return migrator
    }

    /// `item_new`: the `item` columns, with `number` (age or years) of the given type.
    private static func createNewItemTable(_ db: Database, number: String, _ type: Database.ColumnType) throws {
        try db.create(table: "item_new") { t in
            t.primaryKey("id", .integer)
            t.column("name", .text).notNull()
            t.column(number, type).notNull()
            t.column("score", .double).notNull()
            t.column("created", .double).notNull()
        }
    }

    /// Drops `item`, renames `item_new` to `item` and indexes `column`.
    private static func replaceItemTable(_ db: Database, indexing column: String) throws {
        try db.drop(table: "item")
        try db.rename(table: "item_new", to: "item")
        try db.create(index: "item_\(column)", on: "item", columns: [column])
    }

    private var migrationSource: String { MigrationFiles.source(environment, prefix) }

    /// Makes the V1 store of m once, through migration "v1" and the records, and seals it.
    func prepareMigration() async throws {
        let path = migrationSource
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let pool = try DatabasePool(path: path, configuration: Self.configuration)
        try await onPlainThread { try Self.migrator(nil).migrate(pool) }
        let items = environment.dataset.items
        try await pool.write { db in
            for data in items {
                var record = Record(data)
                try record.insert(db)
            }
        }
        try pool.close()
        try MigrationFiles.seal(path)
    }

    /// Migrates a fresh copy of the V1 store once, timed; then checksums the migrated table.
    func migrate(_ workload: Workload, _ part: MigrationPart, round: Int) async throws -> Sample {
        let path = MigrationFiles.round(environment, prefix, workload, round)
        try MigrationFiles.copy(migrationSource, to: path, environment)
        defer { environment.remove(path) }
        let pool = try DatabasePool(path: path, configuration: Self.configuration)
        let migrator = Self.migrator(part)
        let measureMemory = part != .addField
        let (elapsed, growth) = try await onPlainThread {
            let memory = measureMemory ? PeakMemory.start() : nil
            let start = nanoseconds()
            try migrator.migrate(pool)
            let elapsed = seconds(since: start)
            return (elapsed, memory?.growth())
        }
        let checksum = try await pool.read { db in try Self.migratedChecksum(db, part) }
        try pool.close()
        try MigrationFiles.requireIndex(path, column: part.indexedColumn)
        if part == .addField { return Sample(Metrics.migrationTime, elapsed * 1000, checksum: checksum) }
        return RawBench.migrationSample(rows: environment.dataset.items.count, elapsed, growth, checksum)
    }

    private static func migratedChecksum(_ db: Database, _ part: MigrationPart) throws -> Checksum {
        var checksum = Checksum()
        switch part {
        case .addField:
            let rows = try Row.fetchCursor(db, sql: "SELECT id, name, age, score, created, rating FROM item")
            while let row = try rows.next() {
                checksum.addRated(id: row[0], name: row[1], age: row[2], score: row[3], created: row[4], rating: row[5])
            }
        case .rebuild:
            let rows = try Row.fetchCursor(db, sql: "SELECT id, name, years, score, created FROM item")
            while let row = try rows.next() {
                checksum.addRebuilt(id: row[0], name: row[1], years: row[2], score: row[3], created: row[4])
            }
        case .transform:
            let rows = try Row.fetchCursor(db, sql: RawBench.selectAllSQL)
            while let row = try rows.next() {
                checksum.addItem(id: row[0], name: row[1], age: row[2], score: row[3], created: row[4])
            }
        }
        return checksum
    }
}
