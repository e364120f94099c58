/// SQL text with the values to bind to its placeholders, in order.
struct SQLQuery: Sendable {
    var sql: String
    var bindings: [DatabaseValue]
}

/// Turns clauses into SQL. The only place (with ``SchemaSQL``) where SQL text is written.
struct QueryBuilder: Sendable {
    let dialect: any SQLDialect

    init(dialect: any SQLDialect = SQLiteDialect()) {
        self.dialect = dialect
    }

    /// The quoted list of columns an entity's `init(row:)` reads: the ID, then every field.
    func selectColumns(_ entity: EntityDescription) -> String {
        ([dialect.quote("id")] + entity.fields.map { dialect.quote($0.column) }).joined(separator: ", ")
    }

    /// `SELECT <columns> FROM <table> [WHERE] [ORDER BY] [LIMIT/OFFSET]`.
    func select<E>(_ from: From<E>, columns: String? = nil, limit: Int? = nil) throws(StrataError) -> SQLQuery {
        try from.validate()
        let entity = E.entityDescription
        var query = SQLQuery(
            sql: "SELECT \(columns ?? selectColumns(entity)) FROM \(dialect.quote(entity.name))", bindings: [])
        try appendWhere(from.predicate, to: &query)
        try appendOrder(from.order, to: &query)
        let effectiveLimit = limit.map { min($0, from.limit ?? $0) } ?? from.limit
        if effectiveLimit != nil || from.offset != nil {
            query.sql += " LIMIT \(dialect.placeholder(query.bindings.count + 1))"
            query.bindings.append(.integer(Int64(effectiveLimit ?? -1)))
            if let offset = from.offset {
                query.sql += " OFFSET \(dialect.placeholder(query.bindings.count + 1))"
                query.bindings.append(.integer(Int64(offset)))
            }
        }
        return query
    }

    /// `SELECT <terms> FROM <table> [WHERE] [GROUP BY] [ORDER BY] [LIMIT/OFFSET]` of a query.
    func select<E, R>(_ query: Query<E, R>) throws(StrataError) -> SQLQuery {
        guard !query.terms.isEmpty else {
            throw StrataError(.invalidArgument, "A query needs at least one select term.", entity: E.entityDescription.name)
        }
        var columns: [String] = []
        for term in query.terms {
            let column = dialect.quote(try term.column.get().column)
            columns.append(term.function.sql.map { "\($0)(\(column))" } ?? column)
        }
        let from = query.from
        try from.validate()
        var result = SQLQuery(
            sql: "SELECT \(columns.joined(separator: ", ")) FROM \(dialect.quote(E.entityDescription.name))", bindings: [])
        try appendWhere(from.predicate, to: &result)
        if !query.groups.isEmpty {
            var groups: [String] = []
            for group in query.groups { groups.append(dialect.quote(try group.get().column)) }
            result.sql += " GROUP BY " + groups.joined(separator: ", ")
        }
        try appendOrder(from.order, to: &result)
        if from.limit != nil || from.offset != nil {
            result.sql += " LIMIT \(dialect.placeholder(result.bindings.count + 1))"
            result.bindings.append(.integer(Int64(from.limit ?? -1)))
            if let offset = from.offset {
                result.sql += " OFFSET \(dialect.placeholder(result.bindings.count + 1))"
                result.bindings.append(.integer(Int64(offset)))
            }
        }
        return result
    }

    /// `SELECT count(*) FROM <table> [WHERE]`, honouring limit and offset.
    func count<E>(_ from: From<E>) throws(StrataError) -> SQLQuery {
        if from.limit != nil || from.offset != nil {
            var inner = try select(from, columns: dialect.quote("id"))
            inner.sql = "SELECT count(*) FROM (\(inner.sql))"
            return inner
        }
        var query = SQLQuery(sql: "SELECT count(*) FROM \(dialect.quote(E.entityDescription.name))", bindings: [])
        try appendWhere(from.predicate, to: &query)
        return query
    }

    /// `DELETE FROM <table> [WHERE] RETURNING id`.
    func delete<E>(_ from: From<E>) throws(StrataError) -> SQLQuery {
        var query = SQLQuery(sql: "DELETE FROM \(dialect.quote(E.entityDescription.name))", bindings: [])
        try appendWhere(from.predicate, to: &query)
        query.sql += dialect.returningIDClause
        return query
    }

    /// `INSERT INTO <table> (<fields>) VALUES (?, ...)`.
    func insert(_ entity: EntityDescription) -> String {
        let columns = entity.fields.map { dialect.quote($0.column) }.joined(separator: ", ")
        let placeholders = entity.fields.indices.map { dialect.placeholder($0 + 1) }.joined(separator: ", ")
        if entity.fields.isEmpty {
            return "INSERT INTO \(dialect.quote(entity.name)) DEFAULT VALUES"
        }
        return "INSERT INTO \(dialect.quote(entity.name)) (\(columns)) VALUES (\(placeholders))"
    }

