/// The identifier of one object of entity `E` in a store.
///
/// IDs are typed: a `Person.ID` can never be passed where a `Pet.ID` is expected. They are plain
/// values (`Hashable`, `Sendable`, `Codable`) that stay valid across transactions and reads, and are
/// never reused within a store, even after the object is deleted.
public struct EntityID<E: Entity>: Hashable, Sendable, Comparable {
    /// The row ID in the entity's table.
    public let rawValue: Int64

    /// Makes an ID from a row ID, for example one read back from your own storage.
    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// The ID of an object that was never stored (row ID 0, which SQLite never assigns).
    public static var unsaved: EntityID<E> { EntityID(rawValue: 0) }

    /// Whether this ID names an object that was created in a store.
    public var isSaved: Bool { rawValue != 0 }

    public static func < (lhs: EntityID<E>, rhs: EntityID<E>) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

extension EntityID: CustomStringConvertible {
    public var description: String { "\(E.entityDescription.name)(\(rawValue))" }
}

extension EntityID: Codable {
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
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
