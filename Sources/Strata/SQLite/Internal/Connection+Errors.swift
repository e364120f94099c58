internal import CSQLite

extension Connection {
    /// An error for a failed call, with SQLite's codes and message.
    func error(rc: Int32, sql: String?, message: String? = nil) -> StrataError {
        let extended = sqlite3_extended_errcode(handle)
        let primary = rc & 0xFF
        let text = message ?? String(cString: sqlite3_errmsg(handle))
        // SQLite does not say which file of a connection with attached stores failed: name them all.
        let files = attachedPaths.isEmpty
            ? path : "\(path) or a store attached to it (\(attachedPaths.joined(separator: ", ")))"
        let code: StrataError.Code
        var what = text
        switch primary {
        case SQLITE_CONSTRAINT:
            code = extended == SQLiteCode.constraintUnique || extended == SQLiteCode.constraintPrimaryKey
                ? .uniqueConstraint : .constraint
        case SQLITE_NOTADB:
            code = .notADatabase
            what = "The file at \(files) is not a SQLite database; it was left untouched (\(text))."
        case SQLITE_READONLY:
            code = .readOnly
            what = "The database at \(files) can only be read: \(text). Open it from a writable location."
        case SQLITE_BUSY where extended == SQLiteCode.busySnapshot:
            // No wait would help: the read snapshot this write started from is out of date.
            code = .busy
            what = "Another connection committed after this transaction's read began, so it cannot write from that "
                + "state (\(text)). Run the transaction again: it then starts from the latest state."
        case SQLITE_BUSY:
            code = .busy
            what = "The database stayed locked longer than the busy timeout (\(text)): another connection or process "
                + "held it. Try again, or raise DataStack.Configuration.busyTimeout."
        case SQLITE_LOCKED:
            // A conflict inside this connection (a table a statement still reads), not another connection's lock.
            code = .busy
            what = "A table is locked by another statement of the same connection (\(text)); no wait would end it. "
                + "Finish or reset the statement that reads it before writing to it."
        case SQLITE_INTERRUPT:
            code = .interrupted
            what = "The statement was interrupted because its task was cancelled."
        case SQLITE_CANTOPEN:
            code = .cannotOpen
            // Opened, but a statement needed a file it could not open: in WAL mode, the -wal and -shm
            // files beside the database, which even a read creates when they are missing.
            what = "Cannot open a file of the database at \(files) (\(text)): a WAL database needs its -wal and -shm "
                + "files beside it, which SQLite creates even to read. Make the directory writable, or copy the store to "
                + "a writable one."
        case SQLITE_CORRUPT:
            code = .corrupt
            what = "The database at \(files) is damaged (\(text)). Strata leaves the file as it is: restore a "
                + "backup, or copy out what can be read with the sqlite3 shell's .recover command."
        case SQLITE_FULL:
            code = .diskFull
            what = "The disk holding \(files) is full (\(text)); nothing was written. Free some space and try again."
        case SQLITE_IOERR:
            code = .ioError
            what = "The operating system failed a read, write or sync of \(files) (\(text), extended code \(extended))."
        case SQLITE_ERROR where text == "too many SQL variables":
            // A filter's `in` list (or a chain of `||`) with more values than a statement may bind.
            code = .unsupportedQuery
            let bound = sql.map { $0.utf8.reduce(0) { $1 == UInt8(ascii: "?") ? $0 + 1 : $0 } } ?? 0
            let limit = sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)
            what = "The statement binds \(bound) values, more than SQLite takes in one statement (\(limit), its "
                + "SQLITE_LIMIT_VARIABLE_NUMBER): a filter's in list or chain of || is too long. Split the values over "
                + "several fetches, or filter on a field the objects share."
        case SQLITE_ERROR where text == "parser stack overflow" || text.hasPrefix("Expression tree is too large"):
            // A filter nested deeper than SQLite's parser takes (about 20 nested NOTs or relationship hops).
            code = .unsupportedQuery
            what = "The statement nests deeper than SQLite's parser takes (\(text)): a filter with many nested NOTs, "
                + "ANY tests or relationship hops. Flatten it: combine conditions with && and ||, compare with a list "
                + "(IN) instead of nested tests, or fetch in two steps."
        case SQLITE_ERROR where text == "integer overflow":
            code = .sqlite
            what = "A sum of integers went past Int64's range (integer overflow). Sum a Double field instead, or add the "
                + "values up in Swift from a fetch."
        case SQLITE_ERROR where expectedSchemaVersion != nil:
            // "no such table", "no such column", "table … has no column named …": the store may have moved on.
            if let expected = expectedSchemaVersion, let migrated = migratedStore(expected: expected) {
                code = .schemaMismatch
                what = migratedMessage(path: migrated.path, stored: migrated.version, expected: expected, detail: text)
            } else {
                code = .sqlite
            }
        default:
            code = .sqlite
        }
        let error = StrataError(code, what, sqliteCode: primary, extendedCode: extended, sql: sql)
        noteLostWrite(error)
        return error
    }

    /// The files of the stores attached to this connection, in the order attached.
    var attachedPaths: [String] {
        guard let list = stores.list, !stores.attachedSchemas.isEmpty else { return [] }
        return list.current.prefix(stores.attachedSchemas.count).map(\.path)
    }

    /// A read's error, explained when the store moved on: a ``StrataError/Code/typeMismatch`` (a stored
    /// value the stack's entities cannot decode) becomes ``StrataError/Code/schemaMismatch`` when the
    /// store's metadata names another version than the one the stack was made for, which another stack
    /// or process migrated it to while this one had it open. Any other error is returned as it is.
    ///
    /// Reads the metadata only for a type mismatch, so reads that succeed cost nothing more. Call it
    /// inside the read transaction that failed: the version read is then the one of the data read.
    func explainingMigration(_ error: any Error) -> any Error {
        guard let expected = expectedSchemaVersion, let strata = error as? StrataError, strata.code == .typeMismatch,
            let migrated = migratedStore(expected: expected)
        else { return error }
        let explained = StrataError(
            .schemaMismatch,
            migratedMessage(path: migrated.path, stored: migrated.version, expected: expected, detail: strata.message),
            entity: strata.entity, field: strata.field)
        guard let withoutValues = strata.messageWithoutValues else { return explained }
        return explained.hidingValues(
            migratedMessage(path: migrated.path, stored: migrated.version, expected: expected, detail: withoutValues))
    }

    /// The error of a write transaction that found the store at `path` (the main one by default) at
    /// `stored`, another version than the one the stack was made for (see ``Options/schemaVersion``).
    func migratedError(path: String? = nil, stored: String, expected: String) -> StrataError {
        StrataError(.schemaMismatch, migratedMessage(path: path ?? self.path, stored: stored, expected: expected, detail: nil))
    }

    /// Says that another stack or process migrated the store at `path` to `stored` while this stack, made
    /// for `expected`, had it open, and what to do; `detail` is what failed, if anything did.
    private func migratedMessage(path: String, stored: String, expected: String, detail: String?) -> String {
        "The store at \(path) is at version \(stored) now: another stack or process migrated it while this stack, "
            + "made for version \(expected), had it open" + (detail.map { " (\($0))" } ?? "") + ". Close this stack, "
            + "and open the store with a schema history that includes version \(stored)."
    }

    /// The first of the connection's stores (the main one, then those attached, in order) whose metadata
    /// names another schema version than `expected`: its path and that version. `nil` when all of them
    /// are at `expected` (or their metadata cannot be read).
    func migratedStore(expected: String) -> (path: String, version: String)? {
        for index in 0..<storeCount {
            guard let stored = storedSchemaVersion(store: index), stored != expected else { continue }
            return (storePath(ofStore: index), stored)
        }
        return nil
    }

    /// The schema version the metadata of the store at `index` (see ``storeIndex(_:)``; the main one by
    /// default) holds now, read with SQLite's own calls (not through ``error(rc:sql:message:)``); `nil`
    /// when it cannot be read.
    func storedSchemaVersion(store index: Int = 0) -> String? {
        var statement: OpaquePointer?
        let sql = "SELECT value FROM \"\(schemaName(ofStore: index))\".strata_metadata WHERE key = 'schema_version'"
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }
}

/// Extended result codes that C defines as macros Swift cannot import.
enum SQLiteCode {
    /// `SQLITE_CONSTRAINT_UNIQUE`.
    static let constraintUnique: Int32 = 2067
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`.
    static let constraintPrimaryKey: Int32 = 1555
    /// `SQLITE_BUSY_SNAPSHOT`: a write from a read snapshot another connection's commit made stale.
    static let busySnapshot: Int32 = 517
}
