/// SQL text with the values to bind to its placeholders, in order.
struct SQLQuery: Sendable {
    var sql: String
    var bindings: [DatabaseValue]
    /// The number of table aliases used so far, to name the next one.
    var aliasCount = 0
    /// The column of each row's store tag, in a read across several stores; -1 otherwise.
    var tagColumn: Int32 = -1
    /// The store tags of the IDs among the bound values (see ``SQLExpression/storeChecked(_:_:)``): the
    /// query may only run on those stores.
    var idTags: [UInt32] = []

    init(sql: String, bindings: [DatabaseValue]) {
        self.sql = sql
        self.bindings = bindings
    }

    /// A fresh table alias for a subquery: `strata_t1`, `strata_t2`, … No entity's table can be named
    /// so (names starting with `strata_` are reserved, see ``Schema``), so an alias never hides the outer
    /// table its subquery is correlated to.
    mutating func nextAlias() -> String {
        aliasCount += 1
        return "\"strata_t\(aliasCount)\""
    }
}

/// Turns clauses into SQL. The only place (with ``SchemaSQL``) where SQL text is written.
///
/// Columns are always qualified with their table (or a subquery's alias), so predicates over related
/// entities can nest without ambiguity.
struct QueryBuilder: Sendable {
    let dialect: any SQLDialect
    /// The resolved relationships; `nil` builds only what needs none.
    let graph: SchemaGraph?
    /// The SQLite schema name of the store the statements act on (an attached store of a stack of
    /// several stores), or `nil` for the main database: every table name is qualified with it.
    let schemaName: String?

    init(dialect: any SQLDialect = SQLiteDialect(), graph: SchemaGraph? = nil, schemaName: String? = nil) {
        self.dialect = dialect
        self.graph = graph
        self.schemaName = schemaName
    }

    /// A table name as the statements name it: quoted, and qualified with the store's schema name.
    func qualified(_ table: String) -> String {
        dialect.qualify(table, in: schemaName)
    }

    /// The columns an entity's `init(row:)` reads: the ID, the fields, the to-many relationships (as
    /// JSON arrays of IDs) and the derived fields, qualified with `qualifier`.
    func selectColumns(_ entity: EntityDescription, qualifier: String? = nil, into query: inout SQLQuery) throws(StrataError) -> String {
        let table = qualifier ?? qualified(entity.name)
        var columns = ["\(table).\(dialect.quote("id"))"] + entity.fields.map { "\(table).\(dialect.quote($0.column))" }
        for index in entity.toMany.indices {
            columns.append(try toManyIDs(entity.name, index, outer: table, into: &query))
        }
        for index in entity.derived.indices {
            columns.append(try derivedValue(entity.name, index, outer: table, into: &query))
        }
        return columns.joined(separator: ", ")
    }

    /// `SELECT <columns> FROM <table> [WHERE] [ORDER BY] [LIMIT/OFFSET]`.
    func select<E>(_ from: From<E>, idOnly: Bool = false) throws(StrataError) -> SQLQuery {
        try from.validate()
        let entity = E.entityDescription
        let table = qualified(entity.name)
        var query = SQLQuery(sql: "", bindings: [])
        let columns = idOnly ? "\(table).\(dialect.quote("id"))" : try selectColumns(entity, into: &query)
        query.sql = "SELECT \(columns) FROM \(table)"
        try appendWhere(from.predicate, qualifier: table, to: &query)
        try appendOrder(from.order, qualifier: table, to: &query)
        appendLimit(from, to: &query)
        return query
    }

    /// `SELECT <terms> FROM <table> [WHERE] [GROUP BY] [ORDER BY] [LIMIT/OFFSET]` of a query.
    func select<E, R>(_ query: Query<E, R>) throws(StrataError) -> SQLQuery {
        let entityName = E.entityDescription.name
        guard !query.terms.isEmpty else {
            throw StrataError(.invalidArgument, "A query needs at least one select term.", entity: entityName)
        }
        let from = query.from
        try from.validate()
        let table = qualified(entityName)
        var result = SQLQuery(sql: "", bindings: [])
        var columns: [String] = []
        if query.aggregatesLimitedRows {
            // The limit and offset choose the rows the aggregates read, as they do for fetchCount: the
            // rows are selected first, the aggregates read them.
            for (index, term) in query.terms.enumerated() {
                columns.append(try columnSQL(try term.column.get(), qualifier: table, into: &result) + " AS \"_c\(index)\"")
            }
            result.sql = "SELECT \(columns.joined(separator: ", ")) FROM \(table)" + result.sql
            try appendWhere(from.predicate, qualifier: table, to: &result)
            try appendOrder(from.order, qualifier: table, to: &result)
            appendLimit(from, to: &result)
            let values = query.terms.enumerated().map { index, term in term.sql(over: "\"_c\(index)\"") }
            result.sql = "SELECT \(values.joined(separator: ", ")) FROM (\(result.sql))"
            return result
        }
        for term in query.terms {
            let column = try columnSQL(try term.column.get(), qualifier: table, into: &result)
            columns.append(term.sql(over: column))
        }
        result.sql = "SELECT \(columns.joined(separator: ", ")) FROM \(table)" + result.sql
        try appendWhere(from.predicate, qualifier: table, to: &result)
        if !query.groups.isEmpty {
            var groups: [String] = []
            for group in query.groups { groups.append(try columnSQL(try group.get(), qualifier: table, into: &result)) }
            result.sql += " GROUP BY " + groups.joined(separator: ", ")
        }
        try appendOrder(from.order, qualifier: table, to: &result)
        appendLimit(from, to: &result)
        return result
    }

