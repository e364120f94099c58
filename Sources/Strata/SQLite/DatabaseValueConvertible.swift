public import Foundation

/// A Swift type that Strata stores in one SQLite column.
///
/// Strata provides conformances for `Bool`, every fixed-width integer, `Double`, `Float`, `String`,
/// `Data`, `Date`, `UUID`, `URL`, `Decimal`, and optionals of these. An enum whose raw value is one of
/// these gets its conformance by declaring it:
///
/// ```swift
/// enum Mood: String, DatabaseValueConvertible { case happy, grumpy }
/// ```
public protocol DatabaseValueConvertible: Sendable {
    /// The column type Strata declares for values of this type.
    static var storageClass: StorageClass { get }
    /// Whether `NULL` is a valid value of this type (true only for optionals).
    static var isOptional: Bool { get }
    /// The value as SQLite stores it.
    var databaseValue: DatabaseValue { get }
    /// Makes a value from what SQLite stored, or returns `nil` when the stored value cannot represent one.
    init?(databaseValue: DatabaseValue)
}

extension DatabaseValueConvertible {
    /// Values are not optional unless they say so.
    @inlinable
    public static var isOptional: Bool { false }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    @inlinable
    public static var storageClass: StorageClass { Wrapped.storageClass }
    @inlinable
    public static var isOptional: Bool { true }
    @inlinable
    public var databaseValue: DatabaseValue {
        switch self {
        case .none: .null
        case .some(let wrapped): wrapped.databaseValue
        }
    }

    @inlinable
    public init?(databaseValue: DatabaseValue) {
        if case .null = databaseValue {
            self = .none
            return
        }
        guard let wrapped = Wrapped(databaseValue: databaseValue) else { return nil }
        self = .some(wrapped)
    }
}

extension DatabaseValueConvertible where Self: RawRepresentable, RawValue: DatabaseValueConvertible {
    /// Raw-value enums are stored as their raw value.
    @inlinable
    public static var storageClass: StorageClass { RawValue.storageClass }
    @inlinable
    public var databaseValue: DatabaseValue { rawValue.databaseValue }
    @inlinable
    public init?(databaseValue: DatabaseValue) {
        guard let raw = RawValue(databaseValue: databaseValue) else { return nil }
        self.init(rawValue: raw)
    }
}

extension Bool: DatabaseValueConvertible {
    @inlinable
    public static var storageClass: StorageClass { .integer }
    @inlinable
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    @inlinable
    public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .integer(let value): self = value != 0
        case .real(let value): self = value != 0
        default: return nil
        }
    }
}

extension Double: DatabaseValueConvertible {
    @inlinable
    public static var storageClass: StorageClass { .real }
    @inlinable
    public var databaseValue: DatabaseValue { .real(self) }
    @inlinable
    public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Float: DatabaseValueConvertible {
    @inlinable
    public static var storageClass: StorageClass { .real }
    @inlinable
    public var databaseValue: DatabaseValue { .real(Double(self)) }
    @inlinable
    public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .real(let value):
            // A finite value past Float's range would become an infinity: not the stored value. (Values
            // just above `Float.greatestFiniteMagnitude`, its usual printed form, round to it.)
            let float = Float(value)
            guard float.isFinite || !value.isFinite else { return nil }
            self = float
        case .integer(let value): self = Float(value)
        default: return nil
        }
    }
}

extension String: DatabaseValueConvertible {
    @inlinable
    public static var storageClass: StorageClass { .text }
    @inlinable
    public var databaseValue: DatabaseValue { .text(self) }
    @inlinable
    public init?(databaseValue: DatabaseValue) {
        guard case .text(let value) = databaseValue else { return nil }
        self = value
    }
}

extension Data: DatabaseValueConvertible {
    @inlinable
    public static var storageClass: StorageClass { .blob }
    @inlinable
    public var databaseValue: DatabaseValue { .blob(self) }
    @inlinable
    public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .blob(let value): self = value
        case .text(let value): self = Data(value.utf8)
        default: return nil
        }
    }
}

extension Date: DatabaseValueConvertible {
    /// Dates are stored as seconds since 2001-01-01 00:00:00 UTC (Core Data's reference date), the
    /// representation `Date` keeps itself, so every date reads back exactly and dates sort and compare
    /// in SQL. In SQL, `unixepoch` seconds are `value + 978307200`.
    @inlinable
    public static var storageClass: StorageClass { .real }
    @inlinable
    public var databaseValue: DatabaseValue { .real(timeIntervalSinceReferenceDate) }
    @inlinable
    public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .real(let value): self.init(timeIntervalSinceReferenceDate: value)
        case .integer(let value): self.init(timeIntervalSinceReferenceDate: Double(value))
        default: return nil
        }
    }
}

