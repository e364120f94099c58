/// Reads from one consistent state of the store.
///
/// You get a `ReadContext` inside ``DataStack/read(_:)``, where every fetch sees the same committed
/// state even while writes commit, and as the base of ``Transaction``, where fetches also see the
/// transaction's own uncommitted changes. A context is only valid inside the closure that received
/// it; it is not `Sendable`, so it cannot leave it.
public class ReadContext {
    let connection: Connection
    let store: StoreContext
    var isOpen = true

    init(connection: Connection, store: StoreContext) {
        self.connection = connection
        self.store = store
    }

    func checkOpen() throws(StrataError) {
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
        return try connection.fetchAll(from.limit(1), store: store).first
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
