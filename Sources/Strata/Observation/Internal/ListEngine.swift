import Synchronization

/// Builds the snapshots of one list publisher: a full fetch, or — when only objects of the list's own
/// entity changed and the order can be computed in Swift — a fetch of just the changed objects merged
/// into the previous snapshot, so a commit that changes one row of a long list costs one small query.
struct ListEngine<E: Entity>: Sendable {
    /// A field of the total order: a stored field (by index) or the ID.
    private struct SortField: Sendable {
        let fieldIndex: Int?
        let ascending: Bool
    }

    /// Counts of the two kinds of fetch, for tests and diagnostics.
    final class Statistics: Sendable {
        private let counts = Locked((full: 0, incremental: 0))
        var full: Int { counts.withLock { $0.full } }
        var incremental: Int { counts.withLock { $0.incremental } }
        func record(incremental: Bool) {
            counts.withLock { incremental ? ($0.incremental += 1) : ($0.full += 1) }
        }
    }

    let from: From<E>
    let dependencies: Set<String>
    let statistics = Statistics()
    private let section: SectionBy<E>?
    /// The order as fields Swift can compare, or `nil` when only SQL can sort (collations, derived values).
    private let sortFields: [SortField]?
    private let entityName: String
    /// Whether the list reaches objects of its own entity through relationships (a filter on
    /// `\.parent?.name`, a prefetched parent): a change to one object can then change whether, or how,
    /// others are in the list, so its changes are never merged object by object.
    private let readsItselfThroughRelationships: Bool

    /// The most changed objects merged incrementally, as a share of the list, before a full fetch is cheaper.
    private static var incrementalShare: Int { 4 }

    init(from original: From<E>, graph: SchemaGraph) {
        let entity = E.entityDescription
        entityName = entity.name
        section = original.sections
        var from = original
        // Sections are contiguous: order by the section field first, by its stored value (a first term
        // on the same field with a collation, case-insensitive say, would interleave "B" and "b", which
        // are sections of their own). Ties are broken by the ID, so the order is total and the same in
        // SQL and in Swift.
        var terms = original.order.terms
        if let section = original.sections,
            terms.first.flatMap({ $0.collation == nil ? try? $0.column.get() : nil }) != (try? section.column.get())
        {
            terms.insert(OrderBy<E>.Term(column: section.column, ascending: true), at: 0)
        }
        if !terms.contains(where: { (try? $0.column.get()).map { $0.column == "id" && $0.through.isEmpty } ?? false }) {
            terms.append(OrderBy<E>.Term(
                column: .success(.id(of: entity.name)),
                ascending: true))
        }
        from.order = OrderBy(terms: terms)
        self.from = from
        var fields: [SortField]? = []
        for term in terms {
            guard term.collation == nil, let column = try? term.column.get(), column.kind == .column,
                column.through.isEmpty
            else {
                fields = nil
                break
            }
            if column.column == "id" {
                fields?.append(SortField(fieldIndex: nil, ascending: term.ascending))
            } else if let index = entity.fields.firstIndex(where: { $0.column == column.column }) {
                fields?.append(SortField(fieldIndex: index, ascending: term.ascending))
            } else {
                fields = nil
                break
            }
        }
        sortFields = original.limit == nil && original.offset == nil ? fields : nil
        // The entities the list reads through relationships (the filtered entity's own columns are not
        // among them).
        var related: Set<String> = []
        if let predicate = original.predicate {
            related.formUnion(predicate.expression.dependencies(graph: graph))
        }
        for term in terms {
            if let column = try? term.column.get() {
                related.formUnion(SQLExpression.column(column).dependencies(graph: graph))
            }
        }
        // Prefetched objects are part of each snapshot: their changes refresh the list.
        related.formUnion(original.prefetches.map(\.target))
        readsItselfThroughRelationships = related.contains(entity.name)
        self.dependencies = related.union([entity.name])
    }

