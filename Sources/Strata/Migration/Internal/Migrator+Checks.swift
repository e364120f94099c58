/// What a migration refuses before it copies anything, and what it checks before it commits.
extension Migrator {

    /// The SQL expression of a destination column over the source table, and the values it binds.
    func expression(_ source: MigrationPlan.ColumnSource) -> (sql: String, values: [DatabaseValue]) {
        switch source {
        case .value(let value):
            return ("?", [value])
        case .perRow(let make):
            return (connection.initialValueFunction().call(make), [])
        case .column(let column, let convert, let fill, _):
            var expression = dialect.quote(column)
            switch convert {
            case .cast(let type)?:
                expression = "CAST(\(expression) AS \(type))"
            case .boolText?:
                expression = "CASE \(expression) WHEN 0 THEN 'false' WHEN 1 THEN 'true' ELSE CAST(\(expression) AS TEXT) END"
            case .realText(let float)?:
                expression = "\(connection.realTextFunction())(\(expression), \(float ? 1 : 0))"
            case nil:
                break
            }
            if let fill { return ("coalesce(\(expression), ?)", [fill]) }
            return (expression, [])
        }
    }

    /// The expressions of every destination column of a rebuilt table, in order, and their bound values.
    func expressions(_ table: MigrationPlan.Table) -> (sql: [String], values: [DatabaseValue]) {
        var expressions: [String] = []
        var values: [DatabaseValue] = []
        for (_, origin) in table.columns {
            let (expression, bound) = expression(origin)
            expressions.append(expression)
            values += bound
        }
        return (expressions, values)
    }

    /// Refuses, before anything is copied or altered, a change of type that would change stored values or
    /// leave some the new type cannot read (``MigrationPlan/Exactness``), of a rebuilt table or one kept.
    func checkExactness(_ table: MigrationPlan.Table) throws(StrataError) {
        guard let source = table.source, let destination = table.destination else { return }
        let from = dialect.quote(source.name)
        for exactness in table.exactness {
            let count = try count("SELECT count(*) FROM \(from) WHERE \(exactness.condition)")
            guard count == 0 else {
                throw StrataError(
                    .invalidMigration,
                    "\(destination.name).\(exactness.property) changes type, but \(count) object(s) \(exactness.reason). "
                        + "Convert the field in a .transform of \(destination.name), or change those values first.",
                    entity: destination.name, field: exactness.property)
            }
        }
    }

    /// Refuses, before anything is copied, what the destination's constraints would refuse: `nil`s of a
    /// field that becomes required without a fill, and duplicates of a field that becomes unique.
    func check(_ table: MigrationPlan.Table) throws(StrataError) {
        guard let source = table.source, let destination = table.destination else { return }
        let from = dialect.quote(source.name)
        for (column, origin) in table.columns {
            guard case .column(let old, _, nil, true) = origin, table.action == .rebuild else { continue }
            let nulls = try count("SELECT count(*) FROM \(from) WHERE \(dialect.quote(old)) IS NULL")
            guard nulls == 0 else {
                let property = destination.field(forColumn: column)?.property ?? column
                throw StrataError(
                    .invalidMigration,
                    "\(destination.name).\(property) becomes required, but \(nulls) object(s) have no value. Declare "
                        + ".fill(\"\(destination.name)\", \"\(property)\", with: ...) in the step to give them one.",
                    entity: destination.name, field: property)
            }
        }
        // A transform sets the values itself (making them unique is what it is for): its rows are
        // checked as they are written (`transform(_:from:reading:to:onRows:)`).
        for column in table.newlyUnique where table.action != .transform {
            guard let origin = table.columns.first(where: { $0.column == column })?.source else { continue }
            let (expression, values) = expression(origin)
            let statement = try connection.makeStatement(
                "SELECT group_concat(\"id\", ', ') FROM (SELECT \"id\" FROM \(from) WHERE (\(expression)) IN "
                    + "(SELECT (\(expression)) FROM \(from) WHERE (\(expression)) IS NOT NULL GROUP BY 1 HAVING count(*) > 1) "
                    + "ORDER BY \"id\" LIMIT 10)")
            try statement.bind(values + values + values)
            if try statement.step(), case .text(let ids) = statement.value(at: 0) {
                let property = destination.field(forColumn: column)?.property ?? column
                throw StrataError(
                    .invalidMigration,
                    "\(destination.name).\(property) becomes unique, but objects share values (IDs \(ids)"
                        + "\(ids.split(separator: ",").count == 10 ? ", …" : "")). Make the values unique in a .transform "
                        + "or an earlier step, or delete the duplicates with .deleteObjects.",
                    entity: destination.name, field: property)
            }
        }
    }

