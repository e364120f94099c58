import CSQLiteBench

/// An error from the raw SQLite implementation.
struct RawError: Error, CustomStringConvertible {
    var description: String
}

/// `SQLITE_TRANSIENT`, which the C macro defines as a cast Swift cannot import.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A thin owner of one `sqlite3*` connection, as a careful hand-written program would keep it:
/// statements are prepared once and reused (reset, rebound), values are read with the typed column
/// accessors, no extra layer in between. Used by one thread at a time.
final class RawDatabase {
    let handle: OpaquePointer

    /// Opens a connection. Files are put in WAL mode with `synchronous = NORMAL` by ``configureWAL()``.
    init(path: String, readOnly: Bool = false) throws {
        var db: OpaquePointer?
        let flags = readOnly
            ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw RawError(description: "cannot open \(path): \(message)")
        }
        handle = db
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// WAL mode, `synchronous = NORMAL`: the configuration every implementation runs with.
    func configureWAL() throws {
        try execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "code \(code)"
            sqlite3_free(message)
            throw RawError(description: "\(sql): \(text)")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw RawError(description: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return RawStatement(handle: statement, database: handle)
    }

    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The first column of the first row of a query, as an integer.
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.int64(0)
    }
}

/// A prepared statement, finalized when released.
final class RawStatement {
    let handle: OpaquePointer
    private let database: OpaquePointer

    init(handle: OpaquePointer, database: OpaquePointer) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Steps once: `true` for a row, `false` when done.
    @inline(__always)
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw RawError(description: "step: \(String(cString: sqlite3_errmsg(database)))")
    }

    /// Steps to the end (a statement without rows), then resets.
    @inline(__always)
    func run() throws {
        while try step() {}
        sqlite3_reset(handle)
    }

    @inline(__always)
    func reset() {
        sqlite3_reset(handle)
    }

    @inline(__always)
    func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    @inline(__always)
    func bind(_ value: Double, at index: Int32) {
        sqlite3_bind_double(handle, index, value)
    }

    /// Binds text with `SQLITE_TRANSIENT` (SQLite copies it), as Strata and GRDB also must for a
    /// Swift `String` whose storage does not outlive the call.
    @inline(__always)
    func bind(_ value: String, at index: Int32) {
        var value = value
        value.withUTF8 { bytes in
            _ = sqlite3_bind_text(handle, index, bytes.baseAddress, Int32(bytes.count), sqliteTransient)
        }
    }

    @inline(__always)
    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    @inline(__always)
    func double(_ column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    @inline(__always)
    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    @inline(__always)
    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    @inline(__always)
    func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }

    @inline(__always)
    func optionalInt(_ column: Int32) -> Int? {
        isNull(column) ? nil : Int(int64(column))
    }

    @inline(__always)
    func optionalDouble(_ column: Int32) -> Double? {
        isNull(column) ? nil : double(column)
    }
}
