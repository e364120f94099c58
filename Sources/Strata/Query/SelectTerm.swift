/// One column of a query's result: a field's value, or an aggregate of it.
///
/// ```swift
/// From<Person>().select(.attribute(\.age), .count(\.id), .average(\.score, as: "meanScore")).groupBy(\.age)
/// ```
/// Each term has a key in the result rows: its alias when given, otherwise the property's path for an
/// attribute and `function(path)` for an aggregate (`count(id)`, `average(score)`); a path through
/// to-one relationships joins their names with dots (`owner.name`, `count(owner.name)`). Two terms of
/// one query may not share a key: give one an alias.
public struct SelectTerm<E: Entity>: Sendable {
    /// What the term computes.
    public enum Function: String, Sendable {
        /// The attribute's value, row by row (or per group).
        case attribute
        /// The average of the attribute's values.
        case average
        /// The number of non-`NULL` values of the attribute.
        case count
        /// The largest of the attribute's values.
        case maximum
        /// The smallest of the attribute's values.
        case minimum
        /// The sum of the attribute's values.
        case sum

        var sql: String? {
            switch self {
            case .attribute: nil
            case .average: "avg"
            case .count: "count"
            case .maximum: "max"
            case .minimum: "min"
            case .sum: "sum"
            }
        }
    }

    /// What the term computes.
    public let function: Function
    let column: Result<ColumnRef, StrataError>
    let alias: String?
    /// Whether the aggregate reads the column as a number (a `Decimal`, stored as text).
    var comparesAsReal = false

    /// The term's SQL over `column` (an expression): the aggregate applied, if any.
    func sql(over column: String) -> String {
        guard let function = function.sql else { return column }
        return comparesAsReal ? "\(function)(CAST(\(column) AS REAL))" : "\(function)(\(column))"
    }

    /// The key of the term's value in result rows.
    public var key: String {
        if let alias { return alias }
        let property = (try? column.get())?.path ?? "?"
        return function == .attribute ? property : "\(function.rawValue)(\(property))"
    }

    private static func make<V>(_ function: Function, _ keyPath: KeyPath<E, V>, _ alias: String?) -> SelectTerm<E> {
        // SQLite's min() and max() would compare a Decimal's stored text character by character.
        let numeric = (function == .minimum || function == .maximum) && TextStoredNumbers.isDecimal(V.self)
        return SelectTerm(function: function, column: ColumnResolver.column(for: keyPath), alias: alias, comparesAsReal: numeric)
    }

    /// The field's value.
    public static func attribute<V: DatabaseValueConvertible>(_ keyPath: KeyPath<E, V>, as alias: String? = nil) -> SelectTerm<E> {
        make(.attribute, keyPath, alias)
    }

    /// The field's value, naming the field by its property name (or `id`).
    public static func attribute(_ key: String, as alias: String? = nil) -> SelectTerm<E> {
        SelectTerm(function: .attribute, column: ColumnResolver.column(forKeyPath: key, of: E.self).map(\.0), alias: alias)
    }

    /// The mean of the field over the rows (or each group); `nil` when there are none. Only numbers
    /// average (``NumericDatabaseValue``): `.average(\.title)` does not compile.
    public static func average<V: NumericDatabaseValue>(_ keyPath: KeyPath<E, V>, as alias: String? = nil) -> SelectTerm<E> {
        make(.average, keyPath, alias)
    }

    /// The number of rows (or rows of each group) where the field is not `nil`.
    public static func count<V: DatabaseValueConvertible>(_ keyPath: KeyPath<E, V>, as alias: String? = nil) -> SelectTerm<E> {
        make(.count, keyPath, alias)
    }

    /// The largest value of the field.
    public static func maximum<V: DatabaseValueConvertible>(_ keyPath: KeyPath<E, V>, as alias: String? = nil) -> SelectTerm<E> {
        make(.maximum, keyPath, alias)
    }

    /// The smallest value of the field.
    public static func minimum<V: DatabaseValueConvertible>(_ keyPath: KeyPath<E, V>, as alias: String? = nil) -> SelectTerm<E> {
        make(.minimum, keyPath, alias)
    }

    /// The sum of the field; `nil` when there are no rows, or when the sum is not a number (SQLite
    /// stores NaN as `NULL`: infinity plus minus infinity). A sum of integers past `Int64`'s range
    /// throws (``StrataError/Code/sqlite``, "integer overflow"). Only numbers add up
    /// (``NumericDatabaseValue``): `.sum(\.title)` does not compile.
    public static func sum<V: NumericDatabaseValue>(_ keyPath: KeyPath<E, V>, as alias: String? = nil) -> SelectTerm<E> {
        make(.sum, keyPath, alias)
    }
}
