/// `UInt64` and `UInt` values above `Int64.max` are stored as `Int64`'s bit pattern, so SQL reads them
/// as negative numbers. Equality (`==`, `!=`, `in`) stays exact, but an ordering filter (`<`, `between`)
/// whose bound is such a value would bind a negative number and match the wrong objects, even when
/// every stored value is small (`\.hits <= UInt64.max` would match none). Such a filter is refused.
enum UnsignedBounds {
    /// Whether `value` (possibly optional, or an enum whose raw value is an integer) is an integer
    /// that `Int64` cannot hold.
    static func isBeyondInt64(_ value: Any) -> Bool {
        guard let unwrapped = PredicateValue.unwrap(value) else { return false }
        if let integer = unwrapped as? any BinaryInteger { return Int64(exactly: integer) == nil }
        if let raw = unwrapped as? any RawRepresentable { return isBeyondInt64(raw.rawValue) }
        return false
    }

    /// Whether a format-string argument is, or holds (a sequence's element, a range's bound), an integer
    /// that `Int64` cannot hold.
    static func holdsBeyondInt64(_ argument: (any Sendable)?) -> Bool {
        guard let argument else { return false }
        if isBeyondInt64(argument) { return true }
        if let range = argument as? any FormatRangeArgument { return range.holdsBeyondInt64 }
        if argument is any DatabaseValueConvertible || argument is Substring { return false }
        if let sequence = argument as? any Sequence { return anyBeyondInt64(sequence) }
        return false
    }

    private static func anyBeyondInt64<S: Sequence>(_ sequence: S) -> Bool {
        sequence.contains { isBeyondInt64($0) }
    }

    /// The message of a format string's refusal: `operation` (its token) at `position` orders against
    /// such a value.
    static func formatRefusal(_ operation: String, at position: Int) -> FormatError {
        FormatError("'\(operation)' at position \(position) orders against a value above Int64.max: \(reason)", position: position)
    }

    /// The error for ordering the field at `keyPath` against `values` by `operation` ("<=", "between"),
    /// when one of them is beyond `Int64.max`.
    static func refusal<Root: Entity, V>(_ keyPath: KeyPath<Root, V>, _ operation: String, _ values: [Any]) -> StrataError? {
        guard let value = values.first(where: isBeyondInt64) else { return nil }
        let property = (try? ColumnResolver.column(for: keyPath).get())?.property ?? "a field"
        return refusal(entity: Root.entityDescription.name, property: property, operation, value)
    }

    /// The error for ordering `column` against `values` by `operation`, when one of them is beyond
    /// `Int64.max`.
    static func refusal(_ column: ColumnRef, _ operation: String, _ values: [Any]) -> StrataError? {
        guard let value = values.first(where: isBeyondInt64) else { return nil }
        return refusal(entity: column.entity, property: column.property, operation, value)
    }

    private static func refusal(entity: String, property: String, _ operation: String, _ value: Any) -> StrataError {
        StrataError(
            .unsupportedQuery, "A filter orders \(entity).\(property) against \(value) (\(operation)): \(reason)",
            entity: entity, field: property)
    }

    /// Why, and what to do instead.
    static let reason =
        "UInt64 and UInt values above Int64.max (\(Int64.max)) are stored as Int64's bit pattern, which SQL "
        + "orders as negative numbers, so the filter would match the wrong objects. Use a bound of at most "
        + "Int64.max, or compare with ==, != or in, which are exact."
}
