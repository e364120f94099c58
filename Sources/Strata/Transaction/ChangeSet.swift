/// What one commit changed: per entity, the inserted, updated and deleted object IDs, and for each
/// update the fields it changed.
///
/// Every commit that changes something produces exactly one `ChangeSet`. The IDs are net effects
/// within the commit: an object created and then edited in the same transaction counts as inserted
/// only; one created and deleted in the same transaction does not appear at all. A change set of other
/// processes' commits (``isExternal``) may cover several commits and keeps what each did: an ID may be
/// inserted and updated, or inserted and deleted; its deletion is the latest state.
public struct ChangeSet: Sendable, Equatable {
    /// The changes, keyed by entity name.
    public internal(set) var entities: [String: EntityChanges] = [:]
    /// Whether the changes were committed outside this stack: by another process, or another
    /// `DataStack` on the same file.
    ///
    /// When the store keeps a persistent history, such a change set holds the exact changes those
    /// commits recorded; otherwise ``isUnknown`` is set too. One external change set may cover several
    /// commits, and it keeps what each did rather than their net effect: an object another process
    /// created in one commit and edited or deleted in the next is both inserted and updated or
    /// deleted (an observer may have read it between the two).
    public internal(set) var isExternal = false
    /// Whether what changed is unknown: another connection committed, and the store keeps no history
    /// to read its changes from (or they were purged before this stack read them), and ``isExternal``
    /// is set too; or a transaction of this stack that wrote to several stores failed at `COMMIT` after
    /// some of them may have committed. Anything may have changed; the change set names no entity.
    public internal(set) var isUnknown = false
    /// The commit's number among the stack's commits (the commit gate's count), once the stack has
    /// published it; `nil` before, and for a transaction's change set. An observation whose value was
    /// read from a state that saw this commit has nothing to fetch for it. Not part of `==`.
    var commitNumber: Int?

    /// An empty change set.
    public init() {}

    /// Whether two change sets hold the same changes, from the same kind of commit.
    public static func == (lhs: ChangeSet, rhs: ChangeSet) -> Bool {
        lhs.entities == rhs.entities && lhs.isExternal == rhs.isExternal && lhs.isUnknown == rhs.isUnknown
    }

    /// A change set for commits made outside this stack, whose details are unknown.
    static var unknownExternal: ChangeSet {
        var changes = ChangeSet()
        changes.isExternal = true
        changes.isUnknown = true
        return changes
    }

    /// Whether the commit changed nothing.
    public var isEmpty: Bool { !isUnknown && entities.values.allSatisfy(\.isEmpty) }

    /// How many objects the commit created, edited or deleted, over all entities (without building
    /// the sets).
    var changedObjectCount: Int {
        entities.values.reduce(0) { total, changes in
            total + changes.insertedCount + changes.updated.count + changes.deleted.count
        }
    }

    /// Whether the commit may have changed objects of any of these entities.
    func touches(_ names: Set<String>) -> Bool {
        isUnknown || names.contains { entities[$0].map { !$0.isEmpty } ?? false }
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

    /// The last values of a deleted object's fields that the history preserves on deletion
    /// (``HistoryOptions/preservedOnDeletion``), by property name; `nil` when the object was not deleted
    /// or none of its fields is preserved.
    public func preservedValues<E: Entity>(of id: EntityID<E>) -> [String: DatabaseValue]? {
        changes(for: E.self).deletedValues[id.rawValue]
    }

    mutating func recordInsert(entity: String, id: Int64) {
        entities[entity, default: EntityChanges()].recordInsert(id)
    }

    // The records below mutate the entity's changes in place, through the dictionary's subscript: a
    // copy taken out and written back would copy its sets on every call.

    mutating func recordUpdate(entity: String, id: Int64, fields: Set<String>) {
        guard !fields.isEmpty else { return }
        entities[entity, default: EntityChanges()].recordUpdate(id, fields: fields)
    }

    mutating func recordDelete(entity: String, id: Int64, preserving values: [String: DatabaseValue]? = nil) {
        entities[entity, default: EntityChanges()].recordDelete(id, preserving: values)
    }

    /// Records a run of inserted IDs at once (read back from the history).
    mutating func recordInserts(entity: String, ids: ClosedRange<Int64>) {
        entities[entity, default: EntityChanges()].recordInserts(ids)
    }

    /// Adds the changes of a later commit of another connection, keeping everything either touched:
    /// an object created in one commit and edited or deleted in the next stays created *and* edited
    /// or deleted. An observer may have read between the two commits (another process's commit is
    /// visible before this stack scans it), so netting them out, as ``merge(_:)`` does within one
    /// transaction, would hide the later change from it.
    mutating func mergeKeepingEveryChange(_ later: ChangeSet) {
        if later.isExternal { isExternal = true }
        if later.isUnknown { isUnknown = true }
        for (name, changes) in later.entities {
            entities[name, default: EntityChanges()].mergeKeepingEveryChange(changes)
        }
    }

    /// Adds the changes of a later commit: the result is what both commits did together.
    mutating func merge(_ later: ChangeSet) {
        if later.isExternal { isExternal = true }
        if later.isUnknown { isUnknown = true }
        for (name, changes) in later.entities {
            for run in changes.insertedRanges.ranges { recordInserts(entity: name, ids: run.lowerBound...(run.upperBound - 1)) }
            for (id, fields) in changes.updated { recordUpdate(entity: name, id: id, fields: fields) }
            for id in changes.deleted { recordDelete(entity: name, id: id, preserving: changes.deletedValues[id]) }
        }
    }
}

/// The changes a commit made to one entity, by row ID.
public struct EntityChanges: Sendable, Equatable {
    /// Row IDs of created objects.
    public var inserted: Set<Int64> {
        let ranges = insertedRanges
        var result = Set<Int64>(minimumCapacity: ranges.ranges.reduce(0) { $0 + $1.count })
        for run in ranges.ranges {
            for id in run { result.insert(id) }
        }
        return result
    }
    /// Row IDs of edited objects, each with the property names of the fields that changed.
    public internal(set) var updated: [Int64: Set<String>] = [:]
    /// Row IDs of deleted objects.
    public internal(set) var deleted: Set<Int64> = []
    /// The last values of the deleted objects' fields that the history preserves
    /// (``HistoryOptions/preservedOnDeletion``), by row ID and property name.
    public internal(set) var deletedValues: [Int64: [String: DatabaseValue]] = [:]
    /// The created IDs as runs of consecutive IDs: a transaction's creations of one entity get
    /// consecutive IDs, so a bulk insert records one run instead of a set entry per object. The run
    /// being extended is kept apart (`openRun`): extending it costs a comparison, where inserting into
    /// the standard library's `RangeSet` costs a generic call per ID.
    private var closedRuns = RangeSet<Int64>()
    private var openRun: Range<Int64>?

