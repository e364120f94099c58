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

    static func == (lhs: ValueFamily, rhs: ValueFamily) -> Bool { true }
    func hash(into hasher: inout Hasher) {}

    static let other = ValueFamily(kind: .other)

    /// The family of `type` (an optional's is its wrapped type's).
    static func of(_ type: Any.Type) -> ValueFamily {
        func any(_ types: [Any.Type]) -> Bool { types.contains { $0 == type } }
        let kind: Kind =
            if any([Bool.self, Bool?.self]) { .bool }
            else if any([Int8.self, Int16.self, Int32.self, UInt8.self, UInt16.self, UInt32.self,
                         Int8?.self, Int16?.self, Int32?.self, UInt8?.self, UInt16?.self, UInt32?.self]) { .smallInteger }
            else if any([Int.self, Int64.self, Int?.self, Int64?.self]) { .integer }
            else if any([UInt.self, UInt64.self, UInt?.self, UInt64?.self]) { .unsigned }
            else if any([Double.self, Double?.self]) { .double }
            else if any([Float.self, Float?.self]) { .float }
            else if any([Date.self, Date?.self]) { .date }
            else { .other }
        return ValueFamily(kind: kind)
    }
}