    /// `UPDATE <table> SET <changed fields> WHERE id = ?`.
    func update(_ entity: EntityDescription, fields: [Int]) -> String {
        let assignments = fields.enumerated().map { offset, index in
            "\(dialect.quote(entity.fields[index].column)) = \(dialect.placeholder(offset + 1))"
        }
        return "UPDATE \(dialect.quote(entity.name)) SET \(assignments.joined(separator: ", ")) "
            + "WHERE \(dialect.quote("id")) = \(dialect.placeholder(fields.count + 1))"
    }

    /// `SELECT <columns> FROM <table> WHERE id = ?`.
    func selectByID(_ entity: EntityDescription) -> String {
        "SELECT \(selectColumns(entity)) FROM \(dialect.quote(entity.name)) WHERE \(dialect.quote("id")) = ?"
    }

    /// `DELETE FROM <table> WHERE id = ?`.
    func deleteByID(_ entity: EntityDescription) -> String {
        "DELETE FROM \(dialect.quote(entity.name)) WHERE \(dialect.quote("id")) = ?"
    }

    // MARK: Clauses

    private func appendWhere<E>(_ predicate: Where<E>?, to query: inout SQLQuery) throws(StrataError) {
        guard let predicate else { return }
        query.sql += " WHERE "
        try render(predicate.expression, into: &query)
    }

    private func appendOrder<E>(_ order: OrderBy<E>, to query: inout SQLQuery) throws(StrataError) {
        guard !order.terms.isEmpty else { return }
        var parts: [String] = []
        for term in order.terms {
            let column = try term.column.get()
            let collation = term.collation.map { " COLLATE \($0)" } ?? ""
            parts.append(dialect.quote(column.column) + collation + (term.ascending ? " ASC" : " DESC"))
        }
        query.sql += " ORDER BY " + parts.joined(separator: ", ")
    }

    /// Renders an expression; values become bound parameters.
    func render(_ expression: SQLExpression, into query: inout SQLQuery) throws(StrataError) {
        switch expression {
        case .column(let column):
            query.sql += dialect.quote(column.column)
        case .value(let value):
            query.bindings.append(value)
            query.sql += dialect.placeholder(query.bindings.count)
        case .constant(let value):
            query.sql += value ? "1" : "0"
        case .compare(let left, let op, let right):
            query.sql += "("
            try render(left, into: &query)
            query.sql += " \(op.rawValue) "
            try render(right, into: &query)
            query.sql += ")"
        case .isNull(let operand, let negated):
            query.sql += "("
            try render(operand, into: &query)
            query.sql += negated ? " IS NOT NULL)" : " IS NULL)"
        case .inList(let operand, let values, let negated):
            try renderIn(operand, values, negated: negated, into: &query)
        case .between(let operand, let lower, let upper):
            query.sql += "("
            try render(operand, into: &query)
            query.sql += " BETWEEN "
            try render(lower, into: &query)
            query.sql += " AND "
            try render(upper, into: &query)
            query.sql += ")"
        case .text(let test, let left, let right, let options):
            // One Swift function gives text tests Swift's semantics (Unicode case and diacritic folding,
            // `*`/`?` patterns), identical in SQL and in memory.
            query.sql += "\(TextFunction.name)('\(test.rawValue)', "
            try render(left, into: &query)
            query.sql += ", "
            try render(right, into: &query)
            query.sql += ", \(options.rawValue))"
        case .and(let left, let right):
            query.sql += "("
            try render(left, into: &query)
            query.sql += " AND "
            try render(right, into: &query)
            query.sql += ")"
        case .or(let left, let right):
            query.sql += "("
            try render(left, into: &query)
            query.sql += " OR "
            try render(right, into: &query)
            query.sql += ")"
        case .not(let operand):
            // SQL's NOT keeps NULL unknown; Swift's ! of a comparison with nil is true.
            query.sql += "NOT coalesce("
            try render(operand, into: &query)
            query.sql += ", 0)"
        case .invalid(let error):
            throw error
        }
    }

    private func renderIn(
        _ operand: SQLExpression, _ values: [DatabaseValue], negated: Bool, into query: inout SQLQuery
    ) throws(StrataError) {
        let present = values.filter { !$0.isNull }
        let matchesNull = present.count != values.count
        if values.isEmpty {
            query.sql += negated ? "1" : "0"
            return
        }
        var test = SQLQuery(sql: "", bindings: query.bindings)
        test.sql += "("
        if !present.isEmpty {
            try render(operand, into: &test)
            test.sql += " IN ("
            for (index, value) in present.enumerated() {
                if index > 0 { test.sql += ", " }
                test.bindings.append(value)
                test.sql += dialect.placeholder(test.bindings.count)
            }
            test.sql += ")"
        }
        if matchesNull {
            if !present.isEmpty { test.sql += " OR " }
            try render(operand, into: &test)
            test.sql += " IS NULL"
        }
        test.sql += ")"
        query.bindings = test.bindings
        query.sql += negated ? "NOT coalesce(\(test.sql), 0)" : test.sql
    }
}
