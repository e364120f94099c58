/// Creates a new store's tables, or checks that an existing store matches the schema.
enum SchemaSetup {
    /// Returns the store's tag (made when the store is, or the first time a store made before tags is
    /// opened), which the IDs it hands out carry.
    @discardableResult
    static func prepare(_ connection: Connection, schema: Schema) throws(StrataError) -> UInt32 {
        let sql = SchemaSQL()
        try connection.execute("BEGIN IMMEDIATE")
        do throws(StrataError) {
            let tables = try userTables(connection)
            if tables.contains(SchemaSQL.metadataTable) {
                try check(connection, schema: schema)
            } else if tables.isEmpty {
                let graph = try SchemaGraph(schema: schema)
                try connection.execute(sql.createMetadataTable)
                for entity in schema.entities {
                    for statement in sql.create(entity, graph: graph) {
                        try connection.execute(statement)
                    }
                }
                for join in graph.joinTables {
                    for statement in sql.create(join) {
                        try connection.execute(statement)
                    }
                }
                let insert = "INSERT INTO \(SchemaSQL.metadataTable) (key, value) VALUES (?, ?)"
                try connection.execute(insert, [.text("schema_version"), .text(schema.version)])
                try connection.execute(insert, [.text("schema_hash"), .text(schema.versionHash)])
            } else {
                throw foreignDatabase(connection.path, tables: tables)
            }
            let tag = try storeTag(connection)
            try connection.execute("COMMIT")
            connection.storeTag = tag
            return tag
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Refuses a database that holds tables but not Strata's metadata: another app's, which Strata leaves
    /// as it found it. An empty database, or a store Strata made, passes. Reads only.
    static func checkMadeByStrata(_ connection: Connection) throws(StrataError) {
        let tables = try userTables(connection)
        guard !tables.isEmpty, !tables.contains(SchemaSQL.metadataTable) else { return }
        throw foreignDatabase(connection.path, tables: tables)
    }

    private static func foreignDatabase(_ path: String, tables: Set<String>) -> StrataError {
        StrataError(
            .schemaMismatch,
            "The database at \(path) already holds tables (\(tables.sorted().joined(separator: ", "))) that Strata "
                + "did not create; Strata opens only stores it made. The file was not changed. Use a new file.")
    }

    /// The store's tag, from its metadata; a new random one (never 0) when it has none yet.
    private static func storeTag(_ connection: Connection) throws(StrataError) -> UInt32 {
        let statement = try connection.makeStatement("SELECT value FROM \(SchemaSQL.metadataTable) WHERE key = 'store_tag'")
        if try statement.step(), case .text(let text) = statement.value(at: 0), let tag = UInt32(text), tag != 0 {
            return tag
        }
        let tag = UInt32.random(in: 1...UInt32.max)
        try connection.execute(
            "INSERT OR REPLACE INTO \(SchemaSQL.metadataTable) (key, value) VALUES ('store_tag', ?)", [.text(String(tag))])
        return tag
    }

    private static func userTables(_ connection: Connection) throws(StrataError) -> Set<String> {
        let statement = try connection.makeStatement(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
        var names: Set<String> = []
        while try statement.step() {
            if case .text(let name) = statement.value(at: 0) { names.insert(name) }
        }
        return names
    }

    /// Strata's metadata table, by key.
    static func metadata(_ connection: Connection) throws(StrataError) -> [String: String] {
        let statement = try connection.makeStatement("SELECT key, value FROM \(SchemaSQL.metadataTable)")
        var metadata: [String: String] = [:]
        while try statement.step() {
            if case .text(let key) = statement.value(at: 0), case .text(let value) = statement.value(at: 1) {
                metadata[key] = value
            }
        }
        return metadata
    }

    private static func check(_ connection: Connection, schema: Schema) throws(StrataError) {
        let metadata = try metadata(connection)
        let version = metadata["schema_version"] ?? "?"
        guard version == schema.version else {
            throw StrataError(
                .schemaMismatch,
                "The store at \(connection.path) is at schema version \(version), but the stack declares version "
                    + "\(schema.version). If \(version) is an earlier version of this app, open the store with a "
                    + "SchemaHistory that declares \(version) and its chain to \(schema.version); if a newer version of "
                    + "the app made it, this one cannot open it. For a cache, SQLiteStore(...).recreatingOnSchemaMismatch() "
                    + "makes it anew. The file was not changed.")
        }
        if metadata["schema_hash"] == schema.legacyVersionHash, schema.legacyVersionHash != schema.versionHash {
            // A store made before the lock ignored declaration order, with this very schema.
            try connection.execute(
                "UPDATE \(SchemaSQL.metadataTable) SET value = ? WHERE key = 'schema_hash'", [.text(schema.versionHash)])
        } else if metadata["schema_hash"] != schema.versionHash {
            throw editedSchema(connection, schema: schema)
        }
        try addMissingIndexes(connection, schema: schema)
    }

    /// The refusal of a store made with `schema`'s version before that version was edited (its stored
    /// hash is not the schema's): what opening it throws, and its forecast too.
    static func editedSchema(_ connection: Connection, schema: Schema) -> StrataError {
        StrataError(
            .schemaMismatch,
            "Schema \(schema.version) changed since the store at \(connection.path) was made with it: "
                + "\(differences(connection, schema: schema)). Declare the change as a new schema version instead of "
                + "editing \(schema.version).")
    }

    /// Makes the indexes a store lacks because an older version of Strata made it (an index changes
    /// no data, so it comes without a new schema version), and drops the ones they replace. One read
    /// of the schema table when nothing is missing.
    /// Makes the join tables of `schema` that the store lacks, empty, with their indexes: an older
    /// version of Strata took a one-way to-many for the inverse of another entity's to-one, and stored
    /// it in that to-one's column. Opening a store and migrating one both begin with it.
    static func addMissingJoinTables(_ connection: Connection, schema: Schema) throws(StrataError) {
        try addMissingJoinTables(connection, graph: SchemaGraph(schema: schema))
    }

    private static func addMissingJoinTables(_ connection: Connection, graph: SchemaGraph) throws(StrataError) {
        let tables = try userTables(connection)
        let sql = SchemaSQL()
        for join in graph.joinTables where !tables.contains(join.name) {
            for statement in sql.create(join) { try connection.execute(statement) }
        }
    }

    private static func addMissingIndexes(_ connection: Connection, schema: Schema) throws(StrataError) {
        let sql = SchemaSQL()
        let graph = try SchemaGraph(schema: schema)
        try addMissingJoinTables(connection, graph: graph)
        let statement = try connection.makeStatement(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")
        var existing: Set<String> = []
        while try statement.step() {
            if case .text(let name) = statement.value(at: 0) { existing.insert(name) }
        }
        statement.reset()
        for entity in schema.entities {
            let wanted = sql.indexes(entity, graph: graph)
            for index in wanted where !existing.contains(index.name) {
                if let old = sql.supersededIndex(index.name), existing.contains(old), !wanted.contains(where: { $0.name == old }) {
                    try connection.execute("DROP INDEX \(sql.dialect.quote(old))")
                }
                try connection.execute(index.statement)
            }
        }
        for join in graph.joinTables {
            for index in sql.joinIndexes(join) where !existing.contains(index.name) {
                try connection.execute(index.statement)
            }
        }
    }

    /// What differs between the store's tables and `schema`, for a message: entities without a table,
    /// columns one side lacks, indexes one side lacks (a unique constraint or an index over several fields
    /// added or removed), tables of entities the schema lacks; when all of these match, that a field's
    /// type or an option differs.
    static func differences(_ connection: Connection, schema: Schema) -> String {
        guard let graph = try? SchemaGraph(schema: schema), let tables = try? userTables(connection) else {
            return "its entities, fields or options differ"
        }
        let sql = SchemaSQL()
        var found: [String] = []
        for entity in schema.entities {
            guard tables.contains(entity.name) else {
                found.append("the store has no table for \(entity.name)")
                continue
            }
            let expected = ["id"] + sql.columnDefinitions(entity, graph: graph).map(\.column)
            let stored = columns(connection, table: entity.name)
            let missing = expected.filter { !stored.contains($0) }
            let extra = stored.filter { !expected.contains($0) }
            if !missing.isEmpty { found.append("\(entity.name)'s table lacks \(missing.joined(separator: ", "))") }
            if !extra.isEmpty { found.append("\(entity.name)'s table has \(extra.joined(separator: ", ")), which the schema lacks") }
            if missing.isEmpty && extra.isEmpty { found += indexDifferences(connection, entity: entity, graph: graph) }
        }
        let known = Set(schema.entities.map(\.name) + graph.joinTables.map(\.name))
        let others = tables.filter { !known.contains($0) && !$0.hasPrefix("strata_") }.sorted()
        if !others.isEmpty { found.append("the store has tables the schema lacks (\(others.joined(separator: ", ")))") }
        guard found.isEmpty else { return found.joined(separator: "; ") }
        return "the tables have the columns the schema declares, so a field's type, optionality, uniqueness, index, "
            + "default or relationship differs"
    }

    /// The indexes an entity's table lacks or has beyond the schema's (a unique constraint or an index
    /// over several fields added or removed), for a message.
    private static func indexDifferences(_ connection: Connection, entity: EntityDescription, graph: SchemaGraph) -> [String] {
        let sql = SchemaSQL()
        let wanted = sql.indexes(entity, graph: graph).map(\.name)
        guard let statement = try? connection.makeStatement(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name")
        else { return [] }
        try? statement.bind(.text(entity.name), at: 1)
        var stored: [String] = []
        while (try? statement.step()) == true {
            if case .text(let name) = statement.value(at: 0) { stored.append(name) }
        }
        let missing = wanted.filter { !stored.contains($0) && !stored.contains(sql.supersededIndex($0) ?? $0) }
        let extra = stored.filter { name in !wanted.contains(name) && !wanted.contains { sql.supersededIndex($0) == name } }
        var found: [String] = []
        if !missing.isEmpty { found.append("\(entity.name)'s table lacks the index(es) \(missing.joined(separator: ", "))") }
        if !extra.isEmpty { found.append("\(entity.name)'s table has the index(es) \(extra.joined(separator: ", ")), which the schema lacks") }
        return found
    }

    /// The column names of a table, in order.
    private static func columns(_ connection: Connection, table: String) -> [String] {
        guard let statement = try? connection.makeStatement("SELECT name FROM pragma_table_info(?)") else { return [] }
        try? statement.bind(.text(table), at: 1)
        var names: [String] = []
        while (try? statement.step()) == true {
            if case .text(let name) = statement.value(at: 0) { names.append(name) }
        }
        return names
    }
}
