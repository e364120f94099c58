/// Fetching, shared by read contexts and transactions.
extension Connection {
    func fetchAll<E: Entity>(_ from: From<E>, store: StoreContext) throws -> [E] {
        let entity = try store.entity(E.self)
        let query = try store.builder.select(from)
        let statement = try cachedStatement(query.sql)
        // Reset on every path, so that no statement keeps a read transaction open after an error.
        defer { statement.reset() }
        try statement.bind(query.bindings)
        var objects: [E]
        do {
            objects = try E.decodeAll(RowSequence(statement: statement))
        } catch let error as StrataError {
            throw error.with(entity: entity.description.name)
        }
        if !from.prefetches.isEmpty {
            try from.loadPrefetched(&objects, connection: self, store: store)
        }
        return objects
    }

    func fetchCount<E: Entity>(_ from: From<E>, store: StoreContext) throws(StrataError) -> Int {
        _ = try store.entity(E.self)
        let query = try store.builder.count(from)
        let statement = try cachedStatement(query.sql)
        defer { statement.reset() }
        try statement.bind(query.bindings)
        guard try statement.step(), case .integer(let count) = statement.value(at: 0) else { return 0 }
        return Int(count)
    }

    func fetchIDs<E: Entity>(_ from: From<E>, store: StoreContext) throws(StrataError) -> [EntityID<E>] {
        _ = try store.entity(E.self)
        let query = try store.builder.select(from, idOnly: true)
        let statement = try cachedStatement(query.sql)
        defer { statement.reset() }
        try statement.bind(query.bindings)
        var ids: [EntityID<E>] = []
        while try statement.step() {
            if case .integer(let id) = statement.value(at: 0) { ids.append(EntityID(rawValue: id, storeTag: storeTag)) }
        }
        return ids
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

    func queryRows<E: Entity, R>(_ query: Query<E, R>, store: StoreContext) throws(StrataError) -> [QueryRow] {
        _ = try store.entity(E.self)
        let sql = try store.builder.select(query)
        let statement = try cachedStatement(sql.sql)
        defer { statement.reset() }
        try statement.bind(sql.bindings)
        let keys = query.terms.map(\.key)
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
        _ = try store.entity(E.self)
        let sql = try store.builder.select(query)
        let statement = try cachedStatement(sql.sql)
        defer { statement.reset() }
        try statement.bind(sql.bindings)
        guard try statement.step() else { return nil }
        let value = statement.value(at: 0)
        if value.isNull { return nil }
        guard let typed = T(databaseValue: value) else {
            throw StrataError(
                .typeMismatch, "The query's value \(value) cannot be read as \(T.self); select another type.",
                sql: sql.sql, entity: E.entityDescription.name)
        }
        return typed
    }

    func fetchID<E: Entity>(_ from: From<E>, store: StoreContext) throws(StrataError) -> EntityID<E>? {
        try fetchIDs(from.limit(1), store: store).first
    }

    func fetchExisting<E: Entity, S: Sequence>(ids: S, store: StoreContext) throws -> [E] where S.Element == EntityID<E> {
        let wanted = Array(ids)
        let found = try fetchExistingByID(wanted, store: store)
        return wanted.compactMap { found[$0] }
    }

    /// The objects that still exist among `ids`, by ID: one query per chunk of IDs, never one per object.
    func fetchExistingByID<E: Entity, C: Collection>(_ ids: C, store: StoreContext) throws -> [EntityID<E>: E]
    where C.Element == EntityID<E> {
        let wanted = Array(ids)
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
