/// Running a step's free-form changes.
extension Migrator {
    /// Runs the step's `custom` changes with a transaction of the destination version, then drops the
    /// copies of the source tables they read.
    func runCustoms(_ plan: MigrationPlan) throws {
        let store = try StoreContext(schema: plan.destination)
        let ids = IDAllocator()
        let transaction = Transaction(connection: connection, store: store, ids: ids)
        let migration = MigrationTransaction(
            source: plan.source, destination: plan.destination.version, connection: connection, transaction: transaction)
        defer {
            transaction.isOpen = false
            connection.dropKeyedStatements()
        }
        for body in plan.customs {
            do {
                try body(migration)
            } catch let error as StrataError {
                throw error
            } catch {
                throw MigrationError(entity: nil, objectID: nil, underlying: error)
            }
        }
        // An error after which SQLite rolled the migration back, or a cancel(), whose error the step
        // caught: the migration stops.
        if let lost = connection.lostWrite { throw lost }
        if let broken = transaction.broken { throw broken }
        try ids.saveMarks(connection)
        transaction.isOpen = false
        for entity in plan.source.entities {
            try connection.execute("DROP TABLE temp.\(dialect.quote(MigrationTransaction.sourceTable(entity.name)))")
        }
    }
}
