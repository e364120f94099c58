/// Importing: objects made from sources of your choosing, plain or by a unique key.
extension Transaction {
    /// Keys looked up per query when an import or an upsert finds the objects that already exist.
    static let importLookupChunk = 500

    /// The commit's changes so far: the objects created, updated and deleted, as the commit's
    /// ``ChangeSet`` will hold them. Return it from ``DataStack/perform(_:)`` to hand it back.
    public var changeSet: ChangeSet { allChanges }

    // MARK: Plain imports

    /// Imports one object from `source`: creates it unless ``ImportableObject/shouldInsert(from:in:)``
    /// says no; returns it, or `nil` when skipped.
    ///
    /// - Throws: ``ImportError`` (source index 0) wrapping what went wrong.
    @discardableResult
    public func importObject<E: ImportableObject>(_ into: Into<E>, from source: E.ImportSource) throws -> E? {
        try importObjects(into, from: CollectionOfOne(source)).objects.first
    }

    /// Imports an object from each source, in order, skipping those ``ImportableObject/shouldInsert(from:in:)``
    /// refuses.
    ///
    /// - Throws: ``ImportError`` naming the index of the source that failed; nothing the call wrote is
    ///   kept (the call applies all its sources or none, also when the error is caught).
    @discardableResult
    public func importObjects<E: ImportableObject, S: Sequence>(_ into: Into<E>, from sources: S) throws -> ImportResult<E>
    where S.Element == E.ImportSource {
        try checkOpen()
        if let target = try routed(into) { return try inStore(target) { try importObjects(into, from: sources) } }
        return try atomically {
            var result = ImportResult<E>()
            var index = -1
            for source in sources {
                index += 1
                try importing(E.self, index) {
                    guard try asCaller({ try E.shouldInsert(from: source, in: self) }) else {
                        result.skipped += 1
                        return
                    }
                    let object = try create(into) { try $0.didInsert(from: source, in: self) }
                    result.objects.append(object)
                    result.insertedIDs.append(object.id)
                }
            }
            return result
        }
    }

    // MARK: Unique imports

    /// Imports one source by its key: updates the object with that key, or creates one; returns it, or
    /// `nil` when skipped.
    ///
    /// - Throws: ``ImportError`` (source index 0) wrapping what went wrong.
    @discardableResult
    public func importUniqueObject<E: ImportableUniqueObject>(_ into: Into<E>, from source: E.ImportSource) throws -> E? {
        try importUniqueObjects(into, from: CollectionOfOne(source)).objects.first
    }

