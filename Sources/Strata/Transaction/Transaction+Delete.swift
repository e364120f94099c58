/// Deleting objects: one, several, or every object a query matches, with the delete rules of their
/// relationships.
extension Transaction {
    /// Deletes an object. Deleting an object that no longer exists does nothing.
    public func delete<E: Entity>(_ object: E) throws {
        try delete(object.id)
    }

    /// Deletes the object with this ID, applying the delete rules of its relationships. Deleting an
    /// object that no longer exists does nothing.
    ///
    /// - Throws: ``StrataError/Code/deleteDenied`` when a relationship with the ``DeleteRule/deny`` rule
    ///   still holds objects.
    public func delete<E: Entity>(_ id: EntityID<E>) throws {
        try checkOpen()
        if let target = try routed(id) { return try inStore(target) { try delete(id) } }
        try connection.checkOwn(id)
        let entity = try store.entity(E.self)
        let name = entity.description.name
        if store.hasRelationships(name) {
            try deleteWithRules(name, [id.rawValue])
            return
        }
        let kept = try preservedValues(name, id.rawValue)
        let statement = try connection.statement(entity.deleteByID)
        try statement.bind(.integer(id.rawValue), at: 1)
        do {
            while try statement.step() {}
        } catch {
            throw describeConstraint(error, entity: entity.description)
        }
        if connection.changes > 0 {
            recordDelete(entity: name, id: id.rawValue, preserving: kept)
        }
    }

    /// Deletes several objects, all or none: when a ``DeleteRule/deny`` rule refuses one, or another
    /// error stops the call, none is deleted (the transaction goes on if you catch the error).
    public func delete<S: Sequence>(_ objects: S) throws where S.Element: Entity {
        try checkOpen()
        try atomically { for object in objects { try delete(object.id) } }
    }

    /// Deletes the objects with these IDs, all or none: when a ``DeleteRule/deny`` rule refuses one, or
    /// another error stops the call, none is deleted (the transaction goes on if you catch the error).
    public func delete<E: Entity, S: Sequence>(ids: S) throws where S.Element == EntityID<E> {
        try checkOpen()
        try atomically { for id in ids { try delete(id) } }
    }

    /// Deletes every object that matches and returns how many were deleted. A limit and an offset
    /// (``From/tweak(_:)``) choose which objects, in the fetch's order, as for ``ReadContext/fetchAll(_:)``.
    ///
    /// All or none, over every store the query reads: when a ``DeleteRule/deny`` rule refuses one
    /// object, in any of the stores, or another error stops the call, none is deleted (the transaction
    /// goes on if you catch the error).
    ///
    /// - Throws: ``StrataError/Code/deleteDenied`` when a relationship with the ``DeleteRule/deny`` rule
    ///   still holds objects; ``StrataError/Code/invalidArgument`` for a negative limit or offset.
    @discardableResult
    public func deleteAll<E: Entity>(_ from: From<E>) throws -> Int {
        try checkOpen()
        try from.validate()
        if store === stack, stack.isPartitioned || from.configurations != nil {
            let stores = try stack.stores(for: E.entityDescription.name, scope: from.configurations)
            guard stores.count == 1 else {
                guard from.limit == nil, from.offset == nil else {
                    throw StrataError(
                        .unsupportedQuery,
                        "deleteAll with a limit or an offset reads one store: name its configuration, as in From<\(E.self)>(\"Name\").",
                        entity: E.entityDescription.name)
                }
                // Each store checks its own deny rules: a later store's refusal undoes the earlier ones'.
                return try atomically {
                    var count = 0
                    for target in stores { count += try inStore(target) { try deleteAllInStore(from.unscoped()) } }
                    return count
                }
            }
            return try atomically { try inStore(stores[0]) { try deleteAllInStore(from.unscoped()) } }
        }
        return try atomically { try deleteAllInStore(from) }
    }

    /// Deletes every object of the current store that matches.
    private func deleteAllInStore<E: Entity>(_ from: From<E>) throws -> Int {
        let entity = try store.entity(E.self)
        if store.hasRelationships(entity.description.name) {
            let ids = try connection.fetchIDs(from, store: store)
            try deleteWithRules(entity.description.name, ids.map(\.rawValue))
            return ids.count
        }
        if preserved[entity.description.name] != nil || from.limit != nil || from.offset != nil {
            // Row by row: so that each row's preserved values are read before it goes, or so that a
            // limit and an offset pick the rows in the fetch's order (SQLite's DELETE has neither).
            let ids = try connection.fetchIDs(from, store: store)
            for id in ids { try delete(id) }
            return ids.count
        }
        let query = try store.builder.delete(from)
        try stack.checkIDs(query, connectionTag: connection.storeTag)
        let statement = try connection.cachedStatement(query.sql)
        try statement.bind(query.bindings)
        var deleted: [Int64] = []
        do {
            while try statement.step() {
                if case .integer(let id) = statement.value(at: 0) { deleted.append(id) }
            }
        } catch {
            throw describeConstraint(error, entity: entity.description)
        }
        for id in deleted {
            recordDelete(entity: entity.description.name, id: id)
        }
        return deleted.count
    }
}
