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
        try render(predicate.node, into: &query)
    }

    private func appendOrder<E>(_ order: OrderBy<E>, to query: inout SQLQuery) throws(StrataError) {
        guard !order.terms.isEmpty else { return }
        var parts: [String] = []
        for term in order.terms {
            let column = try term.column.get()
            parts.append(dialect.quote(column) + (term.ascending ? " ASC" : " DESC"))
        }
        query.sql += " ORDER BY " + parts.joined(separator: ", ")
    }

    func render<E>(_ node: Where<E>.Node, into query: inout SQLQuery) throws(StrataError) {
        switch node {
        case .constant(let value):
            query.sql += value ? "1" : "0"
        case .compare(let column, let op, let value):
            query.bindings.append(value)
            query.sql += "\(dialect.quote(column)) \(op.rawValue) \(dialect.placeholder(query.bindings.count))"
        case .compareColumns(let left, let op, let right):
            query.sql += "\(dialect.quote(left)) \(op.rawValue) \(dialect.quote(right))"
        case .isNull(let column, let negated):
            query.sql += "\(dialect.quote(column)) IS \(negated ? "NOT " : "")NULL"
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
            query.sql += "NOT ("
            try render(operand, into: &query)
            query.sql += ")"
        case .invalid(let error):
            throw error
        }
    }
}