    /// A unique constraint over several fields a migration is about to create: the entity, and the
    /// properties and columns of the constraint, in order.
    typealias UniqueCheck = (entity: String, properties: [String], columns: [String])

    /// Refuses a unique constraint over several fields (a new ``Unique(_:)``, or one of a rebuilt table)
    /// that the table's objects break, naming the IDs of up to ten of them, before its index is made. Rows
    /// with a `nil` in any of the fields never conflict (SQLite's rule for unique indexes).
    func checkUnique(_ check: UniqueCheck) throws(StrataError) {
        let table = dialect.quote(check.entity)
        let columns = check.columns.map(dialect.quote).joined(separator: ", ")
        let notNull = check.columns.map { "\(dialect.quote($0)) IS NOT NULL" }.joined(separator: " AND ")
        let statement = try connection.makeStatement(
            "SELECT group_concat(\"id\", ', ') FROM (SELECT \"id\" FROM \(table) WHERE (\(columns)) IN "
                + "(SELECT \(columns) FROM \(table) WHERE \(notNull) GROUP BY \(columns) HAVING count(*) > 1) "
                + "ORDER BY \"id\" LIMIT 10)")
        guard try statement.step(), case .text(let ids) = statement.value(at: 0) else { return }
        let fields = check.properties.spokenList
        throw StrataError(
            .invalidMigration,
            "\(check.entity) gets a unique constraint over \(fields), but objects share values of all of them (IDs \(ids)"
                + "\(ids.split(separator: ",").count == 10 ? ", …" : "")). Make the values unique in a .transform or an "
                + "earlier step, or delete the duplicates with .deleteObjects; nothing was changed.",
            entity: check.entity, field: check.properties.first
        ).naming(fields: check.properties)
    }

    /// `PRAGMA foreign_key_check`: any row pointing at an object that does not exist fails the migration,
    /// naming the object and the relationship (read through `graph`, the destination version's).
    func checkForeignKeys(_ graph: SchemaGraph?) throws(StrataError) {
        let statement = try connection.makeStatement("PRAGMA foreign_key_check")
        guard try statement.step(), case .text(let table) = statement.value(at: 0) else { return }
        let rowID = statement.value(at: 1)
        let parent: String
        if case .text(let name) = statement.value(at: 2) { parent = name } else { parent = "?" }
        let foreignKey = statement.value(at: 3)
        statement.reset()
        let columns = try connection.makeStatement("SELECT \"from\" FROM pragma_foreign_key_list(?) WHERE id = ?")
        try columns.bind([.text(table), foreignKey])
        var column: String?
        if try columns.step(), case .text(let name) = columns.value(at: 0) { column = name }
        columns.reset()
        var entity = table
        var field = column
        let what: String
        if let description = graph?.entities[table] {
            field = column.flatMap { description.field(forColumn: $0)?.property } ?? column
            what = "\(table) object \(rowID) has \(field ?? "a relationship") pointing at a \(parent) object that does not exist"
        } else if let (owner, relationship) = graph.flatMap({ Self.relationship(storedIn: table, graph: $0) }) {
            entity = owner
            field = relationship
            what = "\(owner).\(relationship) links an object to a \(parent) object that does not exist"
        } else {
            what = "\(table) holds a relationship to \(parent) objects that do not exist"
        }
        throw StrataError(
            .constraint,
            "After the migration, \(what). Check the step's transforms, deletions and custom changes; nothing was changed.",
            sqliteCode: 19, extendedCode: 787, entity: entity, field: field)
    }

    /// The entity and to-many relationship whose links a join table holds: the owner's (the other side,
    /// the inverse, stores its links in the same table).
    private static func relationship(storedIn table: String, graph: SchemaGraph) -> (String, String)? {
        guard let owner = graph.joinTables.first(where: { $0.name == table })?.ownerTable else { return nil }
        for relationship in graph.toMany[owner] ?? [] {
            if case .joinTable(let name, _, _, _) = relationship.storage, name == table { return (owner, relationship.property) }
        }
        return nil
    }
}
