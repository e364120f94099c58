/// The SQL of relationships: subqueries that read to-many IDs, derived values and counts, and the
/// `EXISTS` / `IN` tests of predicates over related objects. All are correlated to the outer table by
/// its qualifier; inner tables get aliases of their own, so an entity related to itself works too.
extension QueryBuilder {
    private func relationship(_ entity: String, _ index: Int) throws(StrataError) -> SchemaGraph.ToMany {
        guard let relationship = graph?.toMany(entity, index) else {
            throw StrataError(
                .invalidArgument, "The relationships of \(entity) are not known here; open a DataStack whose schema holds it.",
                entity: entity)
        }
        return relationship
    }

    /// `FROM ... WHERE` that lists the related rows of `outer`.`id`, with `alias` naming the target table
    /// (or the join table when `joinOnly`).
    private func relatedRows(
        _ relationship: SchemaGraph.ToMany, outer: String, alias: String, joinAlias: String, joinOnly: Bool = false
    ) -> (from: String, order: String?) {
        let target = qualified(relationship.target)
        let id = dialect.quote("id")
        switch relationship.storage {
        case .foreignKey(let column, let position):
            let order = position.map { "\(alias).\(dialect.quote($0)), \(alias).\(id)" }
            return ("\(target) AS \(alias) WHERE \(alias).\(dialect.quote(column)) = \(outer).\(id)", order)
        case .joinTable(let table, let own, let other, let position):
            let order = "\(joinAlias).\(dialect.quote(position)), \(joinAlias).\(dialect.quote(other))"
            if joinOnly {
                return ("\(qualified(table)) AS \(joinAlias) WHERE \(joinAlias).\(dialect.quote(own)) = \(outer).\(id)", order)
            }
            return (
                "\(qualified(table)) AS \(joinAlias) JOIN \(target) AS \(alias) ON \(alias).\(id) = "
                    + "\(joinAlias).\(dialect.quote(other)) WHERE \(joinAlias).\(dialect.quote(own)) = \(outer).\(id)",
                order)
        }
    }

    /// A JSON array of the related IDs, in the relationship's order.
    func toManyIDs(_ entity: String, _ index: Int, outer: String, into query: inout SQLQuery) throws(StrataError) -> String {
        let relationship = try relationship(entity, index)
        let alias = query.nextAlias()
        let joinAlias = query.nextAlias()
        let rows = relatedRows(relationship, outer: outer, alias: alias, joinAlias: joinAlias)
        let order = rows.order.map { " ORDER BY \($0)" } ?? ""
        return "(SELECT json_group_array(\"x\") FROM (SELECT \(alias).\(dialect.quote("id")) AS \"x\" FROM \(rows.from)\(order)))"
    }

    /// The number of related objects.
    func toManyCount(_ entity: String, _ index: Int, outer: String, into query: inout SQLQuery) throws(StrataError) -> String {
        let relationship = try relationship(entity, index)
        let alias = query.nextAlias()
        let joinAlias = query.nextAlias()
        let rows = relatedRows(relationship, outer: outer, alias: alias, joinAlias: joinAlias, joinOnly: true)
        return "(SELECT count(*) FROM \(rows.from))"
    }

    /// The value of a derived field.
    func derivedValue(_ entity: String, _ index: Int, outer: String, into query: inout SQLQuery) throws(StrataError) -> String {
        guard let description = graph?.entities[entity], index < description.derived.count,
            let relationshipIndex = description.toMany.firstIndex(where: { $0.property == description.derived[index].relationship })
        else {
            throw StrataError(
                .invalidArgument, "The derived fields of \(entity) are not known here; open a DataStack whose schema holds it.",
                entity: entity)
        }
        let derived = description.derived[index]
        if derived.function == .count {
            return try toManyCount(entity, relationshipIndex, outer: outer, into: &query)
        }
        let relationship = try relationship(entity, relationshipIndex)
        guard let attribute = graph?.entities[relationship.target]?.fields.first(where: { $0.property == derived.attribute }) else {
            throw StrataError(.invalidArgument, "\(entity).\(derived.property) has no attribute to compute.", entity: entity)
        }
        let alias = query.nextAlias()
        let joinAlias = query.nextAlias()
        let rows = relatedRows(relationship, outer: outer, alias: alias, joinAlias: joinAlias)
        let column = "\(alias).\(dialect.quote(attribute.column))"
        let value: String
        switch derived.function {
        case .count: value = "count(*)"
        case .sum: value = "coalesce(sum(\(column)), 0)"
        case .minimum: value = "min(\(column))"
        case .maximum: value = "max(\(column))"
        }
        return "(SELECT \(value) FROM \(rows.from))"
    }

    /// `outer.fk IN (SELECT id FROM target WHERE condition)`.
    func renderRelated(
        _ entity: String, _ field: Int, _ condition: SQLExpression, outer: String, into query: inout SQLQuery,
        depth: Int
    ) throws(StrataError) {
        guard let relationship = graph?.toOne[entity]?.first(where: { $0.fieldIndex == field }) else {
            throw StrataError(
                .invalidArgument, "The relationships of \(entity) are not known here; open a DataStack whose schema holds it.",
                entity: entity)
        }
        let alias = query.nextAlias()
        let id = dialect.quote("id")
        query.sql += "(\(outer).\(dialect.quote(relationship.column)) IN (SELECT \(alias).\(id) FROM "
            + "\(qualified(relationship.target)) AS \(alias) WHERE "
        try render(condition, qualifier: alias, into: &query, depth: depth)
        query.sql += "))"
    }

    /// `EXISTS (related rows AND condition)`, or for `all`, `NOT EXISTS (related rows AND NOT condition)`.
    func renderMembers(
        _ entity: String, _ index: Int, _ condition: SQLExpression, all: Bool, outer: String, into query: inout SQLQuery,
        depth: Int
    ) throws(StrataError) {
        let relationship = try relationship(entity, index)
        let alias = query.nextAlias()
        let joinAlias = query.nextAlias()
        let rows = relatedRows(relationship, outer: outer, alias: alias, joinAlias: joinAlias)
        query.sql += all ? "(NOT EXISTS (SELECT 1 FROM \(rows.from) AND NOT coalesce(" : "(EXISTS (SELECT 1 FROM \(rows.from) AND ("
        try render(condition, qualifier: alias, into: &query, depth: depth)
        query.sql += all ? ", 0)))" : ")))"
    }
}
