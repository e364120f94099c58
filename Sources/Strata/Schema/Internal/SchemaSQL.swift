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

    /// `CREATE TABLE` and `CREATE INDEX` statements of one entity.
    func create(_ entity: EntityDescription) -> [String] {
        var columns = [dialect.primaryKeyDeclaration]
        for field in entity.fields {
            var column = "\(dialect.quote(field.column)) \(dialect.columnType(field.storageClass))"
            if !field.isOptional { column += " NOT NULL" }
            if field.isUnique { column += " UNIQUE" }
            columns.append(column)
        }
        var statements = ["CREATE TABLE \(dialect.quote(entity.name)) (\(columns.joined(separator: ", ")))"]
        for field in entity.fields where field.isIndexed && !field.isUnique {
            let index = "\(entity.name)_\(field.column)_index"
            statements.append(
                "CREATE INDEX \(dialect.quote(index)) ON \(dialect.quote(entity.name)) (\(dialect.quote(field.column)))")
        }
        return statements
    }
}
