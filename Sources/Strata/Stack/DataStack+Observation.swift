extension DataStack {
    /// The snapshots of one object over time; see ``ObjectPublisher``.
    public func objectPublisher<E: Entity>(_ id: EntityID<E>) -> ObjectPublisher<E> {
        let stores = self.stores
        let core = ObservationCore<E?>(
            center: observation, readers: readers, stores: { stores.current },
            isRelevant: { changes in
                guard !changes.isUnknown else { return true }
                let entity = changes.changes(for: E.self)
                return entity.updated[id.rawValue] != nil || entity.deleted.contains(id.rawValue)
            },
            isDuplicate: { old, new in
                // Swift's `==` on text follows canonical equivalence; the store, and Strata, compare bytes:
                // an edit that only changed a text's normalization is a new value to deliver.
                guard old == new else { return false }
                guard let old, let new else { return true }
                let before = FieldEncoder.collect(old)
                let after = FieldEncoder.collect(new)
                return zip(before.values, after.values).allSatisfy { $0.isIdentical(to: $1) }
                    && before.relationships == after.relationships
                    && before.derivedValues == after.derivedValues
            },
            fetch: { _, _, connection, store in
                _ = try store.entity(E.self)
                return try connection.fetchExisting(id, store: store)
            })
        return ObjectPublisher(core: core)
    }

    /// The snapshots of one object over time; see ``ObjectPublisher``.
    public func objectPublisher<E: Entity>(_ object: E) -> ObjectPublisher<E> {
        objectPublisher(object.id)
    }

    /// The snapshots of one object, yielded only when one of `fields` changes, with the fields that did;
    /// see ``ObjectFieldsPublisher``. Fields are stored fields, to-many relationships or derived fields.
    public func objectPublisher<E: Entity>(_ id: EntityID<E>, fields: PartialKeyPath<E>...) -> ObjectFieldsPublisher<E> {
        let entity = E.entityDescription
        var names: [String] = []
        var positions: [(name: String, kind: Int, index: Int)] = []
        var invalid: StrataError?
        for keyPath in fields {
            switch E.member(for: keyPath) {
            case .field(let index): positions.append((entity.fields[index].property, 0, index))
            case .toMany(let index): positions.append((entity.toMany[index].property, 1, index))
            case .derived(let index): positions.append((entity.derived[index].property, 2, index))
            default:
                // A virtual (computed) property never changes in the store: observing it would never
                // yield. The first `next()` throws instead.
                if invalid == nil {
                    let reason: StrataError? = if case .failure(let error) = ColumnResolver.column(for: keyPath) { error } else { nil }
                    invalid = StrataError(
                        .unsupportedQuery,
                        "objectPublisher(_:fields:) observes stored fields, to-many relationships and derived fields of "
                            + "\(E.self)" + (reason.map { ": \($0.message)" } ?? "; \(keyPath) is none of these."),
                        entity: entity.name)
                }
                continue
            }
            names.append(positions[positions.count - 1].name)
        }
        let observed = Set(names)
        let watched = positions
        let failure = invalid
        let stores = self.stores
        // The observed fields whose stored values differ between two versions of the object.
        let fieldsChanged: @Sendable (E, E) -> Set<String> = { before, object in
            let old = FieldEncoder.collect(before)
            let new = FieldEncoder.collect(object)
            var changed: Set<String> = []
            for (name, kind, index) in watched {
                let differs = switch kind {
                case 0: !old.values[index].isIdentical(to: new.values[index])
                case 1: old.relationships[index] != new.relationships[index]
                default: old.derivedValues[index] != new.derivedValues[index]
                }
                if differs { changed.insert(name) }
            }
            return changed
        }
        // The core holds the object as read; each iterator counts changed fields from what it delivered.
        let core = ObservationCore<E?>(
            center: observation, readers: readers, stores: { stores.current },
            isRelevant: { changes in
                guard !changes.isUnknown else { return true }
                let entity = changes.changes(for: E.self)
                if entity.deleted.contains(id.rawValue) { return true }
                return !(entity.updated[id.rawValue] ?? []).isDisjoint(with: observed)
            },
            isDuplicate: { old, new in
                guard let old, let new else { return (old == nil) == (new == nil) }
                return fieldsChanged(old, new).isEmpty
            },
            fetch: { _, _, connection, store in
                if let failure { throw failure }
                _ = try store.entity(E.self)
                return try connection.fetchExisting(id, store: store)
            })
        return ObjectFieldsPublisher(core: core, fieldsChanged: fieldsChanged)
    }

    /// The number of objects that match, over time; see ``CountPublisher``.
    public func countPublisher<E: Entity>(_ from: From<E>) -> CountPublisher<E> {
        let store = self.store
        var dependencies: Set<String> = [E.entityDescription.name]
        if let predicate = from.predicate {
            dependencies.formUnion(predicate.expression.dependencies(graph: store.graph))
        }
        let watched = dependencies
        let stores = self.stores
        let core = ObservationCore<Int>(
            center: observation, readers: readers, stores: { stores.current },
            isRelevant: { $0.touches(watched) },
            isDuplicate: { $0 == $1 },
            fetch: { _, _, connection, store in try connection.fetchCount(from, store: store) })
        return CountPublisher(core: core)
    }

    /// A list over time, in sections, with diffs; see ``ListPublisher``.
    public func listPublisher<E: Entity>(_ from: From<E>) -> ListPublisher<E> {
        let store = self.store
        let engine = ListEngine(from: from, graph: store.graph)
        let dependencies = engine.dependencies
        let stores = self.stores
        let log = writer.commitLog
        let core = ObservationCore<ListSnapshot<E>>(
            center: observation, readers: readers, stores: { stores.current },
            isRelevant: { $0.touches(dependencies) },
            // Equal objects with a non-empty diff carry changed prefetched objects: not a duplicate.
            isDuplicate: { old, new in old == new && !new.carriesRelatedChanges },
            fetch: { previous, changes, connection, store in
                _ = try store.entity(E.self)
                return try engine.snapshot(previous: previous, changes: changes, log: log, connection: connection, store: store)
            })
        return ListPublisher(core: core, engine: engine)
    }

    /// How many observations are active now: publishers being iterated (however many consumers
    /// share one) and live ``changes()`` streams.
    ///
    /// A publisher stops being active as soon as its last iteration ends: when the consuming loop
    /// returns or breaks, or its task is cancelled (a server's handler whose client disconnected).
    /// A server can report it, or a test check with it that disconnected clients released what
    /// they observed.
    public var activeObservations: Int { observation.activeCount }
}
