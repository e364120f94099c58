/// The entity a fetch reads from, and the clauses that narrow and order it.
///
/// Build a fetch by chaining clauses:
/// ```swift
/// let adults = try await stack.fetchAll(From<Person>().where(\.age >= 18).orderBy(.ascending(\.name)))
/// ```
/// A `From` is a plain `Sendable` value; key paths are resolved to columns when it is built, and a key
/// path that is not a stored field makes the fetch throw ``StrataError/Code/unsupportedQuery``.
public struct From<E: Entity>: Sendable {
    /// The filter; every object when `nil`.
    public private(set) var predicate: Where<E>?
    /// The order; unspecified when empty.
    public internal(set) var order: OrderBy<E>
    /// The maximum number of objects to fetch.
    public private(set) var limit: Int?
    /// The number of matching objects to skip.
    public private(set) var offset: Int?
    /// The number of objects per chunk when streaming with ``DataStack/fetchBatches(_:)``.
    public private(set) var batchSize: Int?
    /// How a list publisher groups objects into sections.
    public internal(set) var sections: SectionBy<E>?
    /// The to-one relationships whose objects are loaded with the fetched objects.
    var prefetches: [Prefetch<E>] = []
    /// The configurations whose stores the fetch reads (`nil` names the default configuration), or
    /// `nil` for every store of the stack that holds `E`.
    public private(set) var configurations: [String?]?

    /// Reads every object of entity `E`, in every store of the stack that holds it.
    public init() {
        order = OrderBy<E>()
    }

    /// Reads the objects of entity `E` in the stores of these configurations only (`nil` names the
    /// default configuration), in a stack of several stores (see ``Schema/configuration(_:_:)``).
    ///
    /// ```swift
    /// let cached = try await stack.fetchAll(From<Thumbnail>("Cache"))
    /// let both = try await stack.fetchCount(From<Note>(nil, "Shared"))
    /// ```
    /// Configurations whose store does not hold `E`, or that have no store in the stack, are skipped
    /// as long as one of those named holds `E` (as CoreStore does); when none does, or a name is not
    /// declared by the schema at all, the fetch throws ``StrataError/Code/storeNotFound``. The name `""`
    /// makes it throw ``StrataError/Code/invalidArgument``: the default configuration is `nil`.
    public init(_ configuration: String?, _ more: String?...) {
        order = OrderBy<E>()
        configurations = [configuration] + more
    }

    /// Keeps only the objects that match; a second `where` is combined with the first by AND.
    public func `where`(_ predicate: Where<E>) -> From<E> {
        var copy = self
        copy.predicate = self.predicate.map { $0 && predicate } ?? predicate
        return copy
    }

    /// Orders the objects; a second `orderBy` adds its keys after the first one's.
    public func orderBy(_ order: OrderBy<E>) -> From<E> {
        var copy = self
        copy.order = self.order + order
        return copy
    }

    /// Keeps only the objects whose Boolean field is `true`, as `where(keyPath == true)` does:
    /// `From<Todo>().where(\.isDone)`.
    public func `where`(_ keyPath: KeyPath<E, Bool>) -> From<E> {
        self.where(keyPath == true)
    }

    /// Fetches at most `count` objects.
    public func limit(_ count: Int) -> From<E> {
        var copy = self
        copy.limit = count
        return copy
    }

    /// The query of the first match alone, for `fetchOne` and `fetchID`: a limit of 1, unless the
    /// caller's limit is smaller (0: no object; a negative one is refused as in any fetch).
    var firstOnly: From<E> {
        limit(limit.map { min($0, 1) } ?? 1)
    }

    /// Skips the first `count` matching objects.
    public func offset(_ count: Int) -> From<E> {
        var copy = self
        copy.offset = count
        return copy
    }

    /// Loads the objects that a to-one relationship points to together with the fetched objects, in
    /// one more query for the whole fetch (never one per object), in the same read.
    ///
    /// Each fetched object's relationship ID then carries its object, and reads its fields:
    /// ```swift
    /// let pets = try await stack.fetchAll(From<Pet>().prefetching(\.owner))
    /// pets[0].owner?.name          // "Ada"
    /// pets[0].owner?.object        // the whole Person, as of this fetch
    /// ```
    /// Prefetching applies to ``DataStack/fetchAll(_:)``, ``DataStack/fetchOne(_:)``,
    /// ``DataStack/fetchBatches(_:)`` (batch by batch), their read-context and transaction
    /// counterparts, and list publishers. A fetched object's loaded objects are snapshots like any
    /// other and do not follow later changes; a list publisher's do: a change to a prefetched object
    /// yields a new snapshot, in whose diff the objects that carry it count as updated.
    public func prefetching<Target: Entity>(_ relationship: any WritableKeyPath<E, EntityID<Target>?> & Sendable) -> From<E> {
        var copy = self
        copy.prefetches.append(Prefetch(relationship))
        return copy
    }

    /// Applies fetch options; later options override earlier ones of the same kind.
    public func tweak(_ tweaks: Tweak...) -> From<E> {
        var copy = self
        for tweak in tweaks {
            switch tweak.option {
            case .limit(let count): copy.limit = count
            case .offset(let count): copy.offset = count
            case .batchSize(let count): copy.batchSize = count
            }
        }
        return copy
    }

    /// The same fetch without its configurations, for a read routed to one store already.
    func unscoped() -> From<E> {
        var copy = self
        copy.configurations = nil
        return copy
    }

    /// Checks the numbers of the options.
    func validate() throws(StrataError) {
        if let limit, limit < 0 {
            throw StrataError(.invalidArgument, "A fetch limit cannot be negative (got \(limit)).", entity: E.entityDescription.name)
        }
        if let offset, offset < 0 {
            throw StrataError(.invalidArgument, "A fetch offset cannot be negative (got \(offset)).", entity: E.entityDescription.name)
        }
        if let batchSize, batchSize < 1 {
            throw StrataError(.invalidArgument, "A batch size must be at least 1 (got \(batchSize)).", entity: E.entityDescription.name)
        }
    }
}

/// Loads the targets of one to-one relationship for a list of fetched objects.
struct Prefetch<E: Entity>: Sendable {
    /// The entity name of the target, which observation would depend on.
    let target: String
    /// The relationship's property name, for descriptions.
    let property: String
    /// Replaces each object's relationship ID by one that carries the object it names.
    let load: @Sendable (inout [E], Connection, StoreContext) throws -> Void
    /// Whether two versions of an object carry equal prefetched objects (or none).
    let isSameLoaded: @Sendable (E, E) -> Bool

    init<Target: Entity>(_ relationship: any WritableKeyPath<E, EntityID<Target>?> & Sendable) {
        target = Target.entityDescription.name
        if case .field(let index) = E.member(for: relationship) {
            property = E.entityDescription.fields[index].property
        } else {
            property = "\(relationship)"
        }
        isSameLoaded = { old, new in old[keyPath: relationship]?.object == new[keyPath: relationship]?.object }
        load = { objects, connection, store in
            let wanted = Set(objects.compactMap { $0[keyPath: relationship] })
            guard !wanted.isEmpty else { return }
            let byID = try connection.fetchExistingByID(wanted, store: store)
            for index in objects.indices {
                guard let id = objects[index][keyPath: relationship], let object = byID[id] else { continue }
                objects[index][keyPath: relationship] = EntityID(loading: object)
            }
        }
    }
}

extension From {
    /// Loads the prefetched relationships of `objects`.
    func loadPrefetched(_ objects: inout [E], connection: Connection, store: StoreContext) throws {
        for prefetch in prefetches {
            try prefetch.load(&objects, connection, store)
        }
    }
}