    /// Imports each source by its key: the objects that exist are found a few hundred keys per query,
    /// then each source updates its object or creates one, in source order. When several sources name
    /// the same key, only the last one is applied (the others count as ``ImportResult/superseded``).
    ///
    /// - Throws: ``ImportError`` naming the index of the source that failed; nothing the call wrote is
    ///   kept (the call applies all its sources or none, also when the error is caught).
    ///   ``StrataError/Code/invalidArgument`` when ``ImportableUniqueObject/uniqueIDKeyPath`` is not a
    ///   field declared `@Field(.unique)`.
    @discardableResult
    public func importUniqueObjects<E: ImportableUniqueObject, S: Sequence>(_ into: Into<E>, from sources: S) throws
        -> ImportResult<E> where S.Element == E.ImportSource
    {
        try checkOpen()
        if let target = try routed(into) { return try inStore(target) { try importUniqueObjects(into, from: sources) } }
        return try atomically {
            let entity = try store.entity(E.self)
            try requireUniqueField(E.uniqueIDKeyPath, entity)
            var result = ImportResult<E>()
            // Every source's key; the last source of each key wins. Keys are hashed as `DatabaseValue`s, a
            // concrete type, rather than through the generic key type's witnesses, and the keyed sources are
            // kept in parallel arrays (a tuple of generic types would need its metadata and witnesses on
            // every access).
            var positions: [Int] = []
            var keys: [E.UniqueID] = []
            var keyedSources: [E.ImportSource] = []
            var winner: [DatabaseValue: Int] = [:]
            winner.reserveCapacity(sources.underestimatedCount)
            var index = 0
            for source in sources {
                defer { index += 1 }
                let key = try importing(E.self, index) { try asCaller { try E.uniqueID(from: source, in: self) } }
                // A nil key, or an optional key that is nil (stored as NULL, which names no object:
                // looked up, it would match every object without a key), skips the source.
                let value = key?.databaseValue ?? .null
                guard let key, value != .null else {
                    result.skipped += 1
                    continue
                }
                if case .real(let number) = value, number.isNaN {
                    // No stored value equals NaN, and SQLite cannot bind it: the lookup would fail for every source.
                    try importing(E.self, index) { () throws -> Void in
                        throw StrataError(
                            .invalidArgument,
                            "The source's unique ID is NaN, which names no object and cannot be stored. Give it a number, "
                                + "or skip the source (return nil from uniqueID(from:in:)).",
                            entity: entity.description.name)
                    }
                }
                winner[value] = keys.count
                positions.append(index)
                keys.append(key)
                keyedSources.append(source)
            }
            result.superseded = keys.count - winner.count
            // The winning positions, and the stored object of each, found through `winner` (one lookup per
            // object found, none per source). Each key is applied once (the last source wins), so the
            // objects found are read, never written back.
            var wins = [Bool](repeating: false, count: keys.count)
            for position in winner.values { wins[position] = true }
            var existing = [E?](repeating: nil, count: keys.count)
            try existingObjects(E.self, keyPath: E.uniqueIDKeyPath, keys: winner, into: &existing)
            // The objects found are copies read before any source ran. The import code may write other
            // objects of `E` meanwhile (a nested import of a parent, say): the copies of the sources
            // after it are then read again before they are used, a window of positions at a time,
            // which starts at one position and doubles while no source writes to another object.
            let watch = ImportWatch(entity: entity.description.name)
            importWatches.append(watch)
            defer { importWatches.removeLast() }
            var freshThrough = keys.count
            var window = 1
            for position in keys.indices where wins[position] {
                if position >= freshThrough {
                    let end = min(position + window, keys.count)
                    var stale: [DatabaseValue: Int] = [:]
                    for later in position..<end where wins[later] { stale[keys[later].databaseValue] = later }
                    try existingObjects(E.self, keyPath: E.uniqueIDKeyPath, keys: stale, into: &existing)
                    freshThrough = end
                    window = min(window * 2, Self.importLookupChunk)
                }
                watch.touched.removeAll(keepingCapacity: true)
                let source = keyedSources[position]
                let own = try importing(E.self, positions[position]) { () -> Int64? in
                    if let current = existing[position] {
                        guard try asCaller({ try current.shouldUpdate(from: source, in: self) }) else {
                            result.skipped += 1
                            return current.id.rawValue
                        }
                        let (object, changed) = try edit(current: current, entity: entity) {
                            try $0.update(from: source, in: self)
                        }
                        result.objects.append(object)
                        if changed.isEmpty {
                            result.unchanged += 1
                        } else {
                            result.updated.append((object.id, changed))
                        }
                        return object.id.rawValue
                    } else {
                        guard try asCaller({ try E.shouldInsert(from: source, in: self) }) else {
                            result.skipped += 1
                            return nil
                        }
                        let object = try create(into) { object in
                            object[keyPath: E.uniqueIDKeyPath] = keys[position]
                            try object.didInsert(from: source, in: self)
                        }
                        result.objects.append(object)
                        result.insertedIDs.append(object.id)
                        return object.id.rawValue
                    }
                }
                if watch.touched.contains(where: { $0 != own }) {
                    freshThrough = position + 1
                    window = 1
                }
            }
            return result
        }
    }

