/// A filter over objects of entity `E`, translated to a SQL `WHERE` clause with bound values.
///
/// Build one from key paths and operators:
/// ```swift
/// From<Person>().where(\.age >= 18 && \.name != "")
/// From<Person>().where(\.email == nil || !(\.age < 30))
/// ```
public struct Where<E: Entity>: Sendable {
    indirect enum Node: Sendable {
        case constant(Bool)
        case compare(column: String, ComparisonOperator, DatabaseValue)
        case compareColumns(String, ComparisonOperator, String)
        case isNull(column: String, negated: Bool)
        case and(Node, Node)
        case or(Node, Node)
        case not(Node)
        case invalid(StrataError)
    }

    enum ComparisonOperator: String, Sendable {
        case equal = "IS", notEqual = "IS NOT", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    let node: Node

    init(node: Node) {
        self.node = node
    }

    /// A filter that keeps every object (`true`) or none (`false`).
    public init(_ value: Bool) {
        node = .constant(value)
    }

    /// The column a key path reads, or an error node saying why it has none.
    static func column(for keyPath: PartialKeyPath<E>) -> Result<String, StrataError> {
        if keyPath == E.idKeyPath { return .success("id") }
        guard let index = E.fieldIndex(for: keyPath) else {
            return .failure(StrataError(
                .unsupportedQuery,
                "A key path of \(E.self) used in a query is not a stored field; only stored fields and the ID "
                    + "can be filtered and sorted on.",
                entity: E.entityDescription.name))
        }
        return .success(E.entityDescription.fields[index].column)
    }
}

// MARK: - Logic

extension Where {
    /// Both filters must match.
    public static func && (lhs: Where<E>, rhs: Where<E>) -> Where<E> {
        Where(node: .and(lhs.node, rhs.node))
    }

    /// Either filter must match.
    public static func || (lhs: Where<E>, rhs: Where<E>) -> Where<E> {
        Where(node: .or(lhs.node, rhs.node))
    }

    /// The filter must not match.
    public static prefix func ! (operand: Where<E>) -> Where<E> {
        Where(node: .not(operand.node))
    }
}

// MARK: - Comparisons

extension KeyPath where Root: Entity, Value: DatabaseValueConvertible {
    fileprivate static func compare(
        _ keyPath: KeyPath<Root, Value>, _ op: Where<Root>.ComparisonOperator, _ value: Value
    ) -> Where<Root> {
        switch Where<Root>.column(for: keyPath) {
        case .failure(let error):
            return Where(node: .invalid(error))
        case .success(let column):
            let bound = value.databaseValue
            if bound.isNull, op == .equal || op == .notEqual {
                return Where(node: .isNull(column: column, negated: op == .notEqual))
            }
            return Where(node: .compare(column: column, op, bound))
        }
    }

    fileprivate static func compare(
        _ lhs: KeyPath<Root, Value>, _ op: Where<Root>.ComparisonOperator, _ rhs: KeyPath<Root, Value>
    ) -> Where<Root> {
        switch (Where<Root>.column(for: lhs), Where<Root>.column(for: rhs)) {
        case (.success(let left), .success(let right)):
            return Where(node: .compareColumns(left, op, right))
        case (.failure(let error), _), (_, .failure(let error)):
            return Where(node: .invalid(error))
        }
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
    public static func < (lhs: KeyPath, rhs: Value) -> Where<Root> { compare(lhs, .less, rhs) }
    /// The field is at most the value.
    public static func <= (lhs: KeyPath, rhs: Value) -> Where<Root> { compare(lhs, .lessOrEqual, rhs) }
    /// The field is greater than the value.
    public static func > (lhs: KeyPath, rhs: Value) -> Where<Root> { compare(lhs, .greater, rhs) }
    /// The field is at least the value.
    public static func >= (lhs: KeyPath, rhs: Value) -> Where<Root> { compare(lhs, .greaterOrEqual, rhs) }
    /// The first field is less than the second.
    public static func < (lhs: KeyPath, rhs: KeyPath) -> Where<Root> { compare(lhs, .less, rhs) }
    /// The first field is at most the second.
    public static func <= (lhs: KeyPath, rhs: KeyPath) -> Where<Root> { compare(lhs, .lessOrEqual, rhs) }
    /// The first field is greater than the second.
    public static func > (lhs: KeyPath, rhs: KeyPath) -> Where<Root> { compare(lhs, .greater, rhs) }
    /// The first field is at least the second.
    public static func >= (lhs: KeyPath, rhs: KeyPath) -> Where<Root> { compare(lhs, .greaterOrEqual, rhs) }
}
