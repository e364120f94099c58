/// Dropping the entities a step deletes (`.deleteEntity`), as deleting their objects would: links to
/// them are cleared, and their IDs are never used again.
extension Migrator {
    /// Clears the to-one relationships of the entities the step keeps that point at an entity it
    /// deletes: once the table is dropped, they would point at nothing, or, when the step (or a later
    /// version) declares the entity again, at an unrelated new object. Run after the copies a custom
    /// change reads (which keep the old values) and before any table is renamed or rebuilt.
    func clearLinksToDeletedEntities(_ plan: MigrationPlan) throws(StrataError) {
        let deleted = Set(plan.tables.filter { $0.action == .delete }.compactMap(\.source?.name))
        guard !deleted.isEmpty else { return }
        for (owner, toOnes) in plan.sourceGraph.toOne.sorted(by: { $0.key < $1.key }) where !deleted.contains(owner) {
            for toOne in toOnes where deleted.contains(toOne.target) {
                let column = dialect.quote(toOne.column)
                try connection.execute("UPDATE \(dialect.quote(owner)) SET \(column) = NULL WHERE \(column) IS NOT NULL")
            }
        }
    }

    /// Drops a deleted entity's table, first raising its ID mark to the largest ID it used (its table's,
    /// or `sqlite_sequence`'s for a table made with `AUTOINCREMENT`): objects of an entity of that name,
    /// made in this step or in a later version, never take the ID of a deleted one.
    func dropDeletedEntity(_ entity: String) throws(StrataError) {
        let hasSequence = try count("SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_sequence'") > 0
        let largest = try connection.makeStatement(sql.largestUsedID(entity, sequence: hasSequence))
        try largest.bind([.text(SchemaSQL.idMarkKey(entity))] + (hasSequence ? [.text(entity)] : []))
        if try largest.step(), case .integer(let id) = largest.value(at: 0), id > 0 {
            largest.reset()
            try connection.execute(sql.raiseIDMark, [.text(SchemaSQL.idMarkKey(entity)), .text(String(id))])
        }
        largest.reset()
        try connection.execute("DROP TABLE \(dialect.quote(entity))")
    }
}