extension UUID: DatabaseValueConvertible {
    /// UUIDs are stored as their 16 bytes.
    @inlinable
    public static var storageClass: StorageClass { .blob }
    @inlinable
    public var databaseValue: DatabaseValue {
        withUnsafeBytes(of: uuid) { .blob(Data($0)) }
    }

    @inlinable
    public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .blob(let data) where data.count == 16:
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &bytes) { $0.copyBytes(from: data) }
            self.init(uuid: bytes)
        case .text(let string):
            guard let uuid = UUID(uuidString: string) else { return nil }
            self = uuid
        default:
            return nil
        }
    }
}

extension URL: DatabaseValueConvertible {
    /// URLs are stored as their absolute string.
    @inlinable
    public static var storageClass: StorageClass { .text }
    @inlinable
    public var databaseValue: DatabaseValue { .text(absoluteString) }
    @inlinable
    public init?(databaseValue: DatabaseValue) {
        guard case .text(let string) = databaseValue, let url = URL(string: string) else { return nil }
        self = url
    }
}

extension Decimal: DatabaseValueConvertible {
    /// Decimals are stored as text so that no digit is lost to floating point. SQL orders the text
    /// character by character, so ordering filters and sorts refuse a `Decimal` field; `==`, `!=` and
    /// `in` compare it exactly. Sums, averages, minimums and maximums are computed as `Double`s (exact
    /// up to about 15 significant digits), and a `Double` reads back as the decimal it prints as
    /// (`19.99`, not `19.989999…`).
    @inlinable
    public static var storageClass: StorageClass { .text }
    /// Whether `text` is a decimal number and nothing else: an optional sign, digits with at most one
    /// point (at least one digit), and an optional exponent (`e`, an optional sign, digits).
    @usableFromInline
    static func isNumber(_ text: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        var byte = bytes.next()
        func isDigit(_ byte: UInt8?) -> Bool { byte.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false }
        if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { byte = bytes.next() }
        var digits = 0
        while isDigit(byte) { digits += 1; byte = bytes.next() }
        if byte == UInt8(ascii: ".") {
            byte = bytes.next()
            while isDigit(byte) { digits += 1; byte = bytes.next() }
        }
        guard digits > 0 else { return false }
        if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            byte = bytes.next()
            if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { byte = bytes.next() }
            guard isDigit(byte) else { return false }
            while isDigit(byte) { byte = bytes.next() }
        }
        return byte == nil
    }

    /// A NaN (`Decimal(1) / 0`) is the real NaN, which binding refuses: as the text `"NaN"` it would be
    /// stored, and never read back.
    @inlinable
    public var databaseValue: DatabaseValue { isNaN ? .real(.nan) : .text(description) }
    @inlinable
    public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .text(let string):
            // `Decimal(string:)` reads the longest number at the start: "12abc", written by another
            // program, would read as 12. Only a number and nothing else is a decimal.
            guard Self.isNumber(string), let value = Decimal(string: string, locale: Locale(identifier: "en_US_POSIX"))
            else { return nil }
            self = value
        case .integer(let value): self = Decimal(value)
        case .real(let value):
            // The shortest text that reads back as the same Double: 19.99, where Decimal(19.99) would
            // hold every binary digit (19.98999999999999488).
            self = Decimal(string: "\(value)", locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(value)
        default: return nil
        }
    }
}

// MARK: - Integers

extension Int: DatabaseValueConvertible {}
extension Int8: DatabaseValueConvertible {}
extension Int16: DatabaseValueConvertible {}
extension Int32: DatabaseValueConvertible {}
extension Int64: DatabaseValueConvertible {}
extension UInt: DatabaseValueConvertible {}
extension UInt8: DatabaseValueConvertible {}
extension UInt16: DatabaseValueConvertible {}
extension UInt32: DatabaseValueConvertible {}
extension UInt64: DatabaseValueConvertible {}

extension DatabaseValueConvertible where Self: FixedWidthInteger {
    /// Integers are stored as SQLite's 64-bit integers.
    @inlinable
    public static var storageClass: StorageClass { .integer }

    /// The stored integer. `UInt64` and `UInt` values above `Int64.max` keep their bit pattern and read
    /// back exactly, but ordering comparisons, sorts and aggregates in SQL treat them as negative numbers
    /// (an ordering filter with such a bound throws ``StrataError/Code/unsupportedQuery``).
    @inlinable
    public var databaseValue: DatabaseValue {
        if let exact = Int64(exactly: self) { return .integer(exact) }
        return .integer(Int64(truncatingIfNeeded: self))
    }

    /// Reads an integer; a stored value out of this type's range gives `nil`.
    @inlinable
    public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .integer(let value):
            if let exact = Self(exactly: value) {
                self = exact
            } else if Self.bitWidth == 64, !Self.isSigned {
                self = Self(truncatingIfNeeded: value)
            } else {
                return nil
            }
        case .real(let value):
            guard let exact = Self(exactly: value) else { return nil }
            self = exact
        default:
            return nil
        }
    }
}