    /// The IDs of the objects of `E` whose unique field `keyPath` holds one of `keys`, by key, found a
    /// few hundred keys per query: for resolving the keys other sources name (books naming their
    /// author's key) before or while importing them.
    ///
    /// ```swift
    /// let authors = try tx.uniqueIDs(Author.self, \.key, for: keys)
    /// let shared = try tx.uniqueIDs(Author.self, \.key, for: keys, in: From<Author>("Shared"))
    /// ```
    /// - Parameters:
    ///   - type: The entity.
    ///   - keyPath: Its unique field.
    ///   - keys: The keys to look up; keys no object holds are left out of the result.
    ///   - from: Where to look: every store that holds `E` by default; `From<E>("Config")` for the stores
    ///     of some configurations, and its filter, if any, narrows the objects further.
    /// - Throws: ``StrataError/Code/invalidArgument`` when `keyPath` is not a unique field, or when a
    ///   key is found in two of the stores read (a unique field is unique within each store: name one);
    ///   ``StrataError/Code/storeNotFound`` for a configuration the stack has no store of.
    public func uniqueIDs<E: Entity, Key: DatabaseValueConvertible & Hashable, S: Sequence>(
        _ type: E.Type, _ keyPath: KeyPath<E, Key>, for keys: S, in from: From<E> = From<E>()
    ) throws -> [Key: EntityID<E>] where S.Element == Key {
        try checkOpen()
        let entity = try store.entity(E.self)
        try requireUniqueField(keyPath, entity)
        // NULL names no object (an optional unique field lets many objects hold it): left out.
        let all = Array(Set(keys.map(\.databaseValue)).subtracting([.null]))
        let column = Where<E>.column(keyPath)
        var ids: [Key: EntityID<E>] = [:]
        var start = 0
        while start < all.count {
            let chunk = Array(all[start..<min(start + Self.importLookupChunk, all.count)])
            let query = from.where(Where<E>(.inList(column, chunk, negated: false)))
            for object in try connection.fetchAll(query, store: store) {
                let key = object[keyPath: keyPath]
                let id = object.id
                // An entity's IDs are unique across the stack's stores: another ID is another store's.
                if let other = ids[key], other != id {
                    if other.storeTag == id.storeTag {
                        // One store's unique index holds both: their keys differ in bytes, not in Swift.
                        let advice = "in Swift that differ in their Unicode normalization (the store compares bytes, Swift's "
                            + "== canonical equivalence), so a dictionary keyed by \(Key.self) cannot hold both. Look them up one "
                            + "at a time, or store the keys normalized (precomposedStringWithCanonicalMapping)."
                        throw StrataError(
                            .invalidArgument, "Two objects of \(entity.description.name) hold keys equal to \(key) " + advice,
                            entity: entity.description.name
                        ).hidingValues("Two objects of \(entity.description.name) hold equal keys " + advice)
                    }
                    let advice = "is in two stores (a unique field is unique within each store); look in one with "
                        + "uniqueIDs(…, in: From<\(entity.description.name)>(\"Config\"))."
                    throw StrataError(
                        .invalidArgument, "Key \(key) of \(entity.description.name) " + advice, entity: entity.description.name
                    ).hidingValues("A key of \(entity.description.name) " + advice)
                }
                ids[key] = id
            }
            start += Self.importLookupChunk
        }
        return ids
    }

    // MARK: Helpers

    /// Reads the objects of `E` whose field `keyPath` holds one of the keys of `positions` (stored values)
    /// into `found`, each at its key's position, `nil` where none holds it; a chunk of keys per query.
    func existingObjects<E: Entity, Key: DatabaseValueConvertible>(
        _ type: E.Type, keyPath: KeyPath<E, Key>, keys positions: [DatabaseValue: Int], into found: inout [E?]
    ) throws {
        for position in positions.values { found[position] = nil }
        let all = Array(positions.keys)
        let column = Where<E>.column(keyPath)
        var start = 0
        while start < all.count {
            let chunk = Array(all[start..<min(start + Self.importLookupChunk, all.count)])
            let filter = Where<E>(.inList(column, chunk, negated: false))
            for object in try connection.fetchAll(From<E>().where(filter), store: store) {
                if let position = positions[object[keyPath: keyPath].databaseValue] { found[position] = object }
            }
            start += Self.importLookupChunk
        }
    }

    /// Refuses a key path that is not a field declared unique.
    func requireUniqueField<E: Entity, Key>(_ keyPath: KeyPath<E, Key>, _ entity: StoreContext.EntitySQL) throws(StrataError) {
        guard case .field(let index) = E.member(for: keyPath), entity.description.fields[index].isUnique else {
            throw StrataError(
                .invalidArgument,
                "Importing \(entity.description.name) by key needs a field declared @Field(.unique) as the key; "
                    + "\(keyPath) is not one. Declare the field unique (a new schema version if the store exists).",
                entity: entity.description.name)
        }
    }

    /// Runs the work of source `index`, wrapping what it throws in an ``ImportError``; an import nested in
    /// the work (an entity's import code importing others) fails with its own `ImportError` inside this
    /// one, so the error names the caller's source first. A ``cancel()`` in the work is not the source's
    /// failure but the whole transaction's end: its ``StrataError/Code/transactionCancelled`` goes on as
    /// it is, so that ``DataStack/perform(_:)`` throws it, as `cancel()` says.
    func importing<E: Entity, T>(_ type: E.Type, _ index: Int, _ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as StrataError where error.code == .transactionCancelled {
            throw error
        } catch {
            throw ImportError(sourceIndex: index, entity: E.entityDescription.name, underlying: error)
        }
    }
}
