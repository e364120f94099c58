/// Raw SQL reads on the reader pool.
extension DataStack {
    /// The rows of a raw SQL query, read on a reader connection: one `SELECT`, `WITH … SELECT` or
    /// `VALUES` statement, with `arguments` bound to its `?` parameters in order. See
    /// ``ReadContext/fetchRows(sql:arguments:)`` for the rules.
    ///
    /// ```swift
    /// let rows = try await stack.fetchRows(
    ///     sql: "SELECT age, count(*) AS people FROM Person GROUP BY age HAVING count(*) > ?", arguments: [1])
    /// ```
    public func fetchRows(sql: String, arguments: [(any DatabaseValueConvertible)?] = []) async throws -> [SQLRow] {
        try await readers.read { try $0.rawRows(sql: sql, arguments: arguments) }
    }

    /// The first column of the first row of a raw SQL query as `T`, read on a reader connection; `nil`
    /// when there is no row, or the value is `NULL` or not representable as `T`. See
    /// ``ReadContext/fetchRows(sql:arguments:)``.
    public func fetchValue<T: DatabaseValueConvertible>(
        _ type: T.Type, sql: String, arguments: [(any DatabaseValueConvertible)?] = []
    ) async throws -> T? {
        try await readers.read { try $0.rawValue(sql: sql, arguments: arguments) }
    }
}
