import Foundation

/// The seam between Strata and the SQL it writes: identifier quoting, placeholders and the few
/// clauses that differ between engines. Only SQLite exists today; a PostgreSQL dialect would
/// implement the same requirements.
protocol SQLDialect: Sendable {
    /// Quotes an identifier (table or column name).
    func quote(_ identifier: String) -> String
    /// The placeholder of the n-th bound value (1-based).
    func placeholder(_ index: Int) -> String
    /// The column type for a storage class.
    func columnType(_ storageClass: StorageClass) -> String
    /// The primary key column declaration of an entity table.
    var primaryKeyDeclaration: String { get }
    /// The clause that returns the IDs of deleted rows, appended to a DELETE.
    var returningIDClause: String { get }
}

extension SQLDialect {
    /// A table name, quoted and, for a store of a stack of several, qualified with the SQLite schema
    /// name the store is attached under (`nil`: unqualified, the main database).
    func qualify(_ table: String, in schemaName: String?) -> String {
        guard let schemaName else { return quote(table) }
        return quote(schemaName) + "." + quote(table)
    }
}

/// SQLite's dialect.
struct SQLiteDialect: SQLDialect {
    func quote(_ identifier: String) -> String {
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func placeholder(_ index: Int) -> String { "?" }

    /// A real column is declared without a type (SQLite's `BLOB` affinity, which keeps every value as
    /// bound): with `REAL` affinity SQLite writes a float without a fractional part as an integer, so
    /// `-0.0` would read back as `0.0`. Comparisons are unaffected (numbers compare as numbers).
    func columnType(_ storageClass: StorageClass) -> String {
        storageClass == .real ? "" : storageClass.rawValue
    }

    /// A row ID alias without `AUTOINCREMENT`: the writer assigns IDs itself and never reuses one, even
    /// after deletes (see `IDAllocator`), so an ID seen by an observer or kept in history always names
    /// the same object.
    var primaryKeyDeclaration: String { "\"id\" INTEGER PRIMARY KEY" }

    var returningIDClause: String { " RETURNING \"id\"" }
}
