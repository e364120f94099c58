/// Fetching, shared by read contexts and transactions.
extension Connection {
    func fetchAll<E: Entity>(_ from: From<E>, store: StoreContext) throws -> [E] {
        _ = try store.entity(E.self)
        guard store.isPartitioned || from.configurations != nil else {
            return try fetchAll(from, query: store.builder.select(from), prefetching: store)
        }
        let stores = try store.stores(for: E.entityDescription.name, scope: from.configurations)
        guard stores.count == 1 else {
            // Several stores, one statement: each row carries its store's tag.
            return try fetchAll(from, query: QueryBuilder.select(from, across: stores.map(\.branch)), prefetching: store)
        }
        return try withStore(stores[0]) { () throws -> [E] in
            try fetchAll(from, query: stores[0].builder.select(from), prefetching: store)
        }
    }

    /// Runs `body` with the IDs read on this connection tagged as `store`'s: the store a routed access
    /// of a stack of several stores reads or writes.
    func withStore<T, Failure: Error>(_ store: StoreContext, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        guard store.tag != 0, store.tag != storeTag else { return try body() }
        let saved = storeTag
        storeTag = store.tag
        defer { storeTag = saved }
        return try body()
    }

    /// Runs the select of `from` and decodes its rows; prefetched objects are found through `main`.
    private func fetchAll<E: Entity>(_ from: From<E>, query: SQLQuery, prefetching main: StoreContext) throws -> [E] {
        try main.checkIDs(query, connectionTag: storeTag)
        let statement = try cachedStatement(query.sql)
        statement.tagColumn = query.tagColumn
        // Reset on every path, so that no statement keeps a read transaction open after an error.
        defer { statement.reset() }
        try statement.bind(query.bindings)
        var objects: [E]
        do {
            objects = try E.decodeAll(RowSequence(statement: statement))
        } catch let error as StrataError {
            throw error.with(entity: E.entityDescription.name)
        }
        if !from.prefetches.isEmpty {
            try from.loadPrefetched(&objects, connection: self, store: main)
        }
        return objects
    }

    func fetchCount<E: Entity>(_ from: From<E>, store: StoreContext) throws(StrataError) -> Int {
        _ = try store.entity(E.self)
        let query: SQLQuery
        if store.isPartitioned || from.configurations != nil {
            let stores = try store.stores(for: E.entityDescription.name, scope: from.configurations)
            query = stores.count == 1 ? try stores[0].builder.count(from) : try QueryBuilder.count(from, across: stores.map(\.branch))
        } else {
            query = try store.builder.count(from)
        }
        try store.checkIDs(query, connectionTag: storeTag)
        let statement = try cachedStatement(query.sql)
        defer { statement.reset() }
        try statement.bind(query.bindings)
        guard try statement.step(), case .integer(let count) = statement.value(at: 0) else { return 0 }
        return Int(count)
    }

    func fetchIDs<E: Entity>(_ from: From<E>, store: StoreContext) throws(StrataError) -> [EntityID<E>] {
        _ = try store.entity(E.self)
        var query: SQLQuery
        var tag = storeTag
        if store.isPartitioned || from.configurations != nil {
            let stores = try store.stores(for: E.entityDescription.name, scope: from.configurations)
            if stores.count == 1 {
                query = try stores[0].builder.select(from, idOnly: true)
                if stores[0].tag != 0 { tag = stores[0].tag }
            } else {
                query = try QueryBuilder.select(from, across: stores.map(\.branch), idOnly: true)
            }
        } else {
            query = try store.builder.select(from, idOnly: true)
        }
        try store.checkIDs(query, connectionTag: storeTag)
        let statement = try cachedStatement(query.sql)
        defer { statement.reset() }
        try statement.bind(query.bindings)
        var ids: [EntityID<E>] = []
        while try statement.step() {
            if query.tagColumn >= 0, case .integer(let rowTag) = statement.value(at: query.tagColumn) {
                tag = UInt32(truncatingIfNeeded: rowTag)
            }
            if case .integer(let id) = statement.value(at: 0) { ids.append(EntityID(rawValue: id, storeTag: tag)) }
        }
        return ids
    }

    /// The store of a stack of several that holds the object `id` names: the store its tag names, or
    /// for an ID made from a row ID, the one store holding the entity that has that row (`nil`: none).
    func storeHolding<E: Entity>(_ id: EntityID<E>, store main: StoreContext) throws(StrataError) -> StoreContext? {
        let name = E.entityDescription.name
        if id.storeTag != 0 {
            guard let store = main.store(tagged: id.storeTag) else {
                try checkOwn(id)
                return nil
            }
            return store.storeEntities.contains(name) ? store : nil
        }
        let holding = main.stores(holding: name)
        guard holding.count > 1 else { return holding.first }
        for store in holding {
            let statement = try cachedStatement(store.builder.exists(table: name))
            defer { statement.reset() }
            try statement.bind(.integer(id.rawValue), at: 1)
            if try statement.step() { return store }
        }
        return nil
    }

    /// Refuses an ID that another store handed out (see `EntityID`).
    func checkOwn<E: Entity>(_ id: EntityID<E>) throws(StrataError) {
        guard id.belongs(toStoreTagged: storeTag) else {
            throw StrataError(
                .invalidArgument,
                "\(id) comes from another store: IDs act only on the store they were read from (another stack, "
                    + "or an in-memory store of its own). Look the object up in this store, or make the ID with "
                    + "EntityID(rawValue:) if you mean this store's row with that number.",
                entity: E.entityDescription.name)
        }
    }

