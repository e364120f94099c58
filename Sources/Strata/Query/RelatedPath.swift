/// A path through to-one relationships to a field of a related entity, CoreStore's `~` chain:
///
/// ```swift
/// From<Pet>().where(\.owner ~ \.name == "Ada")
/// From<Pet>().where(\.owner ~ \.company ~ \.city == "Paris")
/// ```
/// Compare it like a key path; the result is a ``Where`` that matches objects whose related object
/// (or chain of related objects) matches. A `nil` relationship never matches. A chain only filters:
/// ``OrderBy`` takes none.
public struct RelatedPath<Root: Entity, Value>: Sendable {
    /// The to-one relationships to follow, from the root: (entity name, field index, property name).
    let hops: [(entity: String, field: Int, property: String)]
    /// The column at the end of the chain, or why there is none.
    let column: Result<ColumnRef, StrataError>
    /// The entity that holds that column.
    let last: EntityDescription?

    /// Wraps a condition on the last entity in `related` tests, innermost hop first.
    func wrap(_ condition: SQLExpression) -> Where<Root> {
        if case .failure(let error) = column { return Where(.invalid(error)) }
        let wrapped = hops.reversed().reduce(condition) { inner, hop in .related(entity: hop.entity, field: hop.field, property: hop.property, inner) }
        return Where(wrapped)
    }

    func compare(_ op: SQLExpression.Comparison, _ value: DatabaseValue, of original: Any) -> Where<Root> {
        guard let column = try? column.get() else { return wrap(.constant(false)) }
        if op.orders, let refusal = UnsignedBounds.refusal(column, op.rawValue, [original]) { return Where(.invalid(refusal)) }
        if value.isNull, op == .equal || op == .notEqual {
            return wrap(.isNull(.column(column), negated: op == .notEqual))
        }
        // An ID compared with is checked against the store the query runs on.
        return Where(wrap(.compare(.column(column), op, .value(value))).expression.checkingStores(of: [original]))
    }
}

/// Precedence of `~`: tighter than comparisons, so `\.owner ~ \.name == "Ada"` reads as intended.
precedencegroup RelationshipChainPrecedence {
    associativity: left
    higherThan: ComparisonPrecedence
    lowerThan: NilCoalescingPrecedence
}

/// Follows a to-one relationship to a field of the related entity.
infix operator ~ : RelationshipChainPrecedence

private func toOneHop<Root: Entity, Target: Entity>(
    _ keyPath: KeyPath<Root, EntityID<Target>?>
) -> Result<(entity: String, field: Int, property: String), StrataError> {
    guard case .field(let index) = Root.member(for: keyPath), Root.entityDescription.fields[index].toOne != nil else {
        return .failure(StrataError(
            .unsupportedQuery, "A ~ chain starts with a to-one relationship (@Relationship) of \(Root.self).",
            entity: Root.entityDescription.name))
    }
    return .success((Root.entityDescription.name, index, Root.entityDescription.fields[index].property))
}

/// A path from a to-one relationship to a field of the related entity: `\.owner ~ \.name`.
public func ~ <Root: Entity, Target: Entity, Value>(
    lhs: KeyPath<Root, EntityID<Target>?>, rhs: KeyPath<Target, Value>
) -> RelatedPath<Root, Value> {
    switch toOneHop(lhs) {
    case .success(let hop):
        RelatedPath(hops: [hop], column: ColumnResolver.column(for: rhs), last: Target.entityDescription)
    case .failure(let error):
        RelatedPath(hops: [], column: .failure(error), last: nil)
    }
}

/// Extends a path through one more to-one relationship: `\.owner ~ \.company ~ \.city`.
public func ~ <Root: Entity, Middle: Entity, Value>(
    lhs: RelatedPath<Root, EntityID<Middle>?>, rhs: KeyPath<Middle, Value>
) -> RelatedPath<Root, Value> {
    guard case .success(let column) = lhs.column, let last = lhs.last,
        let index = last.fields.firstIndex(where: { $0.column == column.column && $0.toOne != nil })
    else {
        let error = (try? lhs.column.get()) == nil
            ? lhs.column.failureValue
            : StrataError(.unsupportedQuery, "A ~ chain continues only through to-one relationships.", entity: Root.entityDescription.name)
        return RelatedPath(hops: lhs.hops, column: .failure(error ?? StrataError(.unsupportedQuery, "Invalid ~ chain.")), last: nil)
    }
    return RelatedPath(
        hops: lhs.hops + [(last.name, index, last.fields[index].property)], column: ColumnResolver.column(for: rhs), last: Middle.entityDescription)
}

extension Result {
    fileprivate var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

// MARK: - Comparisons

extension RelatedPath where Value: DatabaseValueConvertible {
    /// The related field equals the value (`nil` matches `NULL`).
    public static func == (lhs: RelatedPath, rhs: Value) -> Where<Root> { lhs.compare(.equal, rhs.databaseValue, of: rhs) }
    /// The related field differs from the value.
    public static func != (lhs: RelatedPath, rhs: Value) -> Where<Root> { lhs.compare(.notEqual, rhs.databaseValue, of: rhs) }
}

extension RelatedPath where Value: DatabaseValueConvertible & Comparable {
    /// The related field is less than the value.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func < (lhs: RelatedPath, rhs: Value) -> Where<Root> { lhs.compare(.less, rhs.databaseValue, of: rhs) }
    /// The related field is at most the value.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func <= (lhs: RelatedPath, rhs: Value) -> Where<Root> { lhs.compare(.lessOrEqual, rhs.databaseValue, of: rhs) }
    /// The related field is greater than the value.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func > (lhs: RelatedPath, rhs: Value) -> Where<Root> { lhs.compare(.greater, rhs.databaseValue, of: rhs) }
    /// The related field is at least the value.
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func >= (lhs: RelatedPath, rhs: Value) -> Where<Root> { lhs.compare(.greaterOrEqual, rhs.databaseValue, of: rhs) }
}
