public import Foundation

/// One value as SQLite stores it: one of its five storage classes.
///
/// Every value Strata writes reaches SQLite as a bound parameter of this type, never as SQL text.
///
/// Two values are equal as SQLite's default (`BINARY`) comparison finds them: texts when their UTF-8
/// bytes are the same. Swift's `String` equality also takes canonically equivalent texts as equal
/// (`"caf\u{E9}"` and `"cafe\u{301}"`), which SQLite stores, indexes and keeps unique as two values.
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

extension DatabaseValue {
    /// Whether the two values store the same bits: as `==`, except that `0.0` and `-0.0` differ (SQL
    /// compares them equal, but a column without a type keeps the sign). What decides whether an edit
    /// writes a field.
    func isIdentical(to other: DatabaseValue) -> Bool {
        if case .real(let a) = self, case .real(let b) = other { return a.bitPattern == b.bitPattern }
        return self == other
    }

    public static func == (lhs: DatabaseValue, rhs: DatabaseValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a == b
        case (.text(let a), .text(let b)): sameBytes(a, b)
        case (.blob(let a), .blob(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .integer(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .real(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .text(let value):
            hasher.combine(3 as UInt8)
            var text = value
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .blob(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        }
    }

    /// Whether two texts have the same UTF-8 bytes.
    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) }
        }
    }
}

extension DatabaseValue {
    /// The storage class and size, never the value: what a log or a span may say of a stored value.
    var kindDescription: String {
        switch self {
        case .null: "NULL"
        case .integer: "an integer"
        case .real: "a real"
        case .text(let value): "text (\(value.utf8.count) bytes)"
        case .blob(let value): "a blob (\(value.count) bytes)"
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