    /// `SELECT count(*) FROM <table> [WHERE]`, honouring limit and offset.
    func count<E>(_ from: From<E>) throws(StrataError) -> SQLQuery {
        if from.limit != nil || from.offset != nil {
            var inner = try select(from, idOnly: true)
            inner.sql = "SELECT count(*) FROM (\(inner.sql))"
            return inner
        }
        try from.validate()
        let table = qualified(E.entityDescription.name)
        var query = SQLQuery(sql: "SELECT count(*) FROM \(table)", bindings: [])
        try appendWhere(from.predicate, qualifier: table, to: &query)
        return query
    }

    /// `DELETE FROM <table> [WHERE] RETURNING id`: every matching row (a limit or an offset is the
    /// caller's to apply, by IDs).
    func delete<E>(_ from: From<E>) throws(StrataError) -> SQLQuery {
        precondition(from.limit == nil && from.offset == nil, "DELETE cannot limit; delete by IDs")
        let table = qualified(E.entityDescription.name)
        var query = SQLQuery(sql: "DELETE FROM \(table)", bindings: [])
        try appendWhere(from.predicate, qualifier: table, to: &query)
        query.sql += dialect.returningIDClause
        return query
    }

    /// `INSERT INTO <table> (id, <fields>) VALUES (?, ...)`: the ID is parameter 1, the fields follow.
    func insert(_ entity: EntityDescription) -> String {
        let columns = ([dialect.quote("id")] + entity.fields.map { dialect.quote($0.column) }).joined(separator: ", ")
        let placeholders = (0...entity.fields.count).map { dialect.placeholder($0 + 1) }.joined(separator: ", ")
        return "INSERT INTO \(qualified(entity.name)) (\(columns)) VALUES (\(placeholders))"
    }

    /// `UPDATE <table> SET <changed fields> WHERE id = ?`.
    func update(_ entity: EntityDescription, fields: [Int]) -> String {
        let assignments = fields.enumerated().map { offset, index in
            "\(dialect.quote(entity.fields[index].column)) = \(dialect.placeholder(offset + 1))"
        }
        return "UPDATE \(qualified(entity.name)) SET \(assignments.joined(separator: ", ")) "
            + "WHERE \(dialect.quote("id")) = \(dialect.placeholder(fields.count + 1))"
    }

    /// `SELECT <columns> FROM <table> WHERE id = ?`.
    func selectByID(_ entity: EntityDescription) throws(StrataError) -> String {
        var query = SQLQuery(sql: "", bindings: [])
        let table = qualified(entity.name)
        return "SELECT \(try selectColumns(entity, into: &query)) FROM \(table) WHERE \(table).\(dialect.quote("id")) = ?"
    }

    /// `DELETE FROM <table> WHERE id = ?`.
    func deleteByID(_ entity: EntityDescription) -> String {
        "DELETE FROM \(qualified(entity.name)) WHERE \(dialect.quote("id")) = ?"
    }

    // MARK: Clauses

    func appendWhere<E>(_ predicate: Where<E>?, qualifier: String, to query: inout SQLQuery) throws(StrataError) {
        guard let predicate else { return }
        query.sql += " WHERE "
        try render(predicate.expression, qualifier: qualifier, into: &query)
    }

    func appendOrder<E>(_ order: OrderBy<E>, qualifier: String, to query: inout SQLQuery) throws(StrataError) {
        guard !order.terms.isEmpty else { return }
        var parts: [String] = []
        for term in order.terms {
            let column = try columnSQL(try term.column.get(), qualifier: qualifier, into: &query)
            let collation = term.collation.map { " COLLATE \($0)" } ?? ""
            parts.append(column + collation + (term.ascending ? " ASC" : " DESC"))
        }
        query.sql += " ORDER BY " + parts.joined(separator: ", ")
    }

    func appendLimit<E>(_ from: From<E>, to query: inout SQLQuery) {
        guard from.limit != nil || from.offset != nil else { return }
        query.sql += " LIMIT \(dialect.placeholder(query.bindings.count + 1))"
        query.bindings.append(.integer(Int64(from.limit ?? -1)))
        if let offset = from.offset {
            query.sql += " OFFSET \(dialect.placeholder(query.bindings.count + 1))"
            query.bindings.append(.integer(Int64(offset)))
        }
    }

    /// The SQL of a column reference: a qualified column, or the subquery of a derived value or count.
    ///
    /// Subqueries in select lists and ORDER BY are generated here and contain no bound values, so they
    /// can be built before or after the rest of the statement.
    func columnSQL(_ column: ColumnRef, qualifier: String, into query: inout SQLQuery) throws(StrataError) -> String {
        if let hop = column.through.first {
            // A column of a related object: a subquery that follows the ID in the hop's column.
            var inner = column
            inner.through.removeFirst()
            let alias = query.nextAlias()
            let value = try columnSQL(inner, qualifier: alias, into: &query)
            return "(SELECT \(value) FROM \(qualified(hop.target)) AS \(alias) WHERE \(alias)."
                + "\(dialect.quote("id")) = \(qualifier).\(dialect.quote(hop.column)))"
        }
        switch column.kind {
        case .column: return "\(qualifier).\(dialect.quote(column.column))"
        case .derived(let index): return try derivedValue(column.entity, index, outer: qualifier, into: &query)
        case .toManyCount(let index): return try toManyCount(column.entity, index, outer: qualifier, into: &query)
        }
    }
}
