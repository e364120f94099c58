/// The DDL of a schema: tables, indexes and Strata's metadata table.
struct SchemaSQL {
    let dialect: any SQLDialect

    init(dialect: any SQLDialect = SQLiteDialect()) {
        self.dialect = dialect
    }

    static let metadataTable = "strata_metadata"

    var createMetadataTable: String {
        "CREATE TABLE IF NOT EXISTS \(dialect.quote(Self.metadataTable)) "
            + "(\(dialect.quote("key")) TEXT PRIMARY KEY NOT NULL, \(dialect.quote("value")) TEXT NOT NULL)"
    }

    /// The metadata key of an entity's ID mark: the largest ID it ever deleted.
    static func idMarkKey(_ entity: String) -> String { "id_mark:\(entity)" }

    /// Raises an ID mark (key, ID): it never goes down.
    var raiseIDMark: String { raiseIDMark(in: nil) }

    /// Raises an ID mark in the metadata of the store with this SQLite schema name (`nil`: main).
    func raiseIDMark(in schemaName: String?) -> String {
        let value = dialect.quote("value")
        return "INSERT INTO \(dialect.qualify(Self.metadataTable, in: schemaName)) (\(dialect.quote("key")), \(value)) VALUES (?, ?) "
            + "ON CONFLICT(\(dialect.quote("key"))) DO UPDATE SET \(value) = "
            + "max(CAST(\(value) AS INTEGER), CAST(excluded.\(value) AS INTEGER))"
    }

    /// Copies an ID mark (key: parameter 2) to another key (parameter 1), where a mark already there (of
    /// an entity deleted under that name) is raised, never lowered.
    var copyIDMark: String {
        let value = dialect.quote("value"), key = dialect.quote("key"), table = dialect.quote(Self.metadataTable)
        return "INSERT INTO \(table) (\(key), \(value)) SELECT ?, \(value) FROM \(table) WHERE \(key) = ? "
            + "ON CONFLICT(\(key)) DO UPDATE SET \(value) = max(CAST(\(value) AS INTEGER), CAST(excluded.\(value) AS INTEGER))"
    }

    /// The largest ID an entity ever used: its table's largest, its ID mark (parameter 1), and, with
    /// `sequence`, `sqlite_sequence` (parameter 2) for a table made with `AUTOINCREMENT`.
    func largestUsedID(_ entity: String, sequence: Bool, in schemaName: String? = nil) -> String {
        var sources = [
            "coalesce((SELECT max(\(dialect.quote("id"))) FROM \(dialect.qualify(entity, in: schemaName))), 0)",
            "coalesce((SELECT CAST(\(dialect.quote("value")) AS INTEGER) FROM \(dialect.qualify(Self.metadataTable, in: schemaName)) "
                + "WHERE \(dialect.quote("key")) = ?1), 0)",
        ]
        if sequence { sources.append("coalesce((SELECT seq FROM \(dialect.qualify("sqlite_sequence", in: schemaName)) WHERE name = ?2), 0)") }
        return "SELECT max(\(sources.joined(separator: ", ")))"
    }

    /// `CREATE TABLE` and `CREATE INDEX` statements of one entity: its fields, foreign keys of to-one
    /// relationships (always indexed), and hidden position columns of ordered relationships.
    func create(_ entity: EntityDescription, graph: SchemaGraph) -> [String] {
        [createTable(entity, graph: graph, named: entity.name)] + indexes(entity, graph: graph).map(\.statement)
    }

    /// The `CREATE TABLE` statement of an entity's table, under `table` (its name, or a temporary one
    /// while a migration rebuilds it).
    func createTable(_ entity: EntityDescription, graph: SchemaGraph, named table: String) -> String {
        let columns = [dialect.primaryKeyDeclaration] + columnDefinitions(entity, graph: graph).map(\.definition)
        return "CREATE TABLE \(dialect.quote(table)) (\(columns.joined(separator: ", ")))"
    }

    /// The column definitions of an entity's table after the ID, by column name: fields, then hidden
    /// position columns. `referenced` maps the name of a table a foreign key points to (a migration
    /// compares an old version's definitions under the new version's names).
    func columnDefinitions(
        _ entity: EntityDescription, graph: SchemaGraph, referenced: (String) -> String = { $0 }
    ) -> [(column: String, definition: String)] {
        var columns: [(column: String, definition: String)] = []
        for field in entity.fields {
            let type = dialect.columnType(field.storageClass)
            var column = dialect.quote(field.column) + (type.isEmpty ? "" : " " + type)
            if !field.isOptional { column += " NOT NULL" }
            if field.isUnique { column += " UNIQUE" }
            if let toOne = graph.toOne[entity.name]?.first(where: { $0.column == field.column }) {
                column += " REFERENCES \(dialect.quote(referenced(toOne.target))) (\(dialect.quote("id")))"
            }
            columns.append((field.column, column))
        }
        for hidden in graph.positionColumns[entity.name] ?? [] {
            columns.append((hidden, "\(dialect.quote(hidden)) INTEGER"))
        }
        return columns
    }

