/// Reads from one consistent state of the store.
///
/// You get a `ReadContext` inside ``DataStack/read(_:)``, where every fetch sees the same committed
/// state even while writes commit, and as the base of ``Transaction``, where fetches also see the
/// transaction's own uncommitted changes. A context is only valid inside the closure that received
/// it; it is not `Sendable`, so it cannot leave it.
public class ReadContext {
    let connection: Connection
    /// The store the running operation acts on: the stack's main store, or in a stack of several
    /// stores, the one a write was routed to while it runs (see ``inStore(_:_:)``).
    private(set) var store: StoreContext
    /// The stack's main store, which knows every store.
    let stack: StoreContext
    var isOpen = true
    /// The store the last unscoped creation of an entity went to: a run of creations looks it up once.
    /// A transaction shares the writer's, so a run of one-row transactions looks it up once too; a read
    /// context, which creates nothing, has none.
    private let routes: RouteMemo?

    init(connection: Connection, store: StoreContext, routes: RouteMemo? = nil) {
        self.connection = connection
        self.store = store
        self.stack = store
        self.routes = routes
    }

    /// Runs `body` acting on `target`: its statements name the target's tables and the IDs it reads
    /// and accepts are the target's. In a transaction, the target store's write lock is taken first.
    func inStore<T>(_ target: StoreContext, _ body: () throws -> T) throws -> T {
        try willWrite(to: target)
        let saved = store
        store = target
        defer { store = saved }
        return try connection.withStore(target) { () throws -> T in try body() }
    }

    /// Runs code of the caller's (a closure given to a write, an importable entity's methods) as the
    /// stack's own context again while a write routed to one store runs: its reads see every store, and
    /// its writes are routed as any other, with their IDs, locks and history in their own stores.
    func asCaller<T>(_ body: () throws -> T) throws -> T {
        guard store !== stack else { return try body() }
        let saved = (store: store, tag: connection.storeTag)
        store = stack
        connection.storeTag = stack.tag
        defer {
            store = saved.store
            connection.storeTag = saved.tag
        }
        return try body()
    }

    /// The store a write of a new object of `E` goes to when it is not the current one: the stack's
    /// store of `into`'s configuration. `nil` while a routed write runs (it stays in its store), and,
    /// with `stayingInMain`, when the target is the main database: a write that looks objects up by
    /// ID only (create, edit, delete) runs there on the stack's own context, without a detour.
    func routed<E: Entity>(_ into: Into<E>, stayingInMain: Bool = false) throws(StrataError) -> StoreContext? {
        guard store === stack, stack.isPartitioned || into.isScoped else { return nil }
        let target: StoreContext
        if !into.isScoped, let last = routes?.last, last.entity == ObjectIdentifier(E.self), last.stack === stack {
            target = last.store
        } else {
            target = try stack.store(for: into)
            if !into.isScoped { routes?.last = (ObjectIdentifier(E.self), stack, target) }
        }
        if target === store || (stayingInMain && target.builder.schemaName == nil) {
            try willWrite(to: target)
            return nil
        }
        return target
    }

    /// Called before a write goes to `target` (a transaction locks it); nothing in a read context.
    func willWrite(to target: StoreContext) throws(StrataError) {}

    /// The store a write of the object `id` goes to when it is not the current one (`nil` while a
    /// routed write runs, or when it is the main database). An ID that no store holds goes to the first
    /// store holding its entity, where it is not found either.
    func routed<E: Entity>(_ id: EntityID<E>) throws(StrataError) -> StoreContext? {
        guard store === stack, stack.isPartitioned else { return nil }
        var target = try connection.storeHolding(id, store: stack)
        if target == nil { target = try stack.stores(for: E.entityDescription.name, scope: nil)[0] }
        guard let target, target !== store, target.builder.schemaName != nil else {
            if let target { try willWrite(to: target) }
            return nil
        }
        return target
    }

    func checkOpen() throws(StrataError) {
        // A statement error SQLite answered by rolling the whole transaction back (an interrupt, an I/O
        // error): a closure that caught it must not go on writing in autocommit, outside any transaction.
        if let lost = connection.lostWrite { throw lost }
        guard isOpen else {
            throw StrataError(
                .transactionClosed,
                "This transaction or read context has ended; use the one passed to the current closure.")
        }
    }

    /// Every object that matches, in the requested order.
    public func fetchAll<E: Entity>(_ from: From<E>) throws -> [E] {
        try checkOpen()
        return try connection.fetchAll(from, store: store)
    }

    /// The first object that matches, or `nil`.
    public func fetchOne<E: Entity>(_ from: From<E>) throws -> E? {
        try checkOpen()
        return try connection.fetchAll(from.firstOnly, store: store).first
    }

    /// The number of objects that match.
    public func fetchCount<E: Entity>(_ from: From<E>) throws -> Int {
        try checkOpen()
        return try connection.fetchCount(from, store: store)
    }

    /// The IDs of the objects that match, in the requested order.
    public func fetchIDs<E: Entity>(_ from: From<E>) throws -> [EntityID<E>] {
        try checkOpen()
        return try connection.fetchIDs(from, store: store)
    }

    /// The ID of the first object that matches, or `nil`.
    public func fetchID<E: Entity>(_ from: From<E>) throws -> EntityID<E>? {
        try checkOpen()
        return try connection.fetchID(from, store: store)
    }

    /// The value of a one-value query (an aggregate, or a field of the first matching row); `nil` when
    /// no row matches or the value is `NULL`.
    public func queryValue<E: Entity, T: DatabaseValueConvertible>(_ query: Query<E, T>) throws -> T? {
        try checkOpen()
        return try connection.queryValue(query, store: store)
    }

    /// The rows of an attributes query, each value under its term's key.
    public func queryAttributes<E: Entity>(_ query: Query<E, QueryRow>) throws -> [QueryRow] {
        try checkOpen()
        return try connection.queryRows(query, store: store)
    }

    /// The object with this ID, or `nil` when it does not exist (any more).
    public func fetchExisting<E: Entity>(_ id: EntityID<E>) throws -> E? {
        try checkOpen()
        return try connection.fetchExisting(id, store: store)
    }

    /// The objects with these IDs, in the order given, skipping those that do not exist; read in one
    /// query per 500 IDs, so loading the related objects of a whole list never costs a query per object.
    public func fetchExisting<E: Entity, S: Sequence>(_ ids: S) throws -> [E] where S.Element == EntityID<E> {
        try checkOpen()
        return try connection.fetchExisting(ids: ids, store: store)
    }

    /// The current stored version of an object, or `nil` when it was deleted.
    public func fetchExisting<E: Entity>(_ object: E) throws -> E? {
        try fetchExisting(object.id)
    }
}

@available(*, unavailable)
extension ReadContext: Sendable {}
