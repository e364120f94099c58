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
    var raiseIDMark: String {
        let value = dialect.quote("value")
        return "INSERT INTO \(dialect.quote(Self.metadataTable)) (\(dialect.quote("key")), \(value)) VALUES (?, ?) "
            + "ON CONFLICT(\(dialect.quote("key"))) DO UPDATE SET \(value) = "
            + "max(CAST(\(value) AS INTEGER), CAST(excluded.\(value) AS INTEGER))"
    }

    /// The largest ID an entity ever used: its table's largest, its ID mark (parameter 1), and, with
    /// `sequence`, `sqlite_sequence` (parameter 2) for a table made with `AUTOINCREMENT`.
    func largestUsedID(_ entity: String, sequence: Bool) -> String {
        var sources = [
            "coalesce((SELECT max(\(dialect.quote("id"))) FROM \(dialect.quote(entity))), 0)",
            "coalesce((SELECT CAST(\(dialect.quote("value")) AS INTEGER) FROM \(dialect.quote(Self.metadataTable)) "
                + "WHERE \(dialect.quote("key")) = ?1), 0)",
        ]
        if sequence { sources.append("coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?2), 0)") }
        return "SELECT max(\(sources.joined(separator: ", ")))"
    }

    /// `CREATE TABLE` and `CREATE INDEX` statements of one entity: its fields, foreign keys of to-one
    /// relationships (always indexed), and hidden position columns of ordered relationships.
    func create(_ entity: EntityDescription, graph: SchemaGraph) -> [String] {
        var columns = [dialect.primaryKeyDeclaration]
        var indexes: [String] = []
        for field in entity.fields {
            let type = dialect.columnType(field.storageClass)
            var column = dialect.quote(field.column) + (type.isEmpty ? "" : " " + type)
            if !field.isOptional { column += " NOT NULL" }
            if field.isUnique { column += " UNIQUE" }
            if let toOne = graph.toOne[entity.name]?.first(where: { $0.column == field.column }) {
                column += " REFERENCES \(dialect.quote(toOne.target)) (\(dialect.quote("id")))"
                if !field.isUnique { indexes.append(field.column) }
            } else if field.isIndexed && !field.isUnique {
                indexes.append(field.column)
            }
            columns.append(column)
        }
        for hidden in graph.positionColumns[entity.name] ?? [] {
            columns.append("\(dialect.quote(hidden)) INTEGER")
        }
        var statements = ["CREATE TABLE \(dialect.quote(entity.name)) (\(columns.joined(separator: ", ")))"]
        for column in indexes {
            let index = "\(entity.name)_\(column)_index"
            statements.append(
                "CREATE INDEX \(dialect.quote(index)) ON \(dialect.quote(entity.name)) (\(dialect.quote(column)))")
        }
        return statements
    }

    /// `CREATE TABLE` and index of a join table of a to-many relationship.
    func create(_ join: SchemaGraph.JoinTable) -> [String] {
        let id = dialect.quote("id")
        let table = dialect.quote(join.name)
        return [
            "CREATE TABLE \(table) ("
                + "\"source\" INTEGER NOT NULL REFERENCES \(dialect.quote(join.ownerTable)) (\(id)) ON DELETE CASCADE, "
                + "\"target\" INTEGER NOT NULL REFERENCES \(dialect.quote(join.otherTable)) (\(id)) ON DELETE CASCADE, "
                + "\"source_position\" INTEGER NOT NULL DEFAULT 0, \"target_position\" INTEGER NOT NULL DEFAULT 0, "
                + "PRIMARY KEY (\"source\", \"target\")) WITHOUT ROWID",
            "CREATE INDEX \(dialect.quote(join.name + "_target_index")) ON \(table) (\"target\", \"source\")",
        ]
    }
}