    /// The indexes of an entity's table, by name: indexed fields and foreign keys that are not unique
    /// (a unique column has SQLite's own index), then the unique constraints and indexes over several
    /// fields (``uniqueIndexes(_:)``; an index `<entity>_<column>_<column>_index`). The foreign key of an ordered to-many's members is
    /// indexed with their position, so that appending one (which reads the largest position among
    /// the owner's members) takes one index lookup, not a scan of the owner's members.
    func indexes(_ entity: EntityDescription, graph: SchemaGraph) -> [(name: String, statement: String)] {
        var indexes: [(name: String, statement: String)] = []
        let table = dialect.quote(entity.name)
        for field in entity.fields where !field.isUnique {
            let isForeignKey = graph.toOne[entity.name]?.contains { $0.column == field.column } ?? false
            guard isForeignKey || field.isIndexed else { continue }
            let position = field.column + SchemaGraph.positionSuffix
            if isForeignKey, graph.positionColumns[entity.name]?.contains(position) == true {
                let index = "\(entity.name)_\(position)_index"
                indexes.append((index,
                    "CREATE INDEX \(dialect.quote(index)) ON \(table) (\(dialect.quote(field.column)), \(dialect.quote(position)))"))
            } else {
                let index = "\(entity.name)_\(field.column)_index"
                indexes.append((index, "CREATE INDEX \(dialect.quote(index)) ON \(table) (\(dialect.quote(field.column)))"))
            }
        }
        for constraint in uniqueIndexes(entity) {
            indexes.append((constraint.name, constraint.statement))
        }
        for fields in entity.indexes {
            let columns = entity.columns(of: fields)
            let index = "\(entity.name)_\(columns.joined(separator: "_"))_index"
            indexes.append((index,
                "CREATE INDEX \(dialect.quote(index)) ON \(table) (\(columns.map(dialect.quote).joined(separator: ", ")))"))
        }
        return indexes
    }

    /// The unique indexes of an entity's unique constraints over several fields (``EntityDescription/uniqueConstraints``),
    /// named `<entity>_<column>_<column>_unique`, with the properties and columns of each.
    func uniqueIndexes(_ entity: EntityDescription) -> [(name: String, statement: String, properties: [String], columns: [String])] {
        entity.uniqueConstraints.map { fields in
            let columns = entity.columns(of: fields)
            let index = "\(entity.name)_\(columns.joined(separator: "_"))_unique"
            let statement = "CREATE UNIQUE INDEX \(dialect.quote(index)) ON \(dialect.quote(entity.name)) "
                + "(\(columns.map(dialect.quote).joined(separator: ", ")))"
            return (index, statement, fields, columns)
        }
    }

    /// The index an older version of Strata made where ``indexes(_:graph:)`` now makes `name` (the
    /// foreign key alone, before it was indexed with its position), or nil.
    func supersededIndex(_ name: String) -> String? {
        let suffix = SchemaGraph.positionSuffix + "_index"
        guard name.hasSuffix(suffix) else { return nil }
        return String(name.dropLast(suffix.count)) + "_index"
    }

    /// `CREATE TABLE` and indexes of a join table of a to-many relationship.
    func create(_ join: SchemaGraph.JoinTable) -> [String] {
        [createTable(join)] + joinIndexes(join).map(\.statement)
    }

    /// The `CREATE TABLE` statement of a join table.
    func createTable(_ join: SchemaGraph.JoinTable) -> String {
        let id = dialect.quote("id")
        return "CREATE TABLE \(dialect.quote(join.name)) ("
            + "\"source\" INTEGER NOT NULL REFERENCES \(dialect.quote(join.ownerTable)) (\(id)) ON DELETE CASCADE, "
            + "\"target\" INTEGER NOT NULL REFERENCES \(dialect.quote(join.otherTable)) (\(id)) ON DELETE CASCADE, "
            + "\"source_position\" INTEGER NOT NULL DEFAULT 0, \"target_position\" INTEGER NOT NULL DEFAULT 0, "
            + "PRIMARY KEY (\"source\", \"target\")) WITHOUT ROWID"
    }

    /// The indexes of a join table, by name: the links of an object seen from the other side, and for
    /// each ordered side its links by position, so that reading a list in order and putting a link last
    /// (the largest position plus one) read only an index's last entry, not every link of the object.
    func joinIndexes(_ join: SchemaGraph.JoinTable) -> [(name: String, statement: String)] {
        let table = dialect.quote(join.name)
        var indexes: [(name: String, statement: String)] = []
        let target = join.name + "_target_index"
        indexes.append((target, "CREATE INDEX \(dialect.quote(target)) ON \(table) (\"target\", \"source\")"))
        for (side, isOrdered) in [("source", join.sourceIsOrdered), ("target", join.targetIsOrdered)] where isOrdered {
            let name = "\(join.name)_\(side)_position_index"
            indexes.append((name, "CREATE INDEX \(dialect.quote(name)) ON \(table) (\"\(side)\", \"\(side)_position\")"))
        }
        return indexes
    }
}
