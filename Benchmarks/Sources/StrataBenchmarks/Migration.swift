/// Workload m: a schema migration of a store holding the dataset's 100,000 rows, at version 1 (the
/// `item` schema every other workload uses). Each round, every implementation migrates a fresh copy
/// of a V1 store it made itself (``MigrationFiles``), so the fill is never timed.
///
/// - m1, ``addField``: version 2 adds `rating INTEGER NOT NULL DEFAULT 0`. SQLite's `ALTER TABLE …
///   ADD COLUMN` changes only the schema, so the time must not grow with the rows.
/// - m2, ``rebuild``: version 2 renames `age` to `years` and makes it a `REAL` (indexed as `age` was).
///   A column's declared type cannot change in place, so the table is rebuilt (SQLite's procedure:
///   new table, copy in SQL, drop, rename, index).
/// - m3, ``transform``: version 2 keeps the columns, but every row goes through Swift code
///   (``ItemTransform``): the name upper-cased, the score doubled. The rows are read one by one and
///   written into a new table, never held all at once.
enum MigrationPart: Sendable {
    case addField
    case rebuild
    case transform

    /// The column the migrated table's index must cover.
    var indexedColumn: String {
        self == .rebuild ? "years" : "age"
    }
}

/// The per-row Swift code of m3, the same for every implementation.
enum ItemTransform {
    @inline(__always)
    static func name(_ name: String) -> String {
        name.uppercased()
    }

    @inline(__always)
    static func score(_ score: Double) -> Double {
        score * 2
    }
}

extension Checksum {
    /// Adds one row of m1's migrated table: an `item` row and its `rating`.
    mutating func addRated(id: Int64, name: String, age: Int, score: Double, created: Double, rating: Int) {
        add(UInt64(bitPattern: id), Self.hash(name), UInt64(bitPattern: Int64(age)), score.bitPattern, created.bitPattern,
            UInt64(bitPattern: Int64(rating)))
    }

    /// Adds one row of m2's migrated table, whose `years` is a `Double`.
    mutating func addRebuilt(id: Int64, name: String, years: Double, score: Double, created: Double) {
        add(UInt64(bitPattern: id), Self.hash(name), years.bitPattern, score.bitPattern, created.bitPattern)
    }
}
