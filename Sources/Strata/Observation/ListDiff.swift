/// What changed between two list snapshots: the sections and items inserted, removed and moved, as
/// Swift `CollectionDifference`s, and the objects inserted, deleted, updated and moved, by ID.
///
/// Applying ``sections`` to the old section headers and ``items`` to the old items gives exactly the new
/// ones (see ``ListSnapshot/applying(_:)``). An object whose values changed appears in ``items`` as a
/// removal and an insertion, and in ``updatedIDs``.
public struct ListDiff<E: Entity>: Sendable {
    /// A section's identity in a diff.
    public struct SectionHeader: Hashable, Sendable {
        /// The section identifier.
        public let id: String
        /// The display name.
        public let name: String?
    }

    /// An object and the section it is in.
    public struct Item: Hashable, Sendable {
        /// The section identifier.
        public let sectionID: String
        /// The object.
        public let object: E
    }

    /// How the section headers changed.
    public let sections: CollectionDifference<SectionHeader>
    /// How the items changed (moves inferred).
    public let items: CollectionDifference<Item>

    /// Objects that are new in the list.
    public let insertedIDs: Set<EntityID<E>>
    /// Objects that left the list.
    public let deletedIDs: Set<EntityID<E>>
    /// Objects still in the list whose values changed.
    public let updatedIDs: Set<EntityID<E>>
    /// Objects still in the list, unchanged, at another position.
    public let movedIDs: Set<EntityID<E>>
    /// Sections that are new.
    public var insertedSections: [String] { sections.insertions.map { change in Self.element(change).id } }
    /// Sections that are gone.
    public var deletedSections: [String] { sections.removals.map { change in Self.element(change).id } }
    /// Whether nothing changed.
    public var isEmpty: Bool { sections.isEmpty && items.isEmpty }

    /// The difference from `old` to `new`. Objects in `relatedChanged` count as updated even when they
    /// compare equal: what changed is an object they carry (a prefetched relationship).
    init(from old: ListSnapshot<E>, to new: ListSnapshot<E>, relatedChanged: Set<EntityID<E>> = []) {
        sections = Self.headers(of: new).difference(from: Self.headers(of: old))
        let oldItems = Self.items(of: old)
        let newItems = Self.items(of: new)
        items = Self.markingUpdated(
            relatedChanged, in: newItems.difference(from: oldItems).inferringMoves(), old: oldItems, new: newItems)
        var removed: [EntityID<E>: Bool] = [:]   // value: whether the removal is a move
        var inserted: [EntityID<E>: Bool] = [:]
        for change in items.removals {
            if case .remove(_, let item, let associated) = change { removed[item.object.id] = associated != nil }
        }
        for change in items.insertions {
            if case .insert(_, let item, let associated) = change { inserted[item.object.id] = associated != nil }
        }
        insertedIDs = Set(inserted.keys.filter { removed[$0] == nil })
        deletedIDs = Set(removed.keys.filter { inserted[$0] == nil })
        updatedIDs = Set(inserted.compactMap { id, isMove in !isMove && removed[id] != nil ? id : nil })
        movedIDs = Set(inserted.compactMap { id, isMove in isMove ? id : nil })
    }

    /// `difference` with each object of `updated` removed and inserted again, unassociated, so that it
    /// reads as an update: an object matched as unchanged or as moved gets a removal at its old offset
    /// and an insertion at its new one.
    private static func markingUpdated(
        _ updated: Set<EntityID<E>>, in difference: CollectionDifference<Item>, old: [Item], new: [Item]
    ) -> CollectionDifference<Item> {
        guard !updated.isEmpty else { return difference }
        var changes: [CollectionDifference<Item>.Change] = []
        var removed: Set<EntityID<E>> = []
        var inserted: Set<EntityID<E>> = []
        for change in difference {
            switch change {
            case .remove(let offset, let item, let associated):
                let isUpdated = updated.contains(item.object.id)
                if isUpdated { removed.insert(item.object.id) }
                changes.append(.remove(offset: offset, element: item, associatedWith: isUpdated ? nil : associated))
            case .insert(let offset, let item, let associated):
                let isUpdated = updated.contains(item.object.id)
                if isUpdated { inserted.insert(item.object.id) }
                changes.append(.insert(offset: offset, element: item, associatedWith: isUpdated ? nil : associated))
            }
        }
        for (offset, item) in old.enumerated() where updated.contains(item.object.id) && !removed.contains(item.object.id) {
            changes.append(.remove(offset: offset, element: item, associatedWith: nil))
        }
        for (offset, item) in new.enumerated() where updated.contains(item.object.id) && !inserted.contains(item.object.id) {
            changes.append(.insert(offset: offset, element: item, associatedWith: nil))
        }
        return CollectionDifference(changes) ?? difference
    }

    private static func element<T>(_ change: CollectionDifference<T>.Change) -> T {
        switch change {
        case .insert(_, let element, _), .remove(_, let element, _): element
        }
    }

    static func headers(of snapshot: ListSnapshot<E>) -> [SectionHeader] {
        snapshot.sections.map { SectionHeader(id: $0.id, name: $0.name) }
    }

    static func items(of snapshot: ListSnapshot<E>) -> [Item] {
        snapshot.sections.flatMap { section in section.items.map { Item(sectionID: section.id, object: $0) } }
    }
}
