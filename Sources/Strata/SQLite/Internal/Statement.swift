internal import CSQLite
public import Foundation

/// A prepared statement. Owned by one connection and used on its executor only.
@usableFromInline
final class Statement {
    let handle: OpaquePointer
    let sql: String
    unowned let connection: Connection
    let columnCount: Int32
    /// The column that holds each row's store tag, in a read across several stores; -1 when the rows
    /// carry the connection's tag.
    var tagColumn: Int32 = -1

    /// The UTF-8 offset in `sql` where the prepared statement ends: SQLite prepares the first statement
    /// of a text and ignores the rest (``Connection/rawRows(sql:arguments:)`` refuses a text that holds
    /// more than one).
    let endOffset: Int

    init(connection: Connection, sql: String) throws(StrataError) {
        var statement: OpaquePointer?
        var endOffset = 0
        let rc = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(connection.handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
            endOffset = tail.map { text.distance(to: $0) } ?? 0
            return rc
        }
        guard rc == SQLITE_OK, let statement else {
            throw connection.error(rc: rc, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
        self.columnCount = sqlite3_column_count(statement)
        self.endOffset = endOffset
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Resets the statement and clears its bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Resets the statement for another run with the same parameters bound anew.
    func resetKeepingBindings() {
        sqlite3_reset(handle)
    }

    /// Binds values to parameters 1...n.
    func bind(_ values: [DatabaseValue]) throws(StrataError) {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// The error for a NaN value, which SQLite cannot store.
    static var notANumberError: StrataError {
        StrataError(
            .invalidArgument,
            "A floating-point value is NaN, which SQLite cannot store (it would become NULL). Store nil in an "
                + "optional field, or check the value before you store or compare it.")
    }

    /// Binds one value to a parameter (1-based).
    @usableFromInline
    func bind(_ value: DatabaseValue, at index: Int32) throws(StrataError) {
        let rc: Int32
        switch value {
        case .null:
            rc = sqlite3_bind_null(handle, index)
        case .integer(let int):
            rc = sqlite3_bind_int64(handle, index, int)
        case .real(let double):
            // SQLite stores NaN as NULL: a required field would fail with "NOT NULL constraint failed",
            // an optional one would read back nil, and a filter would match nothing. Refuse it here.
            guard !double.isNaN else { throw Self.notANumberError }
            rc = sqlite3_bind_double(handle, index, double)
        case .text(var string):
            rc = string.withUTF8 { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    guard let base = chars.baseAddress, !chars.isEmpty else {
                        return sqlite3_bind_text64(handle, index, "", 0, SQLITE_TRANSIENT_DESTRUCTOR, UInt8(SQLITE_UTF8))
                    }
                    return sqlite3_bind_text64(
                        handle, index, base, UInt64(chars.count), SQLITE_TRANSIENT_DESTRUCTOR, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            rc = data.withUnsafeBytes { buffer in
                if let base = buffer.baseAddress {
                    return sqlite3_bind_blob64(handle, index, base, UInt64(buffer.count), SQLITE_TRANSIENT_DESTRUCTOR)
                }
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
        }
        if rc != SQLITE_OK {
            throw connection.error(rc: rc, sql: sql)
        }
    }

    /// Steps once: `true` when a row is available, `false` when done.
    @usableFromInline
    func step() throws(StrataError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(rc: rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Reads one column of the current row.
    @usableFromInline
    func value(at index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            return .text(text(at: index))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default:
            return .null
        }
    }

    /// The storage class of column `index` in the current row.
    @usableFromInline
    func columnType(at index: Int32) -> ColumnType {
        ColumnType(rawValue: sqlite3_column_type(handle, index)) ?? .null
    }

    /// Column `index` read as an integer, whatever it holds (call after ``columnType(at:)`` said
    /// `.integer`).
    @usableFromInline
    func integer(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` read as a floating-point number (call after ``columnType(at:)`` said `.real`).
    @usableFromInline
    func real(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Column `index` read as text, invalid UTF-8 repaired as ``value(at:)`` does (call after
    /// ``columnType(at:)`` said `.text`).
    @usableFromInline
    func text(at index: Int32) -> String {
        // The column's value read once: its text and length then cost no second column lookup. (The
        // value is unprotected, which makes no difference on a connection without a mutex.)
        guard let value = sqlite3_column_value(handle, index), let text = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Column `index` read as the bytes it holds, a text's included (not repaired as UTF-8).
    @usableFromInline
    func bytes(at index: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// The name of a result column.
    func columnName(at index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? "column \(index)"
    }
}

@available(*, unavailable)
extension Statement: Sendable {}

/// SQLite's storage classes, as `sqlite3_column_type` numbers them (`SQLITE_INTEGER` … `SQLITE_NULL`),
/// for inlinable row decoding, which cannot name SQLite's constants.
@usableFromInline
enum ColumnType: Int32 {
    case integer = 1, real = 2, text = 3, blob = 4, null = 5
}

/// SQLite's `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the call returns.
let SQLITE_TRANSIENT_DESTRUCTOR = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

