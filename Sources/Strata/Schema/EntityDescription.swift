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
    /// The uniqueness constraints over several fields, declared with ``Unique(_:)``: each an ordered list
    /// of the property names of stored fields (attributes, coded fields, to-one relationships), no two
    /// objects may hold the same values in all of them. Lists of one field are not here: they are the
    /// field's ``FieldOption/unique`` option. Each becomes a `CREATE UNIQUE INDEX`.
    public let uniqueConstraints: [[String]]
    /// The indexes over several fields, declared with ``Index(_:)``: each an ordered list of the
    /// property names of stored fields. Lists of one field are not here: they are the field's
    /// ``FieldOption/indexed`` option; nor is a list that a unique constraint has in the same order (its
    /// unique index serves the same queries).
    public let indexes: [[String]]

    /// Describes an entity. The macro calls this.
    ///
    /// A row read for the entity holds the ID in column 0, then the fields, the to-many relationships
    /// (as JSON arrays of IDs) and the derived fields, in this order.
    ///
    /// `uniqueConstraints` and `indexes` are lists of property names, as ``Unique(_:)`` and
    /// ``Index(_:)`` declare them. A list of one field becomes that field's ``FieldOption/unique`` or
    /// ``FieldOption/indexed`` option (so `#Unique<Person>([\.email])` and `@Field(.unique)` make the same
    /// table, with one index); a list repeated is kept once (unique constraints compare as sets, indexes
    /// in order); an index list that a unique constraint has in the same order is dropped. Names that are
    /// not stored fields are kept: opening a stack with the schema refuses them.
    public init(
        name: String, typeName: String, fields: [FieldDescription], toMany: [ToManyDescription] = [],
        derived: [DerivedDescription] = [], virtualProperties: [String] = [], renamedFrom: String? = nil,
        uniqueConstraints: [[String]] = [], indexes: [[String]] = []
    ) {
        self.renamedFrom = renamedFrom
        self.name = name
        self.typeName = typeName
        self.toMany = toMany
        self.derived = derived
        self.virtualProperties = virtualProperties
        var fields = fields
        func fold(_ lists: [[String]], into option: FieldOption) -> [[String]] {
            lists.filter { list in
                guard list.count == 1, let index = fields.firstIndex(where: { $0.property == list[0] }) else { return true }
                fields[index].options.insert(option)
                return false
            }
        }
        var unique: [[String]] = []
        for list in fold(uniqueConstraints, into: .unique) where !unique.contains(where: { Set($0) == Set(list) }) {
            unique.append(list)
        }
        var indexed: [[String]] = []
        for list in fold(indexes, into: .indexed) where !indexed.contains(list) && !unique.contains(list) {
            indexed.append(list)
        }
        self.fields = fields
        self.uniqueConstraints = unique
        self.indexes = indexed
    }

    /// The field stored in a column, if any.
    public func field(forColumn column: String) -> FieldDescription? {
        fields.first { $0.column == column }
    }

    /// The stored field of a property, if any.
    public func field(forProperty property: String) -> FieldDescription? {
        fields.first { $0.property == property }
    }

    /// The columns of a list of property names (a unique constraint or an index), in order; a name that
    /// is not a stored field is left as it is.
    func columns(of properties: [String]) -> [String] {
        properties.map { field(forProperty: $0)?.column ?? $0 }
    }
}

extension Array where Element == String {
    /// The names as a sentence lists them: `a`, `a and b`, `a, b and c`.
    var spokenList: String {
        count < 2 ? joined() : dropLast().joined(separator: ", ") + " and " + (last ?? "")
    }
}
