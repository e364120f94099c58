/// What changed between two list snapshots: the sections and items inserted, removed and moved, as
/// Swift `CollectionDifference`s, and the objects inserted, deleted, updated and moved, by ID.
///
/// Applying ``sections`` to the old section headers and ``items`` to the old items gives exactly the new
/// ones (see ``ListSnapshot/applying(_:)``). An object whose values changed appears in ``items`` as a
/// removal and an insertion, and in ``updatedIDs``.
///
/// ``moves`` lists, with their old and new positions, the objects still in the list whose place among
/// the others changed: a changed sort key, a changed section, or another object that moved past them.
/// The objects not in ``moves`` keep their order relative to one another, so a UI can animate inserts,
/// deletes and moves as one batch (and reload ``updatedIDs``). Where several sets of moves would do,
/// objects whose values changed move before unchanged ones: after `Linus.age = 99`, Linus moves to the
/// end rather than everyone else moving up.
///
/// ```swift
/// if let diff = list.diff {
///     for move in diff.moves { print(move.id, move.from, "→", move.to) }
/// }
/// ```
public struct ListDiff<E: Entity>: Sendable {
    /// An object that changed its place in the list: its position in the old snapshot and in the new one.
    public struct Move: Hashable, Sendable {
        /// The object.
        public let id: EntityID<E>
        /// Its position in the previous snapshot.
        public let from: ListIndex
        /// Its position in the new snapshot.
        public let to: ListIndex
    }

    /// A section's identity in a diff. Two headers are equal when their identifiers and names are the
    /// same UTF-8 bytes (not only canonically equivalent, as Swift's `==` of texts has it), as two
    /// sections are (see ``ListSnapshot/Section``).
    public struct SectionHeader: Hashable, Sendable {
        /// The section identifier.
        public let id: String
        /// The display name.
        public let name: String?

        public static func == (lhs: SectionHeader, rhs: SectionHeader) -> Bool {
            ExactText(lhs.id) == ExactText(rhs.id) && lhs.name.hasSameBytes(as: rhs.name)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(ExactText(id))
        }
    }

    /// An object and the section it is in. Section identifiers compare by their UTF-8 bytes.
    public struct Item: Hashable, Sendable {
        /// The section identifier.
        public let sectionID: String
        /// The object.
        public let object: E

        public static func == (lhs: Item, rhs: Item) -> Bool {
            ExactText(lhs.sectionID) == ExactText(rhs.sectionID) && lhs.object == rhs.object
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(ExactText(sectionID))
            hasher.combine(object)
        }
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
    /// Objects still in the list whose place among the others changed, changed or not (see ``moves``).
    public var movedIDs: Set<EntityID<E>> { Set(moves.map(\.id)) }
    /// The objects still in the list whose place among the others changed, in the new snapshot's order,
    /// with their old and new positions. An object may be both moved and in ``updatedIDs``.
    public let moves: [Move]
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
        moves = Self.moves(from: old, to: new, updated: updatedIDs)
    }

    /// The objects in both snapshots whose place among the others changed. Unchanged objects are kept in
    /// place first (the longest run of them in the same relative order stays); the rest of them move.
    /// An updated object stays in place when it sits between the same two staying neighbours, in the same
    /// section and in the same order relative to the other updated objects there; otherwise it moves.
    static func moves(from old: ListSnapshot<E>, to new: ListSnapshot<E>, updated: Set<EntityID<E>>) -> [Move] {
        let oldPlaces = places(in: old)
        let newPlaces = places(in: new)
        let oldSurvivors = old.itemIDs.filter { newPlaces[$0] != nil }
        let newSurvivors = new.itemIDs.filter { oldPlaces[$0] != nil }
        guard !newSurvivors.isEmpty else { return [] }
        // Unchanged objects: those that a minimal edit would move, move.
        let unchangedOld = oldSurvivors.filter { !updated.contains($0) }
        let unchangedNew = newSurvivors.filter { !updated.contains($0) }
        var moved = Set<EntityID<E>>()
        for change in unchangedNew.difference(from: unchangedOld) {
            if case .insert(_, let id, _) = change { moved.insert(id) }
        }
        // Updated objects: group each by the number of staying unchanged objects before it.
        func gaps(_ ids: [EntityID<E>]) -> [Int: [EntityID<E>]] {
            var anchorsBefore = 0
            var result: [Int: [EntityID<E>]] = [:]
            for id in ids {
                if updated.contains(id) { result[anchorsBefore, default: []].append(id) }
                else if !moved.contains(id) { anchorsBefore += 1 }
            }
            return result
        }
        let oldGaps = gaps(oldSurvivors)
        let newGaps = gaps(newSurvivors)
        for (gap, newIDs) in newGaps {
            let oldIDs = (oldGaps[gap] ?? []).filter(Set(newIDs).contains)
            let staying = Set(oldIDs)
            for id in newIDs where !staying.contains(id) { moved.insert(id) }
            for change in newIDs.filter(staying.contains).difference(from: oldIDs) {
                if case .insert(_, let id, _) = change { moved.insert(id) }
            }
        }
        // A change of section is a move too.
        for id in newSurvivors where ExactText(oldPlaces[id]!.sectionID) != ExactText(newPlaces[id]!.sectionID) { moved.insert(id) }
        return newSurvivors.compactMap { id in
            moved.contains(id) ? Move(id: id, from: oldPlaces[id]!.index, to: newPlaces[id]!.index) : nil
        }
    }

    private static func places(in snapshot: ListSnapshot<E>) -> [EntityID<E>: (index: ListIndex, sectionID: String)] {
        var result: [EntityID<E>: (index: ListIndex, sectionID: String)] = [:]
        for (sectionIndex, section) in snapshot.sections.enumerated() {
            for (itemIndex, object) in section.items.enumerated() {
                result[object.id] = (ListIndex(section: sectionIndex, item: itemIndex), section.id)
            }
        }
        return result
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
