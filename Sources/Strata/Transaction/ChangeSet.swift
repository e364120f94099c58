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
        entities[entity, default: EntityChanges()].insertedRanges.insert(id)
    }

    // The records below mutate the entity's changes in place, through the dictionary's subscript: a
    // copy taken out and written back would copy its sets on every call.

    mutating func recordUpdate(entity: String, id: Int64, fields: Set<String>) {
        guard !fields.isEmpty else { return }
        entities[entity, default: EntityChanges()].recordUpdate(id, fields: fields)
    }

    mutating func recordDelete(entity: String, id: Int64) {
        entities[entity, default: EntityChanges()].recordDelete(id)
    }
}

/// The changes a commit made to one entity, by row ID.
public struct EntityChanges: Sendable, Equatable {
    /// Row IDs of created objects.
    public var inserted: Set<Int64> { insertedRanges.set }
    /// Row IDs of edited objects, each with the property names of the fields that changed.
    public internal(set) var updated: [Int64: Set<String>] = [:]
    /// Row IDs of deleted objects.
    public internal(set) var deleted: Set<Int64> = []
    /// The created IDs as runs of consecutive IDs: a transaction's creations of one entity get
    /// consecutive IDs, so a bulk insert records one run instead of a set entry per object.
    var insertedRanges = IDRanges()

    /// Nothing changed.
    public init() {}

    /// Whether nothing changed.
    public var isEmpty: Bool { insertedRanges.isEmpty && updated.isEmpty && deleted.isEmpty }

    mutating func recordUpdate(_ id: Int64, fields: Set<String>) {
        if !insertedRanges.contains(id) {
            updated[id, default: []].formUnion(fields)
        }
    }

    mutating func recordDelete(_ id: Int64) {
        if !insertedRanges.remove(id) {
            updated.removeValue(forKey: id)
            deleted.insert(id)
        }
    }
}

/// A set of row IDs kept as sorted, disjoint, non-adjacent runs of consecutive IDs, so that equal sets
/// have equal representations.
struct IDRanges: Sendable, Equatable {
    private var runs: [ClosedRange<Int64>] = []

    var isEmpty: Bool { runs.isEmpty }

    /// The IDs as a set.
    var set: Set<Int64> {
        var result = Set<Int64>(minimumCapacity: runs.reduce(0) { $0 + Int($1.count) })
        for run in runs {
            for id in run { result.insert(id) }
        }
        return result
    }

    func contains(_ id: Int64) -> Bool {
        guard let index = runIndex(containingOrAfter: id) else { return false }
        return runs[index].contains(id)
    }

    mutating func insert(_ id: Int64) {
        // The common case: the next ID of a run of creations.
        if let last = runs.last, id > last.upperBound {
            if id == last.upperBound + 1 {
                runs[runs.count - 1] = last.lowerBound...id
            } else {
                runs.append(id...id)
            }
            return
        }
        guard let index = runIndex(containingOrAfter: id) else {
            runs.append(id...id)
            return
        }
        if runs[index].contains(id) { return }
        // `id` lies before runs[index] and after runs[index - 1]: join whichever it touches.
        let joinsNext = id + 1 == runs[index].lowerBound
        let joinsPrevious = index > 0 && runs[index - 1].upperBound + 1 == id
        switch (joinsPrevious, joinsNext) {
        case (true, true):
            runs[index - 1] = runs[index - 1].lowerBound...runs[index].upperBound
            runs.remove(at: index)
        case (true, false):
            runs[index - 1] = runs[index - 1].lowerBound...id
        case (false, true):
            runs[index] = id...runs[index].upperBound
        case (false, false):
            runs.insert(id...id, at: index)
        }
    }

    /// Removes `id`; returns whether it was there.
    mutating func remove(_ id: Int64) -> Bool {
        guard let index = runIndex(containingOrAfter: id), runs[index].contains(id) else { return false }
        let run = runs[index]
        switch (run.lowerBound == id, run.upperBound == id) {
        case (true, true):
            runs.remove(at: index)
        case (true, false):
            runs[index] = (id + 1)...run.upperBound
        case (false, true):
            runs[index] = run.lowerBound...(id - 1)
        case (false, false):
            runs[index] = run.lowerBound...(id - 1)
            runs.insert((id + 1)...run.upperBound, at: index + 1)
        }
        return true
    }

    /// The index of the first run whose upper bound is at least `id`, or `nil` when every run is below.
    private func runIndex(containingOrAfter id: Int64) -> Int? {
        var low = 0
        var high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].upperBound < id { low = middle + 1 } else { high = middle }
        }
        return low < runs.count ? low : nil
    }
}
