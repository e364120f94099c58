extension SQLQuery {
    /// Takes over a branch's bindings and the store tags of the IDs among them, which
    /// ``StoreContext/checkIDs(_:connectionTag:)`` checks for the whole query.
    mutating func append(bindingsOf part: SQLQuery) {
        bindings += part.bindings
        for tag in part.idTags where !idTags.contains(tag) { idTags.append(tag) }
    }
}

/// Reads across several stores of a stack (attached databases): each store's statement is a branch of
/// one `UNION ALL`, so the stores are read by one statement, in one read transaction. Ordering,
/// grouping, limits and offsets apply to the union as a whole.
extension QueryBuilder {
    /// One store's part of a read across stores: its builder (which names the store's tables) and the
    /// tag its IDs carry.
    struct Branch {
        let builder: QueryBuilder
        let tag: UInt32
    }

    /// The objects of `from` in every branch, each row ending with its order keys and then its store's
    /// tag, whose (0-based) column the query's `tagColumn` says.
    static func select<E>(_ from: From<E>, across branches: [Branch], idOnly: Bool = false) throws(StrataError) -> SQLQuery {
        try from.validate()
        let entity = E.entityDescription
        var result = SQLQuery(sql: "", bindings: [])
        var parts: [String] = []
        let valueCount = idOnly ? 1 : 1 + entity.fields.count + entity.toMany.count + entity.derived.count
        let terms = from.order.terms
        for branch in branches {
            let builder = branch.builder
            let table = builder.qualified(entity.name)
            var part = SQLQuery(sql: "", bindings: [])
            var columns = idOnly ? "\(table).\(builder.dialect.quote("id"))" : try builder.selectColumns(entity, into: &part)
            for term in terms {
                columns += ", " + (try builder.columnSQL(try term.column.get(), qualifier: table, into: &part))
            }
            columns += ", \(branch.tag)"
            part.sql = "SELECT \(columns) FROM \(table)"
            try builder.appendWhere(from.predicate, qualifier: table, to: &part)
            parts.append(part.sql)
            result.append(bindingsOf: part)
        }
        result.sql = parts.joined(separator: " UNION ALL ")
        if !terms.isEmpty {
            let keys = terms.enumerated().map { offset, term in
                "\(valueCount + offset + 1)" + (term.collation.map { " COLLATE \($0)" } ?? "") + (term.ascending ? " ASC" : " DESC")
            }
            result.sql += " ORDER BY " + keys.joined(separator: ", ")
        }
        if let builder = branches.first?.builder { builder.appendLimit(from, to: &result) }
        result.tagColumn = Int32(valueCount + terms.count)
        return result
    }

    /// The number of objects of `from` in every branch.
    static func count<E>(_ from: From<E>, across branches: [Branch]) throws(StrataError) -> SQLQuery {
        if from.limit != nil || from.offset != nil {
            var inner = try select(from, across: branches, idOnly: true)
            inner.tagColumn = -1
            inner.sql = "SELECT count(*) FROM (\(inner.sql))"
            return inner
        }
        var result = SQLQuery(sql: "", bindings: [])
        var parts: [String] = []
        for branch in branches {
            let part = try branch.builder.count(from)
            parts.append("(\(part.sql))")
            result.append(bindingsOf: part)
        }
        result.sql = "SELECT " + parts.joined(separator: " + ")
        return result
    }

    /// A query over every branch: each branch selects the values the query's terms, groups and order
    /// keys read, and the query's functions, grouping and order apply to their union.
    static func select<E, R>(_ query: Query<E, R>, across branches: [Branch]) throws(StrataError) -> SQLQuery {
        let entityName = E.entityDescription.name
        guard !query.terms.isEmpty else {
            throw StrataError(.invalidArgument, "A query needs at least one select term.", entity: entityName)
        }
        let from = query.from
        try from.validate()
        var result = SQLQuery(sql: "", bindings: [])
        var parts: [String] = []
        for branch in branches {
            let builder = branch.builder
            let table = builder.qualified(entityName)
            var part = SQLQuery(sql: "", bindings: [])
            var columns: [String] = []
            for (index, term) in query.terms.enumerated() {
                columns.append(try builder.columnSQL(try term.column.get(), qualifier: table, into: &part) + " AS \"_c\(index)\"")
            }
            for (index, group) in query.groups.enumerated() {
                columns.append(try builder.columnSQL(try group.get(), qualifier: table, into: &part) + " AS \"_g\(index)\"")
            }
            for (index, term) in from.order.terms.enumerated() {
                columns.append(try builder.columnSQL(try term.column.get(), qualifier: table, into: &part) + " AS \"_o\(index)\"")
            }
            part.sql = "SELECT \(columns.joined(separator: ", ")) FROM \(table)"
            try builder.appendWhere(from.predicate, qualifier: table, to: &part)
            parts.append(part.sql)
            result.append(bindingsOf: part)
        }
        let values = query.terms.enumerated().map { index, term in term.sql(over: "\"_c\(index)\"") }
        let union = "(\(parts.joined(separator: " UNION ALL ")))"
        var order = ""
        if !from.order.terms.isEmpty {
            let keys = from.order.terms.enumerated().map { index, term in
                "\"_o\(index)\"" + (term.collation.map { " COLLATE \($0)" } ?? "") + (term.ascending ? " ASC" : " DESC")
            }
            order = " ORDER BY " + keys.joined(separator: ", ")
        }
        if query.aggregatesLimitedRows {
            // The limit and offset choose the rows the aggregates read (see SQLQueryBuilder.select).
            result.sql = "SELECT * FROM \(union)" + order
            if let builder = branches.first?.builder { builder.appendLimit(from, to: &result) }
            result.sql = "SELECT \(values.joined(separator: ", ")) FROM (\(result.sql))"
            return result
        }
        result.sql = "SELECT \(values.joined(separator: ", ")) FROM \(union)"
        if !query.groups.isEmpty {
            result.sql += " GROUP BY " + query.groups.indices.map { "\"_g\($0)\"" }.joined(separator: ", ")
        }
        result.sql += order
        if let builder = branches.first?.builder { builder.appendLimit(from, to: &result) }
        return result
    }
}