    /// The next snapshot, on a read lease that has run no statement yet.
    ///
    /// A snapshot merged from the previous one must hold the state the read sees, so it merges every
    /// commit between the two reads: those the read sees but whose change sets have not reached the
    /// publisher yet too (`changes` only says that a new snapshot is needed). `log` has them, by the
    /// count of commits each read saw; when it lacks one, or the count is unknown, the list is fetched
    /// anew.
    func snapshot(
        previous: ListSnapshot<E>?, changes: [ChangeSet]?, log: CommitLog, connection: Connection, store: StoreContext
    ) throws -> ListSnapshot<E> {
        // Sections from a virtual property, or another key path with no column, fail the fetch.
        if let section, case .failure(let error) = section.column { throw error }
        let seen = try connection.commitsSeen()
        let objects: [E]
        var rewritten: Set<EntityID<E>> = []
        if let previous, changes != nil, let base = previous.commitsSeen, let seen,
            let since = log.changes(after: base, through: seen),
            let touched = touchedIDs(since, previousCount: previous.count)
        {
            statistics.record(incremental: true)
            let items = previous.items
            let fresh = try fetch(touched, connection: connection, store: store)
            // Nothing the list holds was touched, and no touched object joins it: the list is unchanged.
            if fresh.isEmpty, !items.contains(where: { touched.contains($0.id.rawValue) }) {
                return ListSnapshot(
                    sections: previous.sections, diff: previous.diff, token: previous.token, diffBase: previous.diffBase,
                    commitsSeen: seen)
            }
            rewritten = Self.rewritten(fresh, in: items)
            objects = merge(items, touched: touched, fresh: fresh)
        } else {
            objects = try connection.fetchAll(from, store: store)
            statistics.record(incremental: false)
            // Only the objects the commits since the previous snapshot updated can have been rewritten:
            // they are compared, not the whole list. Commits of other connections say nothing of what
            // they changed, so an edit of another process that changed only a normalization waits for
            // the next change of the object.
            if let previous, let base = previous.commitsSeen, let seen, let since = log.changes(after: base, through: seen) {
                let updated = updatedIDs(since)
                if !updated.isEmpty {
                    rewritten = Self.rewritten(objects.filter { updated.contains($0.id.rawValue) }, in: previous.items)
                }
            }
        }
        let sections = group(objects)
        let snapshot = ListSnapshot(sections: sections, diff: nil, commitsSeen: seen)
        guard let previous else { return snapshot }
        let related = relatedChanged(previous, objects).union(rewritten)
        return ListSnapshot(
            sections: sections, diff: ListDiff(from: previous, to: snapshot, relatedChanged: related),
            carriesRelatedChanges: !related.isEmpty, token: snapshot.token, diffBase: previous.token, commitsSeen: seen)
    }

    /// `snapshot` with its diff computed from `last` instead: for a consumer that did not see the
    /// snapshots in between (it receives the newest one).
    func rebase(_ snapshot: ListSnapshot<E>, onto last: ListSnapshot<E>) -> ListSnapshot<E> {
        let related = relatedChanged(last, snapshot.items)
        return ListSnapshot(
            sections: snapshot.sections, diff: ListDiff(from: last, to: snapshot, relatedChanged: related),
            carriesRelatedChanges: !related.isEmpty, token: snapshot.token, diffBase: last.token,
            commitsSeen: snapshot.commitsSeen)
    }

    /// The objects still in the list whose prefetched objects changed: equal as values (IDs compare
    /// by row ID), they would not show in the diff on their own.
    private func relatedChanged(_ previous: ListSnapshot<E>, _ objects: [E]) -> Set<EntityID<E>> {
        guard !from.prefetches.isEmpty else { return [] }
        var old: [EntityID<E>: E] = [:]
        for section in previous.sections {
            for object in section.items { old[object.id] = object }
        }
        var changed: Set<EntityID<E>> = []
        for object in objects {
            guard let before = old[object.id] else { continue }
            if from.prefetches.contains(where: { !$0.isSameLoaded(before, object) }) { changed.insert(object.id) }
        }
        return changed
    }

    /// The re-read objects that are `==` to the list's copy in Swift but whose stored values differ: an
    /// edit that changed only a text's Unicode normalization (Swift's `==` on text follows canonical
    /// equivalence, the store compares bytes). Counted as updated, so the snapshot is delivered.
    private static func rewritten(_ fresh: [E], in items: [E]) -> Set<EntityID<E>> {
        guard !fresh.isEmpty else { return [] }
        var reread: [EntityID<E>: E] = [:]
        for object in fresh { reread[object.id] = object }
        var rewritten: Set<EntityID<E>> = []
        for before in items {
            guard let object = reread[before.id], before == object,
                FieldEncoder.collect(before).values != FieldEncoder.collect(object).values
            else { continue }
            rewritten.insert(object.id)
        }
        return rewritten
    }

    /// The IDs of the list's entity that `changes` updated.
    private func updatedIDs(_ changes: [ChangeSet]) -> Set<Int64> {
        var updated: Set<Int64> = []
        for change in changes {
            if let entityChanges = change.entities[entityName] { updated.formUnion(entityChanges.updated.keys) }
        }
        return updated
    }

