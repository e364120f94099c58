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

extension MigrationPlan {
    /// A field or to-many relationship a step removes, with its values, from an entity to which it adds
    /// one or more of the same storage (the same column type and kind, or the same target), no rename
    /// between them: perhaps a rename that was forgotten, or misspelled in a step's `.renameField`.
    struct SuspectedRename {
        let step: String
        /// The entity in the source and in the destination version.
        let sourceEntity: String
        let entity: String
        /// The field removed (source name), the fields added that could be it (destination names), and
        /// the attribute that declares a rename of such a field.
        let removed: String
        let added: [String]
        let attribute: String

        /// The warning, naming both sides and the declarations that would keep the values.
        var message: String {
            let added = self.added.map { "\(entity).\($0)" }
            let candidate = self.added.count == 1 ? self.added[0] : "one of them"
            let example = self.added[0]
            return "Migration \(step) removes \(sourceEntity).\(removed) and adds \(added.joined(separator: " and ")) of the "
                + "same type: \(sourceEntity).\(removed)'s values are dropped. If \(candidate) is \(removed) renamed, declare "
                + "\(attribute)(renamedFrom: \"\(removed)\") on it (or .renameField(\"\(entity)\", from: \"\(removed)\", to: "
                + "\"\(example)\") in the step); if \(removed) is meant to go, nothing needs to change."
        }
    }

    /// The fields the step removes beside added ones of the same storage, in the entities it keeps
    /// without a transform, when it has no custom change (a transform or a custom change can carry the
    /// values over itself).
    var suspectedRenames: [SuspectedRename] {
        guard customs.isEmpty else { return [] }
        let step = "\(source.version) → \(destination.version)"
        var found: [SuspectedRename] = []
        for table in tables where table.action == .alter || table.action == .rebuild {
            guard let old = table.source, let new = table.destination else { continue }
            let changes = table.fieldChanges
            for removed in changes.removed {
                var candidates: [String] = []
                var attribute = "@Relationship"
                if let field = old.fields.first(where: { $0.property == removed }) {
                    if case .toOne = field.kind {} else { attribute = "@Field" }
                    candidates = new.fields.filter { added in
                        changes.added.contains(added.property) && added.storageClass == field.storageClass
                            && Self.sameKind(
                                field.kind, added.kind, sourceGraphName: { entityRenames[$0] ?? $0 }, source: source,
                                destination: destination)
                    }.map(\.property)
                } else if let relationship = sourceGraph.toMany[old.name]?.first(where: { $0.property == removed }) {
                    // Added to-many relationships with links of their own to start (in a join table).
                    candidates = (destinationGraph.toMany[new.name] ?? []).filter { added in
                        guard case .joinTable = added.storage else { return false }
                        return changes.added.contains(added.property)
                            && added.target == entityRenames[relationship.target] ?? relationship.target
                    }.map(\.property)
                }
                guard !candidates.isEmpty else { continue }
                found.append(SuspectedRename(
                    step: step, sourceEntity: old.name, entity: new.name, removed: removed, added: candidates, attribute: attribute))
            }
        }
        return found
    }
}
