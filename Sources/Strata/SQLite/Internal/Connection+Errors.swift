internal import CSQLite

extension Connection {
    /// An error for a failed call, with SQLite's codes and message.
    func error(rc: Int32, sql: String?, message: String? = nil) -> StrataError {
        let extended = sqlite3_extended_errcode(handle)
        let primary = rc & 0xFF
        let text = message ?? String(cString: sqlite3_errmsg(handle))
        let code: StrataError.Code
        var what = text
        switch primary {
        case SQLITE_CONSTRAINT:
            code = extended == SQLiteCode.constraintUnique || extended == SQLiteCode.constraintPrimaryKey
                ? .uniqueConstraint : .constraint
        case SQLITE_NOTADB:
            code = .notADatabase
            what = "The file at \(path) is not a SQLite database; it was left untouched (\(text))."
        case SQLITE_READONLY:
            code = .readOnly
            what = "The database at \(path) can only be read: \(text). Open it from a writable location."
        case SQLITE_BUSY, SQLITE_LOCKED:
            code = .busy
            what = "The database stayed locked longer than the busy timeout: \(text)."
        case SQLITE_INTERRUPT:
            code = .interrupted
            what = "The statement was interrupted because its task was cancelled."
        case SQLITE_CANTOPEN:
            code = .cannotOpen
        case SQLITE_CORRUPT:
            code = .corrupt
            what = "The database at \(path) is damaged (\(text)). Strata leaves the file as it is: restore a "
                + "backup, or copy out what can be read with the sqlite3 shell's .recover command."
        case SQLITE_FULL:
            code = .diskFull
            what = "The disk holding \(path) is full (\(text)); nothing was written. Free some space and try again."
        case SQLITE_IOERR:
            code = .ioError
            what = "The operating system failed a read, write or sync of \(path) (\(text), extended code \(extended))."
        default:
            code = .sqlite
        }
        return StrataError(code, what, sqliteCode: primary, extendedCode: extended, sql: sql)
    }
}

/// Extended result codes that C defines as macros Swift cannot import.
enum SQLiteCode {
    /// `SQLITE_CONSTRAINT_UNIQUE`.
    static let constraintUnique: Int32 = 2067
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`.
    static let constraintPrimaryKey: Int32 = 1555
}