    /// The IDs to re-read, or `nil` when a full fetch is needed.
    private func touchedIDs(_ changes: [ChangeSet], previousCount: Int) -> Set<Int64>? {
        guard sortFields != nil else { return nil }
        var touched: Set<Int64> = []
        for change in changes {
            if change.isUnknown { return nil }
            for (name, entityChanges) in change.entities where !entityChanges.isEmpty {
                if name == entityName {
                    if readsItselfThroughRelationships { return nil }
                    touched.formUnion(entityChanges.inserted)
                    touched.formUnion(entityChanges.updated.keys)
                    touched.formUnion(entityChanges.deleted)
                } else if dependencies.contains(name) {
                    return nil
                }
            }
        }
        if touched.count > 100, touched.count * Self.incrementalShare > previousCount { return nil }
        return touched
    }

    /// The previous objects without the touched ones, with the touched ones that still match inserted
    /// at their place in the order.
    private func fetch(_ touched: Set<Int64>, connection: Connection, store: StoreContext) throws -> [E] {
        guard !touched.isEmpty else { return [] }
        return try connection.fetchAll(from.where(.ids(touched)), store: store)
    }

    private func merge(_ previous: [E], touched: Set<Int64>, fresh: [E]) -> [E] {
        var merged = previous.filter { !touched.contains($0.id.rawValue) }
        // Binary search with keys computed only for the probed objects: log n encodings per changed row.
        for object in fresh {
            let key = sortKey(object)
            var low = 0
            var high = merged.count
            while low < high {
                let middle = (low + high) / 2
                if precedes(sortKey(merged[middle]), key) { low = middle + 1 } else { high = middle }
            }
            merged.insert(object, at: low)
        }
        return merged
    }

    private func sortKey(_ object: E) -> [DatabaseValue] {
        let values = FieldEncoder.values(of: object)
        return (sortFields ?? []).map { field in field.fieldIndex.map { values[$0] } ?? .integer(object.id.rawValue) }
    }

    /// Whether key `a` sorts before key `b` in the fetch's order.
    private func precedes(_ a: [DatabaseValue], _ b: [DatabaseValue]) -> Bool {
        for (index, field) in (sortFields ?? []).enumerated() {
            let order = a[index].sqliteOrder(b[index])
            if order != 0 { return field.ascending ? order < 0 : order > 0 }
        }
        return false
    }

    /// Consecutive objects with the same section value form a section.
    private func group(_ objects: [E]) -> [ListSnapshot<E>.Section] {
        guard let section, let fieldIndex = section.fieldIndex else {
            return objects.isEmpty ? [] : [ListSnapshot.Section(id: "", name: nil, items: objects)]
        }
        var sections: [ListSnapshot<E>.Section] = []
        var current: (id: String, name: String?, items: [E])?
        for object in objects {
            let value = FieldEncoder.values(of: object)[fieldIndex]
            let id = SectionBy<E>.identifier(of: value)
            if current.map({ ExactText($0.id) != ExactText(id) }) ?? true {
                if let current { sections.append(ListSnapshot.Section(id: current.id, name: current.name, items: current.items)) }
                current = (id, section.name(value), [])
            }
            current?.items.append(object)
        }
        if let current { sections.append(ListSnapshot.Section(id: current.id, name: current.name, items: current.items)) }
        return sections
    }
}

extension DatabaseValue {
    /// SQLite's order of two values with the BINARY collation: NULL, then numbers by value, then text
    /// and blobs by their bytes. Negative, zero or positive, like `memcmp`.
    func sqliteOrder(_ other: DatabaseValue) -> Int {
        func rank(_ value: DatabaseValue) -> Int {
            switch value {
            case .null: 0
            case .integer, .real: 1
            case .text: 2
            case .blob: 3
            }
        }
        let (left, right) = (rank(self), rank(other))
        if left != right { return left < right ? -1 : 1 }
        switch (self, other) {
        case (.integer(let a), .integer(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.integer(let a), .real(let b)): return Double(a) == b ? 0 : (Double(a) < b ? -1 : 1)
        case (.real(let a), .integer(let b)): return a == Double(b) ? 0 : (a < Double(b) ? -1 : 1)
        case (.real(let a), .real(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.text(let a), .text(let b)): return Self.compareBytes(Array(a.utf8), Array(b.utf8))
        case (.blob(let a), .blob(let b)): return Self.compareBytes(Array(a), Array(b))
        default: return 0
        }
    }

    private static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
