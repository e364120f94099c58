public import Foundation

/// One value as SQLite stores it: one of its five storage classes.
///
/// Every value Strata writes reaches SQLite as a bound parameter of this type, never as SQL text.
public enum DatabaseValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A 64-bit IEEE floating point number.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob(Data)

    /// Whether this is SQL `NULL`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The storage class of this value, or `nil` for `NULL`.
    public var storageClass: StorageClass? {
        switch self {
        case .null: nil
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }
}

extension DatabaseValue: CustomStringConvertible {
    /// A short description that names the storage class and, for small values, the value.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): "\(value)"
        case .real(let value): "\(value)"
        case .text(let value): value.count > 40 ? "text(\(value.utf8.count) bytes)" : "'\(value)'"
        case .blob(let value): "blob(\(value.count) bytes)"
        }
    }
}

/// How Strata stores a field's values: the type affinity it declares for the column, except for
/// ``real``, whose columns are declared without a type so that SQLite keeps `-0.0` and other floats
/// exactly as written.
public enum StorageClass: String, Sendable, Hashable {
    /// `INTEGER`: Bool, fixed-width integers.
    case integer = "INTEGER"
    /// `REAL`: Double, Float, Date.
    case real = "REAL"
    /// `TEXT`: String, URL, Decimal.
    case text = "TEXT"
    /// `BLOB`: Data, UUID.
    case blob = "BLOB"
}
