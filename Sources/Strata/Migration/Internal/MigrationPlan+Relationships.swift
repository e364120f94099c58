/// How a step's to-many relationships and their join tables migrate.
///
/// A relationship keeps its links wherever it is stored: when its storage stays the same (the same
/// foreign key column, or the same join table in the same orientation, renamed if need be) the links
/// stay where they are; when it changes (a join table becomes the foreign key of a new inverse to-one,
/// a foreign key becomes a join table, or a join table changes owner because an entity or relationship
/// was renamed), they are moved. A set that becomes ordered gets its positions numbered by related ID.
extension MigrationPlan {
    /// The links of a to-many relationship whose storage changes: read from the source's storage
    /// before any table changes, written to the destination's once every table is in place.
    struct LinkMove {
        let source: SchemaGraph.ToMany
        let destination: SchemaGraph.ToMany
        /// The relationship as the destination names it, for messages.
        var label: String { "\(destination.source).\(destination.property)" }
    }

    /// Pairs each source to-many relationship with its destination counterpart (entity and relationship
    /// renames followed) and decides whether its links stay or move.
    mutating func planRelationships(
        fieldRenames: [String: [String: String]], sourceOf: [String: String], deleted: Set<String>,
        fail: (String, String?, String?) -> StrataError
    ) throws(StrataError) {
        for relationships in sourceGraph.toMany.values {
            for old in relationships where !deleted.contains(old.source) && !deleted.contains(old.target) {
                let owner = entityRenames[old.source] ?? old.source
                guard sourceOf[owner] ?? owner == old.source else { continue }
                let property = fieldRenames[owner]?.first { $0.value == old.property }?.key ?? old.property
                guard let new = destinationGraph.toMany[owner]?.first(where: { $0.property == property }) else {
                    continue   // the relationship was removed: its links go with its storage
                }
                guard new.target == entityRenames[old.target] ?? old.target else {
                    throw fail(
                        "the relationship \(owner).\(property) points to \(new.target) instead of \(old.target). A "
                            + "relationship cannot change its target; declare a new relationship and remove the old one.",
                        owner, property)
                }
                if keepsStorage(old, new) {
                    if new.isOrdered && !old.isOrdered { renumbered.append(new) }
                } else {
                    linkMoves.append(LinkMove(source: old, destination: new))
                }
            }
        }
    }

    /// Whether a relationship's links stay where they are: the same foreign key column (perhaps renamed),
    /// or the same join table (perhaps renamed) seen from the same side.
    private func keepsStorage(_ old: SchemaGraph.ToMany, _ new: SchemaGraph.ToMany) -> Bool {
        switch (old.storage, new.storage) {
        case (.foreignKey(let oldColumn, _), .foreignKey(let newColumn, _)):
            let origin = tables.first { $0.destination?.name == new.target }?.columns.first { $0.column == newColumn }?.source
            if case .column(let column, _, _, _) = origin { return column == oldColumn }
            return false
        case (.joinTable(let oldTable, let oldOwn, _, _), .joinTable(let newTable, let newOwn, _, _)):
            guard oldOwn == newOwn else { return false }
            return joins.contains { join in
                if case .keep(let source, let destination) = join { return source == oldTable && destination.name == newTable }
                return false
            }
        default:
            return false
        }
    }

    /// The join tables: kept (renamed when their entities or relationships were), created, or dropped.
    /// A join table dropped while its relationship lives on had its links moved (``LinkMove``).
    mutating func planJoins(fieldRenames: [String: [String: String]], sourceOf: [String: String], deleted: Set<String>) {
        var kept: Set<String> = []
        for join in destinationGraph.joinTables {
            // The relationship that owns the join table, and its name in the source version.
            let property = String(join.name.dropFirst(join.ownerTable.count + 1))
            let sourceOwner = sourceOf[join.ownerTable] ?? (entityRenames[join.ownerTable] == nil ? join.ownerTable : nil)
            let renamedFrom = fieldRenames[join.ownerTable]?[property]
            let sourceProperty = renamedFrom ?? property
            let sourceOther = sourceOf[join.otherTable] ?? join.otherTable
            // A relationship renamed away leaves its old name to a new relationship, with links of its own.
            let claimed = renamedFrom == nil && (fieldRenames[join.ownerTable]?.values.contains(property) ?? false)
            if let sourceOwner, !claimed, !deleted.contains(sourceOwner), !deleted.contains(sourceOther),
                let old = sourceGraph.joinTables.first(where: { $0.name == "\(sourceOwner)_\(sourceProperty)" }),
                old.ownerTable == sourceOwner, old.otherTable == sourceOther
            {
                kept.insert(old.name)
                joins.append(.keep(source: old.name, destination: join))
            } else {
                joins.append(.create(join))
            }
        }
        for old in sourceGraph.joinTables where !kept.contains(old.name) {
            joins.append(.drop(old.name))
        }
    }
}
