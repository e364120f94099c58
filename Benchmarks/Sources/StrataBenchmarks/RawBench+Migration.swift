import Foundation

/// Workload m for raw SQLite: each migration as a careful hand-written program runs it, on one
/// connection, in one `BEGIN IMMEDIATE` … `COMMIT`, synchronously on the calling thread. The connection
/// is opened before the timer starts, and has read the schema and written the WAL's header (an empty
/// transaction creating and dropping a table, as GRDB's `DatabasePool` does when it opens), so that
/// the sync of a new WAL's header is not counted as part of the migration for raw SQLite, as it is not
/// for GRDB.
///
/// - m1: `ALTER TABLE … ADD COLUMN` with the default: SQLite rewrites no row.
/// - m2: the rebuild of SQLite's documentation (*Making Other Kinds Of Table Schema Changes*): a new
///   table, one `INSERT … SELECT` with the `CAST`, drop, rename, the index recreated. Foreign keys are
///   off on this connection (SQLite's default), so the procedure's `PRAGMA foreign_keys` steps are moot.
/// - m3: a prepared `SELECT` steps through the rows in ID order, Swift computes each new row, a prepared
///   `INSERT` writes it into a new table, which then replaces the old one (the index is built at the
///   end, as in m2). Writing a new table rather than updating in place keeps the read cursor off the
///   table being written (SQLite leaves undefined which rows a scan sees when its table changes under
///   it), and it is what the other two implementations do, so the ratio compares the per-row work.
extension RawBench {
    static let addFieldSQL = "ALTER TABLE item ADD COLUMN rating INTEGER NOT NULL DEFAULT 0"
    static let rebuildSQL = [
        "CREATE TABLE item_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL, years REAL NOT NULL, "
            + "score REAL NOT NULL, created REAL NOT NULL)",
        "INSERT INTO item_new (id, name, years, score, created) SELECT id, name, CAST(age AS REAL), score, created FROM item",
        "DROP TABLE item",
        "ALTER TABLE item_new RENAME TO item",
        "CREATE INDEX item_years ON item(years)",
    ]
    static let transformTableSQL = """
        CREATE TABLE item_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, \
        score REAL NOT NULL, created REAL NOT NULL)
        """
    static let transformSelectSQL = "SELECT id, name, age, score, created FROM item ORDER BY id"
    static let transformInsertSQL = "INSERT INTO item_new (id, name, age, score, created) VALUES (?, ?, ?, ?, ?)"
    static let replaceTableSQL = ["DROP TABLE item", "ALTER TABLE item_new RENAME TO item", "CREATE INDEX item_age ON item(age)"]

    /// Makes the V1 store of m once (the schema, the dataset's rows) and seals it.
    func prepareMigration() throws {
        let path = MigrationFiles.source(environment, "raw")
        guard !FileManager.default.fileExists(atPath: path) else { return }
        do {
            let db = try Self.makeDatabase(path)
            try Self.insertAll(environment.dataset.items, into: db)
        }
        try MigrationFiles.seal(path)
    }

    /// Migrates a fresh copy of the V1 store once, timed; then checksums the migrated table.
    func migrate(_ workload: Workload, _ part: MigrationPart, round: Int) throws -> Sample {
        let path = MigrationFiles.round(environment, "raw", workload, round)
        try MigrationFiles.copy(MigrationFiles.source(environment, "raw"), to: path, environment)
        defer { environment.remove(path) }
        var sample: Sample
        do {
            let db = try RawDatabase(path: path)
            try db.configureWAL()
            try db.execute("BEGIN IMMEDIATE; CREATE TABLE wal_primer(x); DROP TABLE wal_primer; COMMIT")
            switch part {
            case .addField:
                let start = nanoseconds()
                try db.execute("BEGIN IMMEDIATE; \(Self.addFieldSQL); COMMIT")
                let elapsed = seconds(since: start)
                sample = Sample(Metrics.migrationTime, elapsed * 1000, checksum: try Self.ratedChecksum(db))
            case .rebuild, .transform:
                let memory = PeakMemory.start()
                let start = nanoseconds()
                try db.execute("BEGIN IMMEDIATE")
                if part == .rebuild {
                    for sql in Self.rebuildSQL { try db.execute(sql) }
                } else {
                    try Self.transformRows(db)
                }
                try db.execute("COMMIT")
                let elapsed = seconds(since: start)
                let growth = memory?.growth()
                let checksum = part == .rebuild ? try Self.rebuiltChecksum(db) : try Self.checksumOfTable(db)
                sample = Self.migrationSample(rows: environment.dataset.items.count, elapsed, growth, checksum)
            }
        }
        try MigrationFiles.requireIndex(path, column: part.indexedColumn)
        return sample
    }

    /// m3's rows, streamed from `item` into `item_new` through ``ItemTransform``, and the table swap.
    private static func transformRows(_ db: RawDatabase) throws {
        try db.execute(transformTableSQL)
        let select = try db.prepare(transformSelectSQL)
        let insert = try db.prepare(transformInsertSQL)
        while try select.step() {
            insert.bind(select.int64(0), at: 1)
            insert.bind(ItemTransform.name(select.text(1)), at: 2)
            insert.bind(select.int64(2), at: 3)
            insert.bind(ItemTransform.score(select.double(3)), at: 4)
            insert.bind(select.double(4), at: 5)
            try insert.run()
        }
        select.reset()
        for sql in replaceTableSQL { try db.execute(sql) }
    }

    /// The sample of m2 or m3, with the time in the round's note.
    static func migrationSample(rows: Int, _ elapsed: Double, _ growth: Double?, _ checksum: Checksum) -> Sample {
        var values = [Metrics.migrationRate: Double(rows) / elapsed]
        if let growth { values[Metrics.migrationMemory] = growth }
        var sample = Sample(values: values, checksum: checksum)
        sample.note = String(format: "%.0f ms", elapsed * 1000)
        return sample
    }

    private static func ratedChecksum(_ db: RawDatabase) throws -> Checksum {
        let statement = try db.prepare("SELECT id, name, age, score, created, rating FROM item")
        var checksum = Checksum()
        while try statement.step() {
            checksum.addRated(
                id: statement.int64(0), name: statement.text(1), age: Int(statement.int64(2)), score: statement.double(3),
                created: statement.double(4), rating: Int(statement.int64(5)))
        }
        return checksum
    }

    private static func rebuiltChecksum(_ db: RawDatabase) throws -> Checksum {
        let statement = try db.prepare("SELECT id, name, years, score, created FROM item")
        var checksum = Checksum()
        while try statement.step() {
            checksum.addRebuilt(
                id: statement.int64(0), name: statement.text(1), years: statement.double(2), score: statement.double(3),
                created: statement.double(4))
        }
        return checksum
    }
}
