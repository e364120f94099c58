import Foundation

/// Workload l for raw SQLite: one connection, opened before the timer (on l1's and l2's copies it has
/// also written the WAL's header, as in m), statements prepared once, synchronously on the calling
/// thread.
///
/// - l1, l2 (the same code): SQLite's upsert, `INSERT … ON CONFLICT(key) DO UPDATE SET name =
///   excluded.name, age = excluded.age, score = excluded.score`, bound and stepped once per source,
///   between `BEGIN IMMEDIATE` and `COMMIT`.
/// - l3: a prepared `INSERT` per row, `BEGIN IMMEDIATE` … `COMMIT` around every 10,000.
extension RawBench {
    static let contactSchema = """
        CREATE TABLE contact(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, name TEXT NOT NULL, \
        age INTEGER NOT NULL, score REAL NOT NULL)
        """
    static let contactInsertSQL = "INSERT INTO contact(key, name, age, score) VALUES (?, ?, ?, ?)"
    static let contactUpsertSQL = contactInsertSQL
        + " ON CONFLICT(key) DO UPDATE SET name = excluded.name, age = excluded.age, score = excluded.score"
    static let contactSelectSQL = "SELECT key, name, age, score FROM contact"

    /// Makes the 20,000-row store of l1 and l2 once and seals it.
    func prepareImport() throws {
        let path = ImportFiles.source(environment, "raw")
        guard !FileManager.default.fileExists(atPath: path) else { return }
        do {
            let db = try Self.makeContactDatabase(path)
            let insert = try db.prepare(Self.contactInsertSQL)
            try db.execute("BEGIN IMMEDIATE")
            for source in environment.imports.stored { try Self.writeContact(source, insert) }
            try db.execute("COMMIT")
        }
        try MigrationFiles.seal(path)
    }

    /// Runs one round of l, timed; then checksums the table.
    func importContacts(_ workload: Workload, _ part: ImportPart, round: Int) throws -> Sample {
        let path = try ImportFiles.round(environment, "raw", workload, round)
        defer { environment.remove(path) }
        let db: RawDatabase
        if part.startsFromStoredRows {
            db = try RawDatabase(path: path)
            try db.configureWAL()
            try db.execute("BEGIN IMMEDIATE; CREATE TABLE wal_primer(x); DROP TABLE wal_primer; COMMIT")
        } else {
            db = try Self.makeContactDatabase(path)
        }
        switch part {
        case .uniqueImport, .batchUpsert:
            let sources = environment.imports.sources
            let upsert = try db.prepare(Self.contactUpsertSQL)
            let start = nanoseconds()
            try db.execute("BEGIN IMMEDIATE")
            for source in sources { try Self.writeContact(source, upsert) }
            try db.execute("COMMIT")
            let elapsed = seconds(since: start)
            return .imported(sources: sources.count, elapsed, try Self.contactChecksum(db))
        case .stream:
            return try stream(db)
        }
    }

    /// l3: the streamed rows, 10,000 per transaction.
    private func stream(_ db: RawDatabase) throws -> Sample {
        let count = StreamedSources.rowCount
        let chunk = StreamedSources.chunkSize
        let insert = try db.prepare(Self.contactInsertSQL)
        let begin = try db.prepare("BEGIN IMMEDIATE")
        let commit = try db.prepare("COMMIT")
        var atCheckpoint: Double?
        let memory = PeakMemory.start()
        let start = nanoseconds()
        for index in 0..<count {
            if index == StreamedSources.checkpointRow { atCheckpoint = memory?.growth() }
            if index % chunk == 0 { try begin.run() }
            try Self.writeContact(StreamedSources.source(index), insert)
            if index % chunk == chunk - 1 || index == count - 1 { try commit.run() }
        }
        let elapsed = seconds(since: start)
        let atEnd = memory?.growth()
        return .streamed(rows: count, elapsed, atCheckpoint: atCheckpoint, atEnd: atEnd, try Self.contactChecksum(db))
    }

    private static func makeContactDatabase(_ path: String) throws -> RawDatabase {
        let db = try RawDatabase(path: path)
        try db.configureWAL()
        try db.execute(contactSchema)
        return db
    }

    @inline(__always)
    private static func writeContact(_ source: ContactSource, _ statement: RawStatement) throws {
        statement.bind(source.key, at: 1)
        statement.bind(source.name, at: 2)
        statement.bind(Int64(source.age), at: 3)
        statement.bind(source.score, at: 4)
        try statement.run()
    }

    private static func contactChecksum(_ db: RawDatabase) throws -> Checksum {
        let statement = try db.prepare(contactSelectSQL)
        var checksum = Checksum()
        while try statement.step() {
            checksum.addContact(
                key: statement.text(0), name: statement.text(1), age: Int(statement.int64(2)), score: statement.double(3))
        }
        return checksum
    }
}
