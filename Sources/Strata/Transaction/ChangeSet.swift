/// What one commit changed: per entity, the inserted, updated and deleted object IDs, and for each
/// update the fields it changed.
///
/// Every commit that changes something produces exactly one `ChangeSet`. The IDs are net effects
/// within the commit: an object created and then edited in the same transaction counts as inserted
/// only; one created and deleted in the same transaction does not appear at all.
public struct ChangeSet: Sendable, Equatable {
    /// The changes, keyed by entity name.
    public internal(set) var entities: [String: EntityChanges] = [:]
    /// Whether the changes were made outside this stack (another process or another `DataStack` on the
    /// same file). Such a change set carries no details: anything may have changed.
    public internal(set) var isExternal = false

    /// An empty change set.
    public init() {}

    /// A change set for commits made outside this stack, whose details are unknown.
    static var external: ChangeSet {
        var changes = ChangeSet()
        changes.isExternal = true
        return changes
    }

    /// Whether the commit changed nothing.
    public var isEmpty: Bool { !isExternal && entities.values.allSatisfy(\.isEmpty) }

    /// Whether the commit may have changed objects of any of these entities.
    func touches(_ names: Set<String>) -> Bool {
        isExternal || names.contains { entities[$0].map { !$0.isEmpty } ?? false }
    }

    /// The names of the entities the commit changed.
    public var changedEntityNames: Set<String> { Set(entities.filter { !$0.value.isEmpty }.keys) }

    /// The changes to one entity (empty when it was not touched).
    public func changes<E: Entity>(for type: E.Type) -> EntityChanges {
        entities[E.entityDescription.name] ?? EntityChanges()
    }

    /// The IDs of the objects of `E` the commit created.
    public func insertedIDs<E: Entity>(_ type: E.Type) -> Set<EntityID<E>> {
        Set(changes(for: type).inserted.map(EntityID<E>.init(rawValue:)))
    }

    /// The IDs of the objects of `E` the commit edited.
    public func updatedIDs<E: Entity>(_ type: E.Type) -> Set<EntityID<E>> {
        Set(changes(for: type).updated.keys.map(EntityID<E>.init(rawValue:)))
    }

    /// The IDs of the objects of `E` the commit deleted.
    public func deletedIDs<E: Entity>(_ type: E.Type) -> Set<EntityID<E>> {
        Set(changes(for: type).deleted.map(EntityID<E>.init(rawValue:)))
    }

    /// The property names of the fields the commit changed on one object (empty unless it was edited).
    public func changedFields<E: Entity>(of id: EntityID<E>) -> Set<String> {
        changes(for: E.self).updated[id.rawValue] ?? []
    }

    mutating func recordInsert(entity: String, id: Int64) {
        entities[entity, default: EntityChanges()].inserted.insert(id)
    }

    mutating func recordUpdate(entity: String, id: Int64, fields: Set<String>) {
        guard !fields.isEmpty else { return }
        var changes = entities[entity, default: EntityChanges()]
        if !changes.inserted.contains(id) {
            changes.updated[id, default: []].formUnion(fields)
        }
        entities[entity] = changes
    }

    mutating func recordDelete(entity: String, id: Int64) {
        var changes = entities[entity, default: EntityChanges()]
        if changes.inserted.remove(id) == nil {
            changes.updated.removeValue(forKey: id)
            changes.deleted.insert(id)
        }
        entities[entity] = changes
    }
}

/// The changes a commit made to one entity, by row ID.
public struct EntityChanges: Sendable, Equatable {
    /// Row IDs of created objects.
    public internal(set) var inserted: Set<Int64> = []
    /// Row IDs of edited objects, each with the property names of the fields that changed.
    public internal(set) var updated: [Int64: Set<String>] = [:]
    /// Row IDs of deleted objects.
    public internal(set) var deleted: Set<Int64> = []

    /// Nothing changed.
    public init() {}

    /// Whether nothing changed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}
