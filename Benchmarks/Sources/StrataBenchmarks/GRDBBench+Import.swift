import Foundation
import GRDB

/// Workload l for GRDB: a `DatabasePool` opened before the timer, the hand-written ``GRDBContact``
/// record (in l, "GRDB" is this record, whichever record type the contestant maps `item` with).
///
/// - l1, l2 (the same code): one `try await pool.write { db in … }` calling the record's `upsert(db)`
///   per source: GRDB's `INSERT … ON CONFLICT DO UPDATE SET` (every column but the primary key)
///   `RETURNING rowid`, which hands the row's ID back to the record.
/// - l3: `StreamedSources` read as an `AsyncSequence` into chunks of 10,000, each inserted
///   (`insert(db)`) in one `pool.write`.
extension GRDBBench {
    /// Makes the 20,000-row store of l1 and l2 once, through the record, and seals it.
    func prepareImport() async throws {
        let path = ImportFiles.source(environment, prefix)
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let pool = try DatabasePool(path: path, configuration: Self.configuration)
        let stored = environment.imports.stored
        try await pool.write { db in
            try db.execute(sql: RawBench.contactSchema)
            for source in stored {
                var record = GRDBContact(source)
                try record.insert(db)
            }
        }
        try pool.close()
        try MigrationFiles.seal(path)
    }

    /// Runs one round of l, timed; then checksums the table.
    func importContacts(_ workload: Workload, _ part: ImportPart, round: Int) async throws -> Sample {
        let path = try ImportFiles.round(environment, prefix, workload, round)
        defer { environment.remove(path) }
        let pool = try DatabasePool(path: path, configuration: Self.configuration)
        defer { try? pool.close() }
        switch part {
        case .uniqueImport, .batchUpsert:
            let sources = environment.imports.sources
            let start = nanoseconds()
            try await pool.write { db in
                for source in sources {
                    var record = GRDBContact(source)
                    try record.upsert(db)
                }
            }
            let elapsed = seconds(since: start)
            return .imported(sources: sources.count, elapsed, try await Self.contactChecksum(pool))
        case .stream:
            try await pool.write { db in try db.execute(sql: RawBench.contactSchema) }
            return try await stream(pool)
        }
    }

    /// l3: the streamed rows, a chunk of 10,000 per `write`.
    private func stream(_ pool: DatabasePool) async throws -> Sample {
        let atCheckpoint = Locked<Double?>(nil)
        let memory = PeakMemory.start()
        let sources = StreamedSources(count: StreamedSources.rowCount, checkpoint: StreamedSources.checkpointRow) {
            atCheckpoint.withLock { $0 = memory?.growth() }
        }
        let start = nanoseconds()
        var chunk: [ContactSource] = []
        chunk.reserveCapacity(StreamedSources.chunkSize)
        for await source in sources {
            chunk.append(source)
            if chunk.count == StreamedSources.chunkSize {
                try await Self.insertContacts(chunk, pool)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { try await Self.insertContacts(chunk, pool) }
        let elapsed = seconds(since: start)
        let atEnd = memory?.growth()
        return .streamed(
            rows: sources.count, elapsed, atCheckpoint: atCheckpoint.withLock { $0 }, atEnd: atEnd,
            try await Self.contactChecksum(pool))
    }

    private static func insertContacts(_ chunk: [ContactSource], _ pool: DatabasePool) async throws {
        try await pool.write { db in
            for source in chunk {
                var record = GRDBContact(source)
                try record.insert(db)
            }
        }
    }

    /// The checksum of the table, through a cursor (l3's million rows are never held).
    private static func contactChecksum(_ pool: DatabasePool) async throws -> Checksum {
        try await pool.read { db in
            var checksum = Checksum()
            let rows = try Row.fetchCursor(db, sql: RawBench.contactSelectSQL)
            while let row = try rows.next() {
                checksum.addContact(key: row[0], name: row[1], age: row[2], score: row[3])
            }
            return checksum
        }
    }
}
