/// What a step does to the fields and relationships of an entity it keeps: those it removes with their
/// values, adds and renames, for the forecast (``MigrationForecast/EntityChange``).
extension MigrationPlan {
    /// The fields and to-many relationships of one entity the step removes, adds and renames, by
    /// property name: removed ones as the source version names them, added ones as the destination does.
    struct FieldChanges {
        /// Stored fields (attributes, coded values, to-one relationships) whose column the step drops,
        /// and to-many relationships whose links it drops (a to-many stored through the foreign key of a
        /// to-one the step keeps loses nothing, nor does one whose links move to another storage).
        var removed: [String] = []
        /// Fields and relationships with no counterpart in the source version.
        var added: [String] = []
        /// Fields and relationships renamed (declared in the step or with `renamedFrom:`), old and new names.
        var renamed: [(old: String, new: String)] = []
    }

    /// Adds the to-many relationships each kept entity removes, adds and renames to its table's
    /// ``FieldChanges``, once the join tables and link moves are planned (`fieldRenames`: destination
    /// entity: destination property → source property).
    mutating func noteToManyChanges(fieldRenames: [String: [String: String]]) {
        let moved = Set(linkMoves.compactMap { move -> String? in
            if case .joinTable(let table, _, _, _) = move.source.storage { return table }
            return nil
        })
        let dropped = Set(joins.compactMap { join -> String? in
            if case .drop(let table) = join { return table }
            return nil
        })
        for index in tables.indices {
            guard let destination = tables[index].destination, let source = tables[index].source else { continue }
            let renames = fieldRenames[destination.name] ?? [:]
            var kept: Set<String> = []
            for relationship in destination.toMany {
                let renamed = renames[relationship.property]
                // A relationship renamed away leaves its old name to a new relationship.
                let claimed = renamed == nil && renames.values.contains(relationship.property)
                if let old = renamed ?? (claimed ? nil : relationship.property), source.toMany.contains(where: { $0.property == old }) {
                    kept.insert(old)
                    if old != relationship.property { tables[index].fieldChanges.renamed.append((old, relationship.property)) }
                } else {
                    tables[index].fieldChanges.added.append(relationship.property)
                }
            }
            for relationship in sourceGraph.toMany[source.name] ?? [] where !kept.contains(relationship.property) {
                guard case .joinTable(let table, _, _, _) = relationship.storage, dropped.contains(table), !moved.contains(table)
                else { continue }
                tables[index].fieldChanges.removed.append(relationship.property)
            }
        }
    }
}
