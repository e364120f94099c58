import Foundation

/// Which family of Swift types a stored field's values belong to, as far as a migration that infers a
/// change of column type needs to know: whether every value converts exactly, and how Swift would
/// print it. Not part of a field's equality: the version lock hashes columns, not Swift types.
struct ValueFamily: Sendable, Hashable {
    enum Kind: Sendable, Equatable {
        case bool
        /// `Int8`…`Int32` and `UInt8`…`UInt32`: every value is exact as a `Double`.
        case smallInteger
        /// `Int`, `Int64`: exact as a `Double` up to 2^53.
        case integer
        /// `UInt`, `UInt64`: stored as `Int64`'s bit pattern, so values past `Int64.max` are negative.
        case unsigned
        case double
        case float
        case date
        /// Any other type, or one the description could not tell.
        case other
    }

    let kind: Kind
    /// The values a signed or narrow integer type holds (a `Bool`: 0 and 1), as stored; `nil` for
    /// `UInt` and `UInt64` (stored as their bit pattern) and every type that is not an integer.
    var bounds: ClosedRange<Int64>?

    /// The Swift type's name (an optional's: its wrapped type's), to tell a change of Swift type that
    /// keeps the column type (`String` to an enum); `nil` when the description could not tell.
    var typeName: String?
    /// Whether the Swift type reads a stored value that is not `NULL` (its `init?(databaseValue:)`).
    var reads: (@Sendable (DatabaseValue) -> Bool)?

    init(kind: Kind, bounds: ClosedRange<Int64>? = nil) {
        self.kind = kind
        self.bounds = bounds
    }

    static func == (lhs: ValueFamily, rhs: ValueFamily) -> Bool { true }
    func hash(into hasher: inout Hasher) {}

    static let other = ValueFamily(kind: .other)

    /// The family of `type` (an optional's is its wrapped type's), with its name and how it reads values.
    static func named<Value: DatabaseValueConvertible>(_ type: Value.Type) -> ValueFamily {
        var family = of(type as Any.Type)
        let name = String(reflecting: type)
        family.typeName = Value.isOptional && name.hasPrefix("Swift.Optional<") && name.hasSuffix(">")
            ? String(name.dropFirst("Swift.Optional<".count).dropLast()) : name
        family.reads = { Value(databaseValue: $0) != nil }
        return family
    }

    /// The family of `type` (an optional's is its wrapped type's).
    static func of(_ type: Any.Type) -> ValueFamily {
        func any(_ types: [Any.Type]) -> Bool { types.contains { $0 == type } }
        let kind: Kind =
            if any([Bool.self, Bool?.self]) { .bool }
            else if any([Int8.self, Int16.self, Int32.self, UInt8.self, UInt16.self, UInt32.self,
                         Int8?.self, Int16?.self, Int32?.self, UInt8?.self, UInt16?.self, UInt32?.self]) { .smallInteger }
            else if any([Int64.self, Int64?.self]) || (Int.bitWidth == 64 && any([Int.self, Int?.self])) { .integer }
            else if any([UInt64.self, UInt64?.self]) || (UInt.bitWidth == 64 && any([UInt.self, UInt?.self])) { .unsigned }
            // A 32-bit platform's Int and UInt (watchOS on arm64_32).
            else if any([Int.self, Int?.self, UInt.self, UInt?.self]) { .smallInteger }
            else if any([Double.self, Double?.self]) { .double }
            else if any([Float.self, Float?.self]) { .float }
            else if any([Date.self, Date?.self]) { .date }
            else { .other }
        func range<I: FixedWidthInteger>(_: I.Type) -> ClosedRange<Int64> { Int64(I.min)...Int64(I.max) }
        let bounds: ClosedRange<Int64>? =
            switch kind {
            case .bool: 0...1
            case .integer: range(Int64.self)
            case .smallInteger:
                if any([Int8.self, Int8?.self]) { range(Int8.self) }
                else if any([Int16.self, Int16?.self]) { range(Int16.self) }
                else if any([Int32.self, Int32?.self]) { range(Int32.self) }
                else if any([UInt8.self, UInt8?.self]) { range(UInt8.self) }
                else if any([UInt16.self, UInt16?.self]) { range(UInt16.self) }
                else if any([Int.self, Int?.self]) { range(Int.self) }
                else if any([UInt.self, UInt?.self]) { range(UInt.self) }
                else { range(UInt32.self) }
            default: nil
            }
        return ValueFamily(kind: kind, bounds: bounds)
    }
}
