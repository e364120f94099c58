/// Reading: fetches, queries and read transactions on the reader pool.
extension DataStack {
    /// Every object that matches, in the requested order.
    public func fetchAll<E: Entity>(_ from: From<E>) async throws -> [E] {
        let store = self.store
        return try await readers.read(entity: E.entityDescription.name, oneStore: store.readsOneStore(from)) {
            try $0.fetchAll(from, store: store)
        }
    }

    /// The first object that matches, or `nil`.
    public func fetchOne<E: Entity>(_ from: From<E>) async throws -> E? {
        let store = self.store
        return try await readers.read(entity: E.entityDescription.name, oneStore: store.readsOneStore(from)) {
            try $0.fetchAll(from.firstOnly, store: store).first
        }
    }

    /// The number of objects that match.
    public func fetchCount<E: Entity>(_ from: From<E>) async throws -> Int {
        let store = self.store
        return try await readers.read(entity: E.entityDescription.name, oneStore: store.readsOneStore(from)) {
            try $0.fetchCount(from, store: store)
        }
    }

    /// The IDs of the objects that match, in the requested order.
    public func fetchIDs<E: Entity>(_ from: From<E>) async throws -> [EntityID<E>] {
        let store = self.store
        return try await readers.read(entity: E.entityDescription.name, oneStore: store.readsOneStore(from)) {
            try $0.fetchIDs(from, store: store)
        }
    }

    /// The objects that match, delivered in batches of the fetch's ``Tweak/batchSize(_:)`` (256 unless
    /// set), all from one consistent read. See ``FetchBatches``.
    public func fetchBatches<E: Entity>(_ from: From<E>) -> FetchBatches<E> {
        let store = self.store
        let connectionTag = writer.storeTag
        let query = Result { () throws(StrataError) -> SQLQuery in
            _ = try store.entity(E.self)
            let query: SQLQuery
            if store.isPartitioned || from.configurations != nil {
                // Rows of several stores (or of an attached one) carry their store's tag in a column; the
                // one store of a stack that has no configurations is tagged as its connections are.
                let stores = try store.stores(for: E.entityDescription.name, scope: from.configurations)
                query = try QueryBuilder.select(
                    from, across: stores.map { QueryBuilder.Branch(builder: $0.builder, tag: $0.tag != 0 ? $0.tag : connectionTag) })
            } else {
                query = try store.builder.select(from)
            }
            try store.checkIDs(query, connectionTag: connectionTag)
            return query
        }
        var prefetch: (@Sendable (inout [E], Connection) throws -> Void)?
        if !from.prefetches.isEmpty {
            prefetch = { @Sendable objects, connection in
                try from.loadPrefetched(&objects, connection: connection, store: store)
            }
        }
        return FetchBatches(cursors: cursors, query: query, batchSize: from.batchSize ?? 256, prefetch: prefetch)
    }

    /// The ID of the first object that matches, or `nil`.
    public func fetchID<E: Entity>(_ from: From<E>) async throws -> EntityID<E>? {
        let store = self.store
        return try await readers.read(entity: E.entityDescription.name, oneStore: store.readsOneStore(from)) {
            try $0.fetchID(from, store: store)
        }
    }

    /// The value of a one-value query (an aggregate, or a field of the first matching row); `nil` when
    /// no row matches or the value is `NULL`.
    ///
    /// ```swift
    /// let average = try await stack.queryValue(From<Person>().select(Double.self, .average(\.age)))
    /// ```
    /// - Throws: ``StrataError/Code/typeMismatch`` when the value cannot be read as `T` (the maximum of a
    ///   text field asked for as an `Int`, say); it is never turned into `nil`, which would look like "no
    ///   row". ``queryAttributes(_:)`` rows, by contrast, give `nil` from `row[key, as: T.self]` for a
    ///   value not representable as `T`, and the raw ``DatabaseValue`` from `row[key]`.
    public func queryValue<E: Entity, T: DatabaseValueConvertible>(_ query: Query<E, T>) async throws -> T? {
        let store = self.store
        return try await readers.read(entity: E.entityDescription.name, oneStore: store.readsOneStore(query.from)) {
            try $0.queryValue(query, store: store)
        }
    }

    /// The rows of an attributes query, each value under its term's key.
    ///
    /// ```swift
    /// let rows = try await stack.queryAttributes(
    ///     From<Person>().select(.attribute(\.age), .count(\.id)).groupBy(\.age))
    /// let adults = rows.filter { $0["age", as: Int.self]! >= 18 }
    /// ```
    public func queryAttributes<E: Entity>(_ query: Query<E, QueryRow>) async throws -> [QueryRow] {
        let store = self.store
        return try await readers.read(entity: E.entityDescription.name, oneStore: store.readsOneStore(query.from)) {
            try $0.queryRows(query, store: store)
        }
    }

    /// The object with this ID, or `nil` when it does not exist (any more).
    public func fetchExisting<E: Entity>(_ id: EntityID<E>) async throws -> E? {
        let store = self.store
        return try await readers.read(entity: E.entityDescription.name, oneStore: true) {
            try $0.fetchExisting(id, store: store)
        }
    }

    /// The objects with these IDs, in the order given, skipping those that do not exist; read in one
    /// query per 500 IDs. Use it to load related objects: `stack.fetchExisting(person.pets)`, or for a
    /// whole list, `stack.fetchExisting(people.flatMap(\.pets))`.
    public func fetchExisting<E: Entity, S: Sequence>(_ ids: S) async throws -> [E] where S.Element == EntityID<E> {
        let store = self.store
        let ids = Array(ids)
        return try await readers.read(entity: E.entityDescription.name, oneStore: store.readsOneStore(From<E>())) {
            try $0.fetchExisting(ids: ids, store: store)
        }
    }

    /// The current stored version of an object, or `nil` when it was deleted.
    public func fetchExisting<E: Entity>(_ object: E) async throws -> E? {
        try await fetchExisting(object.id)
    }

    /// Runs several fetches on one consistent state of the store.
    ///
    /// ```swift
    /// let (people, count) = try await stack.read { r in
    ///     (try r.fetchAll(From<Person>()), try r.fetchCount(From<Pet>()))
    /// }
    /// ```
    /// The closure runs in one read transaction: commits that land while it runs are not seen by it. It
    /// runs on a reader's thread, inside the calling task: task-local values and `Task.isCancelled` are
    /// the caller's, and a cancelled task interrupts the statement that is running.
    public func read<T: Sendable>(_ body: @Sendable (ReadContext) throws -> T) async throws -> T {
        let store = self.store
        return try await readers.read { connection in
            let context = ReadContext(connection: connection, store: store)
            defer { context.isOpen = false }
            return try body(context)
        }
    }
}
