// Comparison operators between a key path and a value, or two key paths, that build a `Where`.

extension KeyPath where Root: Entity, Value: DatabaseValueConvertible {
    fileprivate static func compare(
        _ keyPath: KeyPath<Root, Value>, _ op: SQLExpression.Comparison, _ value: Value
    ) -> Where<Root> {
        if op.orders, let refusal = TextStoredNumbers.refusal(keyPath, "filter it with \(op.rawValue)")
            ?? UnsignedBounds.refusal(keyPath, op.rawValue, [value])
        {
            return Where(.invalid(refusal))
        }
        let column = Where<Root>.column(keyPath)
        let bound = value.databaseValue
        if bound.isNull, op == .equal || op == .notEqual {
            return Where(.isNull(column, negated: op == .notEqual))
        }
        return Where(SQLExpression.compare(column, op, .value(bound)).checkingStores(of: [value]))
    }

    fileprivate static func compare(
        _ lhs: KeyPath<Root, Value>, _ op: SQLExpression.Comparison, _ rhs: KeyPath<Root, Value>
    ) -> Where<Root> {
        if op.orders, let refusal = TextStoredNumbers.refusal(lhs, "filter it with \(op.rawValue)") {
            return Where(.invalid(refusal))
        }
        return Where(.compare(Where<Root>.column(lhs), op, Where<Root>.column(rhs)))
    }

    /// The field equals the value (`nil` matches `NULL`).
    public static func == (lhs: KeyPath, rhs: Value) -> Where<Root> { compare(lhs, .equal, rhs) }
    /// The field differs from the value (`nil` matches non-`NULL`).
    public static func != (lhs: KeyPath, rhs: Value) -> Where<Root> { compare(lhs, .notEqual, rhs) }
    /// The two fields are equal.
    public static func == (lhs: KeyPath, rhs: KeyPath) -> Where<Root> { compare(lhs, .equal, rhs) }
    /// The two fields differ.
    public static func != (lhs: KeyPath, rhs: KeyPath) -> Where<Root> { compare(lhs, .notEqual, rhs) }
}

extension KeyPath where Root: Entity, Value: DatabaseValueConvertible & Comparable {
    /// The field is less than the value.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func < (lhs: KeyPath, rhs: Value) -> Where<Root> { compare(lhs, .less, rhs) }
    /// The field is at most the value.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func <= (lhs: KeyPath, rhs: Value) -> Where<Root> { compare(lhs, .lessOrEqual, rhs) }
    /// The field is greater than the value.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func > (lhs: KeyPath, rhs: Value) -> Where<Root> { compare(lhs, .greater, rhs) }
    /// The field is at least the value.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func >= (lhs: KeyPath, rhs: Value) -> Where<Root> { compare(lhs, .greaterOrEqual, rhs) }
    /// The first field is less than the second.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored, and compare, as negative numbers.
    public static func < (lhs: KeyPath, rhs: KeyPath) -> Where<Root> { compare(lhs, .less, rhs) }
    /// The first field is at most the second.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored, and compare, as negative numbers.
    public static func <= (lhs: KeyPath, rhs: KeyPath) -> Where<Root> { compare(lhs, .lessOrEqual, rhs) }
    /// The first field is greater than the second.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored, and compare, as negative numbers.
    public static func > (lhs: KeyPath, rhs: KeyPath) -> Where<Root> { compare(lhs, .greater, rhs) }
    /// The first field is at least the second.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored, and compare, as negative numbers.
    public static func >= (lhs: KeyPath, rhs: KeyPath) -> Where<Root> { compare(lhs, .greaterOrEqual, rhs) }

}

extension KeyPath where Root: Entity, Value: DatabaseValueConvertible {
    // An optional field compared with a value, as CoreStore and Core Data allow (Swift's `Optional` is
    // not `Comparable`): SQL's rule applies, so an object whose field is `nil` never matches, nor
    // through a to-one relationship that is `nil` (`\.owner?.age > 6`).

    /// The optional field is less than the value; `nil` never matches.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func < <Wrapped>(lhs: KeyPath, rhs: Wrapped) -> Where<Root>
    where Value == Wrapped?, Wrapped: DatabaseValueConvertible & Comparable { compare(lhs, .less, .some(rhs)) }
    /// The optional field is at most the value; `nil` never matches.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func <= <Wrapped>(lhs: KeyPath, rhs: Wrapped) -> Where<Root>
    where Value == Wrapped?, Wrapped: DatabaseValueConvertible & Comparable { compare(lhs, .lessOrEqual, .some(rhs)) }
    /// The optional field is greater than the value; `nil` never matches.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func > <Wrapped>(lhs: KeyPath, rhs: Wrapped) -> Where<Root>
    where Value == Wrapped?, Wrapped: DatabaseValueConvertible & Comparable { compare(lhs, .greater, .some(rhs)) }
    /// The optional field is at least the value; `nil` never matches.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func >= <Wrapped>(lhs: KeyPath, rhs: Wrapped) -> Where<Root>
    where Value == Wrapped?, Wrapped: DatabaseValueConvertible & Comparable { compare(lhs, .greaterOrEqual, .some(rhs)) }
}
