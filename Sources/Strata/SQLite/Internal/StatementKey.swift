/// SQL that runs often, looked up by the key's identity rather than by hashing its text. A connection
/// holds each key it caches a statement for, so an identity is never reused while a statement is
/// cached under it, even when the store context that made the key is gone.
final class StatementKey: Sendable {
    let sql: String

    init(_ sql: String) {
        self.sql = sql
    }

    static let beginImmediate = StatementKey("BEGIN IMMEDIATE")
    static let beginDeferred = StatementKey("BEGIN DEFERRED")
    static let commit = StatementKey("COMMIT")
    /// Reads the schema table, which starts a read transaction's snapshot at once (see
    /// `ReaderConnection.pin(_:)`).
    static let startSnapshot = StatementKey("SELECT count(*) FROM sqlite_schema")
    static let rollback = StatementKey("ROLLBACK")
    /// The savepoint around one call that must leave all or nothing inside a transaction (see
    /// `Transaction.atomically(_:)`); savepoints of the same name nest.
    static let savepoint = StatementKey("SAVEPOINT strata_call")
    static let releaseSavepoint = StatementKey("RELEASE strata_call")
    static let rollbackToSavepoint = StatementKey("ROLLBACK TO strata_call")
}