    /// Nothing changed.
    public init() {}

    /// Every created ID as runs (sorted and merged, so equal sets compare equal).
    var insertedRanges: RangeSet<Int64> {
        guard let openRun else { return closedRuns }
        var ranges = closedRuns
        ranges.insert(contentsOf: openRun)
        return ranges
    }

    /// How many objects were created. The writer asks this of every commit, whose creations are most
    /// often one run: then it is counted without building ``insertedRanges``, which copies the runs.
    /// (The open run may overlap the closed ones, so with both it counts their union.)
    var insertedCount: Int {
        guard !closedRuns.isEmpty else { return openRun.map { Int($0.upperBound - $0.lowerBound) } ?? 0 }
        return insertedRanges.ranges.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) }
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { openRun == nil && closedRuns.isEmpty && updated.isEmpty && deleted.isEmpty }

    public static func == (lhs: EntityChanges, rhs: EntityChanges) -> Bool {
        lhs.insertedRanges == rhs.insertedRanges && lhs.updated == rhs.updated && lhs.deleted == rhs.deleted
            && lhs.deletedValues == rhs.deletedValues
    }

    private func wasInserted(_ id: Int64) -> Bool {
        openRun?.contains(id) == true || closedRuns.contains(id)
    }

    mutating func recordInsert(_ id: Int64) {
        if let run = openRun {
            if run.upperBound == id {
                openRun = run.lowerBound..<(id + 1)
                return
            }
            closedRuns.insert(contentsOf: run)
        }
        openRun = id..<(id + 1)
    }

    mutating func recordInserts(_ ids: ClosedRange<Int64>) {
        if let run = openRun {
            closedRuns.insert(contentsOf: run)
            openRun = nil
        }
        closedRuns.insert(contentsOf: ids.lowerBound..<(ids.upperBound + 1))
    }

    mutating func recordUpdate(_ id: Int64, fields: Set<String>) {
        // A created object's changes are part of its creation; a deleted one's (a link cleared on an
        // object a cascade through a cycle deleted first) are part of its deletion.
        guard !wasInserted(id), deleted.isEmpty || !deleted.contains(id) else { return }
        if let index = updated.index(forKey: id) {
            updated.values[index].formUnion(fields)
        } else {
            updated[id] = fields
        }
    }

    /// See ``ChangeSet/mergeKeepingEveryChange(_:)``.
    mutating func mergeKeepingEveryChange(_ later: EntityChanges) {
        for run in later.insertedRanges.ranges {
            if let open = openRun {
                closedRuns.insert(contentsOf: open)
                openRun = nil
            }
            closedRuns.insert(contentsOf: run)
        }
        for (id, fields) in later.updated { updated[id, default: []].formUnion(fields) }
        deleted.formUnion(later.deleted)
        deletedValues.merge(later.deletedValues) { _, last in last }
    }

    mutating func recordDelete(_ id: Int64, preserving values: [String: DatabaseValue]? = nil) {
        if wasInserted(id) {
            if let run = openRun {
                closedRuns.insert(contentsOf: run)
                openRun = nil
            }
            closedRuns.remove(contentsOf: id..<(id + 1))
        } else {
            updated.removeValue(forKey: id)
            deleted.insert(id)
            if let values { deletedValues[id] = values }
        }
    }
}
