/// The error Strata throws for its own failures.
///
/// Two other types wrap errors: an import or batch call throws ``ImportError``, whose
/// ``ImportError/underlying`` is what failed while one source was applied (a `StrataError`, such as a
/// unique constraint, or your import code's error); a migration throws ``MigrationError`` for what a
/// step's own closure threw (``MigrationError/underlying``). A cancelled task gets `CancellationError`.
///
/// Every error says what failed in words a user can act on, and carries what is known of the context:
/// SQLite's primary and extended result codes, SQLite's message, the SQL that failed (with values
/// elided: values are always bound parameters and never appear in it), and the entity and field.
///
/// Match on ``code``:
/// ```swift
/// do { try await stack.perform { ... } }
/// catch let error as StrataError where error.code == .uniqueConstraint { ... }
/// ```
public struct StrataError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added in any release, so a `switch` over codes
    /// needs a `default` branch.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case sqlite, uniqueConstraint, constraint, notADatabase, cannotOpen, readOnly, busy, interrupted
            case typeMismatch, notFound, transactionCancelled, transactionClosed, schemaMismatch
            case unsupportedQuery, invalidArgument, invalidEdit, stackClosed, deleteDenied, reentrantTransaction
            case corrupt, diskFull, ioError, invalidMigration, historyUnavailable, historyExpired
            case storeNotFound
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// SQLite reported an error not covered by a more specific code; see ``StrataError/sqliteCode``.
        public static let sqlite = Code(.sqlite)
        /// A unique field already holds the value; ``StrataError/entity`` and ``StrataError/field`` name it.
        public static let uniqueConstraint = Code(.uniqueConstraint)
        /// Another constraint failed (not null, foreign key, check).
        public static let constraint = Code(.constraint)
        /// The file exists but is not a SQLite database. Strata did not change it.
        public static let notADatabase = Code(.notADatabase)
        /// The database file could not be opened or created (missing directory, read-only location, permissions).
        public static let cannotOpen = Code(.cannotOpen)
        /// The database can only be read: the file or its directory is read-only.
        public static let readOnly = Code(.readOnly)
        /// The database stayed locked by another connection longer than the busy timeout.
        public static let busy = Code(.busy)
        /// A statement was interrupted, because its task was cancelled.
        public static let interrupted = Code(.interrupted)
        /// The database file is damaged ("database disk image is malformed"). Strata never overwrites
        /// it: restore a backup, or copy out what can be read with SQLite's `.recover` command.
        public static let corrupt = Code(.corrupt)
        /// The disk (or the file system's quota) is full: the transaction was rolled back. Free space and
        /// try again.
        public static let diskFull = Code(.diskFull)
        /// The operating system failed a read, a write or a sync of the database files; the extended
        /// code says which (``StrataError/extendedCode``).
        public static let ioError = Code(.ioError)
        /// A stored value cannot be read as the field's Swift type.
        public static let typeMismatch = Code(.typeMismatch)
        /// The object does not exist (it was deleted, or the ID belongs to no object).
        public static let notFound = Code(.notFound)
        /// The transaction was cancelled with ``Transaction/cancel()``; nothing it did was kept.
        public static let transactionCancelled = Code(.transactionCancelled)
        /// The transaction was used after it committed, rolled back or ended; or a ``ReadGeneration`` was
        /// used after it was released, or after SQLite ended its read transaction (its message says which).
        public static let transactionClosed = Code(.transactionClosed)
        /// The store was made with another schema than the one the stack was opened with, or another
        /// stack or process migrated it to another version while this stack had it open.
        public static let schemaMismatch = Code(.schemaMismatch)
        /// A schema history, migration chain or migration step cannot be used (a cycle, an unknown
        /// version, an entity dropped without saying so, a change that needs a value or a transform); the
        /// message names the problem. Nothing was changed.
        public static let invalidMigration = Code(.invalidMigration)
        /// A clause cannot be turned into SQL (for example a key path that is not a stored field).
        public static let unsupportedQuery = Code(.unsupportedQuery)
        /// An argument is not valid (for example an empty path or a pool size of zero).
        public static let invalidArgument = Code(.invalidArgument)
        /// An edit tried to change what cannot change (the object's ID).
        public static let invalidEdit = Code(.invalidEdit)
        /// A delete was refused because related objects exist and the relationship's delete rule is
        /// ``DeleteRule/deny``; the message names them.
        public static let deleteDenied = Code(.deleteDenied)
        /// The data stack was closed.
        public static let stackClosed = Code(.stackClosed)
        /// A task inside ``DataStack/withUnsafeTransaction(_:)`` (or started there) awaited a transaction
        /// of the same stack, which would wait for the unsafe transaction to end, forever. Do the work in
        /// the unsafe transaction, or after it.
        public static let reentrantTransaction = Code(.reentrantTransaction)
        /// The store keeps no persistent history: turn it on with ``DataStack/Configuration/history``.
        public static let historyUnavailable = Code(.historyUnavailable)
        /// The history after the given token was purged, so the changes since it can no longer be read
        /// in full: fetch the current state again and follow the history from the current token.
        public static let historyExpired = Code(.historyExpired)
        /// A fetch or a creation named a configuration that the schema does not declare, that has no
        /// store in this stack, or whose store does not hold the entity (CoreStore's
        /// `persistentStoreNotFound`); the message lists the configurations there are.
        public static let storeNotFound = Code(.storeNotFound)

        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What failed and what to do about it.
    public let message: String
    /// SQLite's primary result code, when SQLite reported the failure.
    public let sqliteCode: Int32?
    /// SQLite's extended result code (for example 2067, `SQLITE_CONSTRAINT_UNIQUE`), when SQLite reported the failure.
    public let extendedCode: Int32?
    /// The SQL that failed. Values are bound parameters, so none appears here.
    public let sql: String?
    /// The entity involved, when known.
    public let entity: String?
    /// The field (property name) involved, when known; the first of ``fields`` when several are.
    public let field: String?
    /// Every field (property name) involved, in order: all the fields of a unique constraint over several
    /// fields (``Unique(_:)``) that a write broke, or that a migration could not add; otherwise ``field``
    /// alone, or none.
    public var fields: [String] { severalFields ?? field.map { [$0] } ?? [] }
    /// The fields of a constraint over several fields, when the error is about one.
    var severalFields: [String]?
    /// The message with the stored values it quotes left out, for logs and spans; `nil` when the message
    /// quotes none (Strata's messages name entities, fields and IDs).
    var messageWithoutValues: String?

    /// The code and the message without stored values: what logs and spans record.
    var summaryWithoutValues: String { "\(code): \(messageWithoutValues ?? message)" }

    /// This error, with `message` for logs and spans: the same text, the stored values it quotes left out.
    func hidingValues(_ message: String) -> StrataError {
        var error = self
        error.messageWithoutValues = message
        return error
    }

    /// Makes an error. Strata makes its own errors; this initializer serves tests and extensions.
    public init(
        _ code: Code, _ message: String, sqliteCode: Int32? = nil, extendedCode: Int32? = nil,
        sql: String? = nil, entity: String? = nil, field: String? = nil
    ) {
        self.code = code
        self.message = message
        self.sqliteCode = sqliteCode
        self.extendedCode = extendedCode
        self.sql = sql
        self.entity = entity
        self.field = field
    }

    public var description: String {
        var text = "StrataError.\(code): \(message)"
        if let entity {
            let named = fields.count > 1 ? ", fields: \(fields.joined(separator: ", "))" : field.map { ", field: \($0)" } ?? ""
            text += " [entity: \(entity)\(named)]"
        }
        if let extendedCode {
            text += " [SQLite code \(sqliteCode ?? extendedCode & 0xFF), extended \(extendedCode)]"
        }
        if let sql {
            // A statement of a long `in` list can run to megabytes: the description shows its start.
            let shown = sql.count > 2_000 ? "\(sql.prefix(1_000))… (\(sql.count) characters)" : sql
            text += " [SQL: \(shown)]"
        }
        return text
    }

    /// The same error, its message ending with where it happened (`"in the migration step V1 → V2"`).
    func adding(place: String) -> StrataError {
        var error = StrataError(
            code, "\(message) (\(place))", sqliteCode: sqliteCode, extendedCode: extendedCode, sql: sql, entity: entity,
            field: field)
        error.messageWithoutValues = messageWithoutValues.map { "\($0) (\(place))" }
        error.severalFields = severalFields
        return error
    }

    /// The same error, about the constraint over these fields (``fields``); ``field`` is the first.
    func naming(fields: [String]) -> StrataError {
        var error = self
        error.severalFields = fields.count > 1 ? fields : nil
        return error
    }

    /// The same error with the entity and field filled in where they were not known.
    func with(entity: String?, field: String? = nil) -> StrataError {
        var error = StrataError(
            code, message, sqliteCode: sqliteCode, extendedCode: extendedCode, sql: sql,
            entity: self.entity ?? entity, field: self.field ?? field)
        error.messageWithoutValues = messageWithoutValues
        error.severalFields = severalFields
        return error
    }
}
