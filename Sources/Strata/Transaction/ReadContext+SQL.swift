/// Raw SQL reads.
extension ReadContext {
    /// The rows of a raw SQL query: one `SELECT`, `WITH … SELECT` or `VALUES` statement, with
    /// `arguments` bound to its `?` parameters in order.
    ///
    /// ```swift
    /// let rows = try await stack.read { r in
    ///     try r.fetchRows(sql: "SELECT name, age FROM Person WHERE age >= ? ORDER BY age", arguments: [18])
    /// }
    /// ```
    ///
    /// An entity's table has the entity's name, its columns the fields' names (or their `column:`),
    /// and `id` holds the raw value of the object's ``EntityID``. Inside a ``Transaction`` the query
    /// sees the transaction's own changes. In a stack of several stores, a table name that more than
    /// one store holds reads the default configuration's store (SQLite looks a name up in the main
    /// database first, then in the attached ones).
    ///
    /// - Throws: ``StrataError/Code/unsupportedQuery`` for a statement that writes or is not a query
    ///   (`INSERT`, `BEGIN`, `PRAGMA`, `ATTACH`, …): write through a transaction, which Strata tracks
    ///   for observation and history; ``StrataError/Code/invalidArgument`` for a text holding no
    ///   statement or more than one, or a number of arguments different from the parameters';
    ///   ``StrataError/Code/sqlite`` with SQLite's codes for SQL that does not compile or fails.
    public func fetchRows(sql: String, arguments: [(any DatabaseValueConvertible)?] = []) throws -> [SQLRow] {
        try checkOpen()
        return try connection.rawRows(sql: sql, arguments: arguments)
    }

    /// The first column of the first row of a raw SQL query as `T`; `nil` when there is no row, or the
    /// value is `NULL` or not representable as `T`. See ``fetchRows(sql:arguments:)``.
    ///
    /// ```swift
    /// let oldest = try tx.fetchValue(Int.self, sql: "SELECT max(age) FROM Person")
    /// ```
    public func fetchValue<T: DatabaseValueConvertible>(
        _ type: T.Type, sql: String, arguments: [(any DatabaseValueConvertible)?] = []
    ) throws -> T? {
        try checkOpen()
        return try connection.rawValue(sql: sql, arguments: arguments)
    }
}
