/// What happens to related objects when an object is deleted.
public enum DeleteRule: String, Sendable, Hashable {
    /// The related objects stay; the relationship to the deleted object is cleared (the default).
    case nullify
    /// The related objects are deleted too (applying their own rules in turn).
    case cascade
    /// The delete is refused while related objects exist: the transaction throws
    /// ``StrataError/Code/deleteDenied`` naming them.
    case deny
}

/// A reference to an entity type, resolved to its name when a ``Schema`` is made (relationships can be
/// cyclic, so descriptions hold references, not each other).
public struct EntityReference: Sendable, Hashable {
    /// The identity of the entity's Swift type.
    public let type: ObjectIdentifier
    /// The Swift type name, for messages.
    public let typeName: String
    /// The Swift type name with its enclosing types (`V1.Recipe`), for messages that must tell two
    /// types of the same name apart.
    public let qualifiedTypeName: String

    /// A reference to entity `E`.
    public init<E: Entity>(_ type: E.Type) {
        self.type = ObjectIdentifier(type)
        self.typeName = String(describing: type)
        self.qualifiedTypeName = Self.qualifiedName(of: type)
    }

    /// `type`'s name with its enclosing types and without its module (`V1.Recipe`).
    static func qualifiedName(of type: Any.Type) -> String {
        let full = String(reflecting: type)
        guard let dot = full.firstIndex(of: ".") else { return full }
        return String(full[full.index(after: dot)...])
    }
}

/// A to-one relationship, stored as a foreign key column of the source entity's table.
public struct ToOneRelationship: Sendable, Hashable {
    /// The entity the relationship points to.
    public let target: EntityReference
    /// What deleting the source object does to the target object.
    public let deleteRule: DeleteRule
    /// The name of the inverse to-many relationship on the target, if declared here.
    public let inverse: String?
}

/// A to-many relationship: a set (unordered) or an array (ordered) of IDs of another entity.
///
/// Stored as the foreign key of an inverse to-one relationship when there is one, otherwise in a join
/// table; an ordered relationship also stores each object's position.
public struct ToManyDescription: Sendable, Hashable {
    /// The Swift property name.
    public let property: String
    /// The entity the relationship points to.
    public let target: EntityReference
    /// Whether the relationship keeps its order (an array) or not (a set).
    public let isOrdered: Bool
    /// What deleting the source object does to the related objects.
    public let deleteRule: DeleteRule
    /// The name of the inverse relationship on the target, if declared here.
    public let inverse: String?
    /// The relationship's name in the version before (`@Relationship(renamedFrom:)`).
    public var renamedFrom: String? = nil

    /// Describes an unordered to-many relationship. The macro calls this.
    public static func make<Root, Target: Entity>(
        _ keyPath: KeyPath<Root, Set<EntityID<Target>>>, property: String, deleteRule: DeleteRule = .nullify,
        inverse: String? = nil, renamedFrom: String? = nil
    ) -> ToManyDescription {
        ToManyDescription(
            property: property, target: EntityReference(Target.self), isOrdered: false, deleteRule: deleteRule,
            inverse: inverse, renamedFrom: renamedFrom)
    }

    /// Describes an ordered to-many relationship. The macro calls this.
    public static func make<Root, Target: Entity>(
        _ keyPath: KeyPath<Root, [EntityID<Target>]>, property: String, deleteRule: DeleteRule = .nullify,
        inverse: String? = nil, renamedFrom: String? = nil
    ) -> ToManyDescription {
        ToManyDescription(
            property: property, target: EntityReference(Target.self), isOrdered: true, deleteRule: deleteRule,
            inverse: inverse, renamedFrom: renamedFrom)
    }
}

/// A derived field: a value the store computes from a to-many relationship, like Core Data's derived
/// attributes (`pets.@count`, `pets.age.@sum`).
///
/// Derived values are computed by SQLite when objects are read, from the relationship's foreign key or
/// join table (both indexed), so every write path — creates, edits, deletes, cascades — keeps them
/// right. They can be filtered and sorted on like stored fields, but not written.
public struct DerivedDescription: Sendable, Hashable {
    /// What a derived field computes.
    public enum Function: String, Sendable, Hashable {
        /// The number of related objects.
        case count
        /// The sum of an attribute of the related objects (0 when there are none).
        case sum
        /// The smallest value of an attribute of the related objects (`nil` when there are none).
        case minimum
        /// The largest value of an attribute of the related objects (`nil` when there are none).
        case maximum
    }

    /// The Swift property name.
    public let property: String
    /// What is computed.
    public let function: Function
    /// The to-many relationship (property name) it is computed over.
    public let relationship: String
    /// The attribute (property name on the target entity) for sum, minimum and maximum.
    public let attribute: String?
    /// The storage class of the property's declared type, when known: a sum, minimum or maximum of
    /// `Double` values declared as an integer is refused when the schema is checked, rather than
    /// failing every read once a value is not whole.
    public let declaredStorageClass: StorageClass?

    /// Describes a derived field.
    public init(property: String, function: Function, relationship: String, attribute: String? = nil) {
        self.property = property
        self.function = function
        self.relationship = relationship
        self.attribute = attribute
        self.declaredStorageClass = nil
    }

    /// Describes a derived field, with its declared type (from the key path). The macro calls this.
    public init<Root, Value: DatabaseValueConvertible>(
        _ keyPath: KeyPath<Root, Value>, property: String, function: Function, relationship: String,
        attribute: String? = nil
    ) {
        self.property = property
        self.function = function
        self.relationship = relationship
        self.attribute = attribute
        self.declaredStorageClass = Value.storageClass
    }
}

/// What a key path of an entity names. Generated `member(for:)` code returns it; the query layer turns it
/// into SQL.
public enum EntityMember: Sendable, Hashable {
    /// The ID.
    case id
    /// A stored field, by index in ``EntityDescription/fields``.
    case field(Int)
    /// A to-many relationship, by index in ``EntityDescription/toMany``.
    case toMany(Int)
    /// The `count` of a to-many relationship (`\Person.pets.count`), by index in ``EntityDescription/toMany``.
    case toManyCount(Int)
    /// A derived field, by index in ``EntityDescription/derived``.
    case derived(Int)
    /// A computed property: never stored, so it cannot be used in a query.
    case virtual(String)
}
