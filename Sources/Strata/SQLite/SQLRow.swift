/// One row of a raw SQL query (``ReadContext/fetchRows(sql:arguments:)``): its values in column order,
/// with the columns' names.
///
/// ```swift
/// let rows = try await stack.fetchRows(
///     sql: "SELECT age, count(*) AS people FROM Person WHERE age >= ? GROUP BY age", arguments: [18])
/// for row in rows {
///     print(row["age", as: Int.self]!, row["people", as: Int.self]!)
/// }
/// ```
public struct SQLRow: Sendable, Hashable {
    /// The names of the columns, as SQLite gives them (an `AS` alias, or the column's name). All the
    /// rows of one query share one array.
    public let columns: [String]
    /// The values, one per column, in column order.
    public let values: [DatabaseValue]

    /// Makes a row from its columns and values, which must be as many.
    public init(columns: [String], values: [DatabaseValue]) {
        precondition(columns.count == values.count, "SQLRow: \(columns.count) columns but \(values.count) values")
        self.columns = columns
        self.values = values
    }

    /// The value of the column at `index` (0-based).
    public subscript(index: Int) -> DatabaseValue {
        values[index]
    }

    /// The value of the first column named `column` (compared exactly), or `nil` when the query has
    /// none of that name.
    public subscript(column: String) -> DatabaseValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }

    /// The value of the column at `index` as `T`, or `nil` when it is `NULL` or not representable as
    /// `T`.
    public subscript<T: DatabaseValueConvertible>(index: Int, as type: T.Type) -> T? {
        T(databaseValue: values[index])
    }

    /// The value of the first column named `column` as `T`, or `nil` when there is no such column, or
    /// the value is `NULL` or not representable as `T`.
    public subscript<T: DatabaseValueConvertible>(column: String, as type: T.Type) -> T? {
        self[column].flatMap { T(databaseValue: $0) }
    }
}
