/// The identifier of one object of entity `E` in a store.
///
/// IDs are typed: a `Person.ID` can never be passed where a `Pet.ID` is expected. They are plain
/// values (`Hashable`, `Sendable`, `Codable`) that stay valid across transactions and reads, and are
/// never reused within a store, even after the object is deleted.
///
/// ## Following a to-one relationship
///
/// A to-one relationship holds the related object's ID, and an ID reads the related object's fields by
/// name: `pet.owner?.name`. The same spelling names the related field in queries, where SQLite follows
/// the relationship itself:
///
/// ```swift
/// From<Pet>().where(\.owner?.name == "Ada").orderBy(.ascending(\.owner?.name))
/// Where<Pet>(#Predicate { $0.owner?.company?.city == "Paris" })
/// ```
///
/// On a fetched object, the fields are there when the fetch loaded the related object with the ID —
/// ``From/prefetching(_:)`` does, in one query for all fetched objects — and `nil` otherwise;
/// ``object`` tells which.
///
/// Two IDs are equal when their row IDs are, loaded or not. Within one stack that means the same
/// object (a stack of several stores keeps an entity's row IDs unique across its stores); IDs read
/// from two different stacks' stores compare by row ID too, so keep them apart (in a `Set`, say) when
/// the same entity comes from two files. Equality ignores the store on purpose: an ID made with
/// ``init(rawValue:)`` must equal the one a fetch returns, and equality must stay transitive.
///
/// An ID read from a store (or returned by one) remembers which store it came from: passing it to
/// another stack's transaction or fetch throws ``StrataError/Code/invalidArgument`` instead of acting
/// on that store's object with the same row ID. An ID made with ``init(rawValue:)`` or decoded with
/// `Codable` names a row ID in whatever store it is given to. The ID's
/// own members (``rawValue``, ``isSaved``, ``object``, ``description``) take precedence over fields of
/// the same name.
@dynamicMemberLookup
public struct EntityID<E: Entity>: Hashable, Sendable, Comparable {
    /// The row ID in the entity's table.
    public let rawValue: Int64

    /// The object loaded with this ID by a prefetching fetch.
    private let loaded: LoadedObject<E>?
    /// The store the ID was read from or made in (a random tag kept in the store), or 0 for an ID made
    /// from a row ID. A store refuses an ID whose tag is another store's.
    let storeTag: UInt32

    /// Makes an ID from a row ID, for example one read back from your own storage. Such an ID belongs
    /// to no store in particular: any store takes it as naming its own object with that row ID.
    public init(rawValue: Int64) {
        self.rawValue = rawValue
        self.loaded = nil
        self.storeTag = 0
    }

    /// An ID of the store tagged `storeTag`.
    init(rawValue: Int64, storeTag: UInt32) {
        self.rawValue = rawValue
        self.loaded = nil
        self.storeTag = storeTag
    }

    /// An ID that carries the object it names.
    init(loading object: E) {
        self.rawValue = object.id.rawValue
        self.loaded = LoadedObject(object)
        self.storeTag = object.id.storeTag
    }

    /// Whether a store tagged `tag` may act on this ID: it was made there, or from a bare row ID.
    func belongs(toStoreTagged tag: UInt32) -> Bool {
        storeTag == 0 || storeTag == tag
    }

    /// The ID of an object that was never stored (row ID 0, which SQLite never assigns).
    public static var unsaved: EntityID<E> { EntityID(rawValue: 0) }

    /// Whether this ID names an object that was created in a store.
    public var isSaved: Bool { rawValue != 0 }

    /// The object this ID names, as the fetch that produced the ID read it, when that fetch prefetched
    /// the relationship (``From/prefetching(_:)``); `nil` otherwise.
    public var object: E? { loaded?.object }

    /// A field of the related object: its value when the object was loaded with this ID, else `nil`.
    ///
    /// In a filter or a sort key the same key path names the related field in SQL.
    public subscript<Value>(dynamicMember field: KeyPath<E, Value>) -> Value? {
        loaded?.object[keyPath: field]
    }

    /// An optional field of the related object, without a second level of optionality.
    public subscript<Value>(dynamicMember field: KeyPath<E, Value?>) -> Value? {
        loaded?.object[keyPath: field] ?? nil
    }

    public static func == (lhs: EntityID<E>, rhs: EntityID<E>) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }

    public static func < (lhs: EntityID<E>, rhs: EntityID<E>) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// The immutable box that lets an ID carry the object it names without making `EntityID` recursive.
final class LoadedObject<E: Entity>: Sendable {
    let object: E

    init(_ object: E) {
        self.object = object
    }
}

extension EntityID: CustomStringConvertible {
    public var description: String { "\(E.entityDescription.name)(\(rawValue))" }
}

extension EntityID: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int64.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension EntityID: DatabaseValueConvertible {
    public static var storageClass: StorageClass { .integer }
    public var databaseValue: DatabaseValue { .integer(rawValue) }
    public init?(databaseValue: DatabaseValue) {
        guard case .integer(let value) = databaseValue else { return nil }
        self.init(rawValue: value)
    }
}

/// A value that names an object of one store: an ID, or an optional ID. Filters note the store tags of
/// the IDs they compare with, so that a query with an ID of another store throws instead of matching
/// that store's object with the same row ID.
protocol StoreTaggedValue {
    /// The tag of the store the ID was read from; 0 for an ID made from a row ID, or `nil`.
    var storeTagOfValue: UInt32 { get }
}

extension EntityID: StoreTaggedValue {
    var storeTagOfValue: UInt32 { storeTag }
}

extension Optional: StoreTaggedValue where Wrapped: StoreTaggedValue {
    var storeTagOfValue: UInt32 { self?.storeTagOfValue ?? 0 }
}

/// The store tags (other than 0) of the IDs among `values`, each once.
func storeTags(of values: [Any]) -> [UInt32] {
    var tags: [UInt32] = []
    for value in values {
        if let tagged = value as? any StoreTaggedValue {
            let tag = tagged.storeTagOfValue
            if tag != 0, !tags.contains(tag) { tags.append(tag) }
        }
    }
    return tags
}

/// An ID of some entity, optional or not: lets a field's description tell a plain ID field.
protocol EntityIDValue {
    /// The Swift type name of the entity the ID names.
    static var targetTypeName: String { get }
}

extension EntityID: EntityIDValue {
    static var targetTypeName: String { String(describing: E.self) }
}

extension Optional: EntityIDValue where Wrapped: EntityIDValue {
    static var targetTypeName: String { Wrapped.targetTypeName }
}

/// The entity a plain ID field names (see ``FieldDescription``), outside the field's equality.
struct PlainIDTarget: Sendable, Hashable {
    var typeName: String?

    static func == (lhs: PlainIDTarget, rhs: PlainIDTarget) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
