/// What Strata knows about one entity: its name (the table name) and its stored fields.
public struct EntityDescription: Sendable, Hashable {
    /// The entity name, which is also its table name. Defaults to the type name.
    public let name: String
    /// The Swift type name.
    public let typeName: String
    /// The stored fields, in declaration order. The ID column is not among them.
    public let fields: [FieldDescription]

    /// Describes an entity. The macro calls this.
    public init(name: String, typeName: String, fields: [FieldDescription]) {
        self.name = name
        self.typeName = typeName
        self.fields = fields
    }

    /// The field stored in a column, if any.
    public func field(forColumn column: String) -> FieldDescription? {
        fields.first { $0.column == column }
    }
}
