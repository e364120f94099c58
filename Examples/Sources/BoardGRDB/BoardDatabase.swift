public import GRDB

/// Opens the board's database: a `DatabasePool` (WAL) on a file, migrated to the current schema.
public enum BoardDatabase {
    /// Opens (creating if needed) and migrates the database at `path`.
    public static func open(path: String) throws -> DatabasePool {
        var configuration = Configuration()
        // Wait for a lock rather than fail at once (GRDB's default), as a server under load should:
        // a checkpoint or another process may hold one for a moment.
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try migrator.migrate(pool)
        return pool
    }

    /// The schema, one migration per version.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "owner") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull().unique()
                t.column("email", .text)
            }
            try db.create(table: "card") { t in
                t.primaryKey("id", .integer)
                t.column("title", .text).notNull()
                t.column("notes", .text)
                t.column("status", .text).notNull().indexed()
                t.column("priority", .integer).notNull().indexed()
                t.column("createdAt", .datetime).notNull()
                t.column("ownerID", .integer).indexed().references("owner", onDelete: .setNull)
            }
        }
        return migrator
    }
}
