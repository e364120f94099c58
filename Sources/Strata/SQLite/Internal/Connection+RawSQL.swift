internal import CSQLite
internal import Foundation

/// Raw SQL reads: one read-only query, its arguments bound, its rows as values.
extension Connection {
    /// The rows of `sql`, a single `SELECT`, `WITH … SELECT` or `VALUES` query, with `arguments` bound
    /// to its parameters in order.
    ///
    /// Anything else is refused before it runs: a statement that writes, a transaction or savepoint
    /// statement, `ATTACH`, a `PRAGMA` (some change the connection), or a text holding a second
    /// statement. Strata tracks every change its own writes make; a raw write would bypass that.
    /// Reads at most `limit` rows when one is given.
    func rawRows(
        sql: String, arguments: [(any DatabaseValueConvertible)?], limit: Int = .max
    ) throws(StrataError) -> [SQLRow] {
        // Prepared outside the statement cache, and finalized when it goes.
        let statement = try rawQuery(sql, arguments: arguments.map { $0?.databaseValue ?? .null })
        // A query SQLite calls read-only can still write when it runs: `SELECT * FROM
        // pragma_optimize(…)` runs ANALYZE. On a connection that can write (a transaction's), the
        // query runs with writes turned off; a reader's connection cannot write anyway.
        let guarded = sqlite3_db_readonly(handle, "main") == 0
        if guarded { try execute("PRAGMA query_only = 1") }
        defer { if guarded { try? execute("PRAGMA query_only = 0") } }
        let count = statement.columnCount
        var columns: [String] = []
        columns.reserveCapacity(Int(count))
        for index in 0..<count {
            columns.append(sqlite3_column_name(statement.handle, index).map { String(cString: $0) } ?? "")
        }
        var rows: [SQLRow] = []
        while rows.count < limit, try statement.step() {
            var values: [DatabaseValue] = []
            values.reserveCapacity(Int(count))
            for index in 0..<count { values.append(statement.value(at: index)) }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    /// The first column of the first row of `sql` as `T` (see ``rawRows(sql:arguments:limit:)``).
    func rawValue<T: DatabaseValueConvertible>(sql: String, arguments: [(any DatabaseValueConvertible)?]) throws(StrataError) -> T? {
        try rawRows(sql: sql, arguments: arguments, limit: 1).first.flatMap { T(databaseValue: $0[0]) }
    }

    /// The prepared, checked and bound statement of a raw query.
    private func rawQuery(_ sql: String, arguments: [DatabaseValue]) throws(StrataError) -> Statement {
        guard let keyword = Self.leadingKeyword(sql) else {
            throw StrataError(.invalidArgument, "The SQL text holds no statement; pass one SELECT, WITH or VALUES query.")
        }
        guard ["SELECT", "WITH", "VALUES"].contains(keyword) else {
            throw Self.notAQuery(sql, "it starts with \(keyword)")
        }
        // Not from the statement cache: a user's texts (some refused, some with values written into
        // them) would evict Strata's own statements.
        let statement = try Statement(connection: self, sql: sql)
        guard sqlite3_stmt_readonly(statement.handle) != 0, statement.columnCount > 0 else {
            throw Self.notAQuery(sql, "it writes")
        }
        if statement.endOffset < sql.utf8.count {
            let rest = String(decoding: sql.utf8.dropFirst(statement.endOffset), as: UTF8.self)
            if Self.leadingKeyword(rest) != nil {
                throw StrataError(
                    .invalidArgument,
                    "The SQL text holds more than one statement; pass one query per call (found \"\(rest.prefix(60))\" after the first).",
                    sql: sql)
            }
        }
        let parameters = Int(sqlite3_bind_parameter_count(statement.handle))
        guard parameters == arguments.count else {
            throw StrataError(
                .invalidArgument,
                "The SQL has \(parameters) parameter\(parameters == 1 ? "" : "s") but \(arguments.count) argument"
                    + "\(arguments.count == 1 ? " was" : "s were") given; pass one argument per ?, in order.",
                sql: sql)
        }
        try statement.bind(arguments)
        return statement
    }

    private static func notAQuery(_ sql: String, _ reason: String) -> StrataError {
        StrataError(
            .unsupportedQuery,
            "Raw SQL runs one read-only query (SELECT, WITH or VALUES), but \(reason). Write through a transaction's "
                + "create, edit and delete, which Strata tracks for observation and history.",
            sql: sql)
    }

    /// The first word of `sql` in upper case, after white space and comments; `nil` when there is none.
    static func leadingKeyword(_ sql: String) -> String? {
        var rest = Substring(sql)
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == ";" }
            if rest.hasPrefix("--") {
                rest = rest.drop { !$0.isNewline }
            } else if rest.hasPrefix("/*") {
                guard let end = rest.range(of: "*/") else { return nil }
                rest = rest[end.upperBound...]
            } else {
                break
            }
        }
        let word = rest.prefix { $0.isLetter }
        return word.isEmpty ? (rest.isEmpty ? nil : String(rest.prefix(1))) : word.uppercased()
    }
}