    func fetchExisting<E: Entity>(_ id: EntityID<E>, store: StoreContext) throws -> E? {
        if store.isPartitioned {
            guard let target = try storeHolding(id, store: store) else { return nil }
            return try withStore(target) { () throws -> E? in try fetchExistingIn(id, store: target) }
        }
        return try fetchExistingIn(id, store: store)
    }

    private func fetchExistingIn<E: Entity>(_ id: EntityID<E>, store: StoreContext) throws -> E? {
        try checkOwn(id)
        let entity = try store.entity(E.self)
        let statement = try statement(entity.selectByID)
        defer { statement.resetKeepingBindings() }
        try statement.bind(.integer(id.rawValue), at: 1)
        guard try statement.step() else { return nil }
        do {
            return try E(row: Row(statement: statement))
        } catch let error as StrataError {
            throw error.with(entity: entity.description.name)
        }
    }

    /// The SQL of a query: in its one store, or across several.
    private func querySQL<E: Entity, R>(_ query: Query<E, R>, store: StoreContext) throws(StrataError) -> SQLQuery {
        _ = try store.entity(E.self)
        guard store.isPartitioned || query.from.configurations != nil else { return try store.builder.select(query) }
        let stores = try store.stores(for: E.entityDescription.name, scope: query.from.configurations)
        if stores.count == 1 { return try stores[0].builder.select(query) }
        return try QueryBuilder.select(query, across: stores.map(\.branch))
    }

    /// The SQL of a query, checked for IDs of other stores.
    private func checkedSQL<E: Entity, R>(_ query: Query<E, R>, store: StoreContext) throws(StrataError) -> SQLQuery {
        let sql = try querySQL(query, store: store)
        try store.checkIDs(sql, connectionTag: storeTag)
        return sql
    }

    func queryRows<E: Entity, R>(_ query: Query<E, R>, store: StoreContext) throws(StrataError) -> [QueryRow] {
        let sql = try checkedSQL(query, store: store)
        let statement = try cachedStatement(sql.sql)
        defer { statement.reset() }
        try statement.bind(sql.bindings)
        let keys = query.terms.map(\.key)
        var seen: Set<String> = []
        for key in keys where !seen.insert(key).inserted {
            throw StrataError(
                .invalidArgument,
                "Two select terms have the key \"\(key)\", so a row could hold only one of their values; give one "
                    + "an alias (as: \"...\").",
                entity: E.entityDescription.name)
        }
        var rows: [QueryRow] = []
        while try statement.step() {
            var values: [String: DatabaseValue] = [:]
            for (index, key) in keys.enumerated() {
                values[key] = statement.value(at: Int32(index))
            }
            rows.append(QueryRow(values: values))
        }
        return rows
    }

    func queryValue<E: Entity, T: DatabaseValueConvertible>(_ query: Query<E, T>, store: StoreContext) throws(StrataError) -> T? {
        let sql = try checkedSQL(query, store: store)
        let statement = try cachedStatement(sql.sql)
        defer { statement.reset() }
        try statement.bind(sql.bindings)
        guard try statement.step() else { return nil }
        let value = statement.value(at: 0)
        if value.isNull { return nil }
        guard let typed = T(databaseValue: value) else {
            throw StrataError(
                .typeMismatch, "The query's value \(value) cannot be read as \(T.self); select another type.",
                sql: sql.sql, entity: E.entityDescription.name
            ).hidingValues("The query's value, \(value.kindDescription), cannot be read as \(T.self); select another type.")
        }
        return typed
    }

    func fetchID<E: Entity>(_ from: From<E>, store: StoreContext) throws(StrataError) -> EntityID<E>? {
        try fetchIDs(from.firstOnly, store: store).first
    }

    func fetchExisting<E: Entity, S: Sequence>(ids: S, store: StoreContext) throws -> [E] where S.Element == EntityID<E> {
        let wanted = Array(ids)
        let found = try fetchExistingByID(wanted, store: store)
        return wanted.compactMap { found[$0] }
    }

    /// The objects that still exist among `ids`, by ID: one query per chunk of IDs, never one per object.
    func fetchExistingByID<E: Entity, C: Collection>(_ ids: C, store: StoreContext) throws -> [EntityID<E>: E]
    where C.Element == EntityID<E> {
        guard store.isPartitioned else { return try fetchExistingByIDIn(Array(ids), store: store) }
        let wanted = Array(ids)
        for id in wanted where id.storeTag != 0 && store.store(tagged: id.storeTag) == nil { try checkOwn(id) }
        var found: [EntityID<E>: E] = [:]
        for target in store.stores(holding: E.entityDescription.name) {
            let mine = wanted.filter { $0.storeTag == 0 || $0.storeTag == target.tag }
            guard !mine.isEmpty else { continue }
            let part = try withStore(target) { () throws -> [EntityID<E>: E] in try fetchExistingByIDIn(mine, store: target) }
            found.merge(part) { first, _ in first }
        }
        return found
    }

    private func fetchExistingByIDIn<E: Entity>(_ wanted: [EntityID<E>], store: StoreContext) throws -> [EntityID<E>: E] {
        for id in wanted { try checkOwn(id) }
        var found: [EntityID<E>: E] = [:]
        for start in stride(from: 0, to: wanted.count, by: 500) {
            let chunk = wanted[start..<min(start + 500, wanted.count)]
            for object in try fetchAll(From<E>().where(.ids(chunk.map(\.rawValue))), store: store) {
                found[object.id] = object
            }
        }
        return found
    }
}
