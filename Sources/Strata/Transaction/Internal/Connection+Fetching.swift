/// Fetching, shared by read contexts and transactions.
extension Connection {
    func fetchAll<E: Entity>(_ from: From<E>, store: StoreContext) throws -> [E] {
        let entity = try store.entity(E.self)
        let query = try store.builder.select(from)
        let statement = try cachedStatement(query.sql)
        try statement.bind(query.bindings)
        var objects: [E] = []
        let row = Row(statement: statement)
        do {
            while try statement.step() {
                objects.append(try E(row: row))
            }
        } catch let error as StrataError {
            throw error.with(entity: entity.description.name)
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
        let query = try store.builder.select(from, columns: store.builder.dialect.quote("id"))
        let statement = try cachedStatement(query.sql)
        try statement.bind(query.bindings)
        var ids: [EntityID<E>] = []
        while try statement.step() {
            if case .integer(let id) = statement.value(at: 0) { ids.append(EntityID(rawValue: id)) }
        }
        return ids
    }

    func fetchExisting<E: Entity>(_ id: EntityID<E>, store: StoreContext) throws -> E? {
        let entity = try store.entity(E.self)
        let statement = try cachedStatement(entity.selectByID)
        try statement.bind(.integer(id.rawValue), at: 1)
        guard try statement.step() else { return nil }
        do {
            let object = try E(row: Row(statement: statement))
            statement.reset()
            return object
        } catch let error as StrataError {
            statement.reset()
            throw error.with(entity: entity.description.name)
        }
    }
}
