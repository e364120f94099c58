/// A filter over objects of entity `E`, translated to a SQL `WHERE` clause with bound values.
///
/// Build one from key paths and operators, from factories such as `Where.contains`, from Foundation's
/// `#Predicate`, or from a format string:
/// ```swift
/// From<Person>().where(\.age >= 18 && \.name != "")
/// From<Person>().where(\.email == nil || !(\.age < 30))
/// From<Person>().where(.contains(\.name, "ad", caseInsensitive: true))
/// ```
/// Missing values follow Swift's rules, not SQL's: `\.email == nil` matches `NULL`, and `!` turns a
/// comparison with a missing value into `true`.
public struct Where<E: Entity>: Sendable {
    let expression: SQLExpression

    init(_ expression: SQLExpression) {
        self.expression = expression
    }

    /// A filter that keeps every object (`true`) or none (`false`).
    public init(_ value: Bool) {
        expression = .constant(value)
    }

    /// The objects with these row IDs.
    static func ids<S: Sequence>(_ ids: S) -> Where<E> where S.Element == Int64 {
        Where(.inList(.column(.id(of: E.entityDescription.name)), ids.map { .integer($0) }, negated: false))
    }

    /// A column expression for a key path, or an invalid one explaining why it has none.
    static func column(_ keyPath: PartialKeyPath<E>) -> SQLExpression {
        ColumnResolver.column(for: keyPath).expression
    }
}

// MARK: - Logic

extension Where {
    /// Both filters must match.
    public static func && (lhs: Where<E>, rhs: Where<E>) -> Where<E> {
        Where(.and(lhs.expression, rhs.expression))
    }

    /// Either filter must match.
    public static func || (lhs: Where<E>, rhs: Where<E>) -> Where<E> {
        Where(.or(lhs.expression, rhs.expression))
    }

    /// Every filter must match; `true` when there are none. Builds one flat `AND` in time linear in the
    /// number of filters (chaining `&&` in a loop copies the list of terms at each step).
    public static func allOf(_ filters: [Where<E>]) -> Where<E> {
        filters.isEmpty ? Where(true) : Where(.conjunction(of: filters.map(\.expression)))
    }

    /// At least one filter must match; `false` when there are none. Builds one flat `OR` in linear time.
    ///
    /// ```swift
    /// From<Person>().where(.anyOf(words.map { .contains(\.name, $0, caseInsensitive: true) }))
    /// ```
    public static func anyOf(_ filters: [Where<E>]) -> Where<E> {
        filters.isEmpty ? Where(false) : Where(.disjunction(of: filters.map(\.expression)))
    }

    /// The filter must not match.
    public static prefix func ! (operand: Where<E>) -> Where<E> {
        Where(.not(operand.expression))
    }
}
