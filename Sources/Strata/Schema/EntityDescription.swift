/// What Strata knows about one entity: its name (the table name) and its stored fields.
public struct EntityDescription: Sendable, Hashable {
    /// The entity name, which is also its table name. Defaults to the type name.
    public let name: String
    /// The Swift type name.
    public let typeName: String
    /// The stored fields, in declaration order: attributes, coded fields and to-one relationships. The ID
    /// column is not among them.
    public let fields: [FieldDescription]
    /// The to-many relationships, in declaration order.
    public let toMany: [ToManyDescription]
    /// The derived fields, in declaration order.
    public let derived: [DerivedDescription]
    /// The computed (virtual) properties: never stored, not usable in queries.
    public let virtualProperties: [String]
    /// The entity's name in the version before (`@Entity(renamedFrom:)`): a migration from a version
    /// that has an entity of that name and none of this one's renames it.
    public let renamedFrom: String?

    /// Describes an entity. The macro calls this.
    ///
    /// A row read for the entity holds the ID in column 0, then the fields, the to-many relationships
    /// (as JSON arrays of IDs) and the derived fields, in this order.
    public init(
        name: String, typeName: String, fields: [FieldDescription], toMany: [ToManyDescription] = [],
        derived: [DerivedDescription] = [], virtualProperties: [String] = [], renamedFrom: String? = nil
    ) {
        self.renamedFrom = renamedFrom
        self.name = name
        self.typeName = typeName
        self.fields = fields
        self.toMany = toMany
        self.derived = derived
        self.virtualProperties = virtualProperties
    }

    /// The field stored in a column, if any.
    public func field(forColumn column: String) -> FieldDescription? {
        fields.first { $0.column == column }
    }
}
