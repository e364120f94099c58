/// Moving the links of to-many relationships whose storage changes, and numbering the positions of
/// sets that become ordered.
extension Migrator {
    /// Copies a relationship's links out of its source storage into a temporary table
    /// (`a` the owner's ID, `b` the related object's ID, `position`), before any table changes.
    func collectLinks(_ move: MigrationPlan.LinkMove, into name: String) throws(StrataError) {
        let links = "temp." + dialect.quote(name)
        try connection.execute(
            "CREATE TEMP TABLE \(dialect.quote(name)) (\"a\" INTEGER NOT NULL, \"b\" INTEGER NOT NULL, \"position\" INTEGER NOT NULL)")
        let select: String
        switch move.source.storage {
        case .foreignKey(let column, let position):
            let ordered = move.source.isOrdered ? position.map { "coalesce(\(dialect.quote($0)), 0)" } : nil
            select = "SELECT \(dialect.quote(column)), \"id\", \(ordered ?? "0") FROM \(dialect.quote(move.source.target)) "
                + "WHERE \(dialect.quote(column)) IS NOT NULL"
        case .joinTable(let table, let own, let other, let position):
            select = "SELECT \(dialect.quote(own)), \(dialect.quote(other)), "
                + "\(move.source.isOrdered ? dialect.quote(position) : "0") FROM \(dialect.quote(table))"
        }
        try connection.execute("INSERT INTO \(links) (\"a\", \"b\", \"position\") " + select)
    }

    /// Writes the links collected for a relationship into its destination storage, then drops them.
    /// A one-to-many relationship stored in a foreign key holds each object once: an object linked to
    /// several owners is refused, naming the objects.
    func writeLinks(_ move: MigrationPlan.LinkMove, from name: String, graph: SchemaGraph) throws(StrataError) {
        let links = "temp." + dialect.quote(name)
        switch move.destination.storage {
        case .joinTable(let table, let own, let other, let position):
            // The two sides of a many-to-many relationship share one join table: the second side's rows
            // meet the first's and only set their own position.
            try connection.execute(
                "INSERT INTO \(dialect.quote(table)) (\(dialect.quote(own)), \(dialect.quote(other)), \(dialect.quote(position))) "
                    + "SELECT \"a\", \"b\", \"position\" FROM \(links) WHERE true "
                    + "ON CONFLICT (\"source\", \"target\") DO UPDATE SET \(dialect.quote(position)) = excluded.\(dialect.quote(position))")
        case .foreignKey(let column, let position):
            let shared = try connection.makeStatement(
                "SELECT group_concat(\"b\", ', '), count(*) FROM (SELECT \"b\" FROM \(links) GROUP BY \"b\" "
                    + "HAVING count(*) > 1 ORDER BY \"b\" LIMIT 10)")
            if try shared.step(), case .text(let ids) = shared.value(at: 0) {
                let target = move.destination.target
                let property = graph.entities[target]?.fields.first { $0.column == column }?.property ?? column
                throw StrataError(
                    .invalidMigration,
                    "\(move.label) is now stored in \(target).\(property), which holds one \(move.destination.source) per "
                        + "\(target), but \(target) objects \(ids) are linked to several \(move.destination.source) objects. "
                        + "Keep one link per object before this step, or delete those objects with .deleteObjects.",
                    entity: move.destination.source, field: move.destination.property)
            }
            let target = dialect.quote(move.destination.target)
            var assignments = "\(dialect.quote(column)) = l.\"a\""
            if let position { assignments += ", \(dialect.quote(position)) = l.\"position\"" }
            try connection.execute("UPDATE \(target) SET \(assignments) FROM \(links) AS l WHERE \(target).\"id\" = l.\"b\"")
        }
        if move.destination.isOrdered && !move.source.isOrdered {
            try numberPositions(move.destination)
        }
        try connection.execute("DROP TABLE \(links)")
    }

    /// Gives every member of an ordered relationship that was a set its position, by related ID.
    func numberPositions(_ relationship: SchemaGraph.ToMany) throws(StrataError) {
        switch relationship.storage {
        case .foreignKey(let column, let position?):
            let table = dialect.quote(relationship.target)
            try connection.execute(
                "UPDATE \(table) SET \(dialect.quote(position)) = r.\"n\" FROM (SELECT \"id\" AS \"i\", "
                    + "row_number() OVER (PARTITION BY \(dialect.quote(column)) ORDER BY \"id\") - 1 AS \"n\" FROM \(table) "
                    + "WHERE \(dialect.quote(column)) IS NOT NULL) AS r WHERE \(table).\"id\" = r.\"i\"")
        case .joinTable(let name, let own, let other, let position):
            let table = dialect.quote(name)
            try connection.execute(
                "UPDATE \(table) SET \(dialect.quote(position)) = r.\"n\" FROM (SELECT \(dialect.quote(own)) AS \"o\", "
                    + "\(dialect.quote(other)) AS \"t\", row_number() OVER (PARTITION BY \(dialect.quote(own)) "
                    + "ORDER BY \(dialect.quote(other))) - 1 AS \"n\" FROM \(table)) AS r "
                    + "WHERE \(table).\(dialect.quote(own)) = r.\"o\" AND \(table).\(dialect.quote(other)) = r.\"t\"")
        case .foreignKey(_, nil):
            break
        }
    }
}
