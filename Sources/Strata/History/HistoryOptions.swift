/// Turns on a stack's persistent history, and says what it keeps (``DataStack/Configuration/history``).
///
/// ```swift
/// var configuration = DataStack.Configuration()
/// configuration.history = HistoryOptions(contextName: "app", preservingOnDeletion: [.field(\Person.name)])
/// let stack = try await DataStack(schema, storage: SQLiteStore(path: path), configuration: configuration)
/// ```
public struct HistoryOptions: Sendable {
    /// A name recorded with every transaction of this stack (the process or component that committed
    /// it: "app", "widget", "importer"); `nil` records none.
    public var contextName: String?
    /// Fields whose last values are kept in the history when their object is deleted (Core Data's
    /// `preservesValueInHistoryOnDeletion`), so that a consumer of the history knows *what* was deleted.
    public var preservedOnDeletion: [PreservedField]

    /// History with these options.
    public init(contextName: String? = nil, preservingOnDeletion: [PreservedField] = []) {
        self.contextName = contextName
        self.preservedOnDeletion = preservingOnDeletion
    }

    /// The preserved fields' property names, by entity name, checked against the schema.
    func preservedProperties(in schema: Schema) throws(StrataError) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for field in preservedOnDeletion {
            guard let property = field.property else {
                throw StrataError(
                    .invalidArgument,
                    "A field preserved on deletion is not a stored field of \(field.entity) (a relationship, a derived or "
                        + "computed property, or the ID); name a stored field.",
                    entity: field.entity)
            }
            guard schema.entities.contains(where: { $0.name == field.entity }) else {
                throw StrataError(
                    .invalidArgument,
                    "The history preserves \(field.entity).\(property) on deletion, but the schema \(schema.version) has no "
                        + "entity \(field.entity); add it to the schema or remove the field from the history options.",
                    entity: field.entity, field: property)
            }
            if !(result[field.entity]?.contains(property) ?? false) {
                result[field.entity, default: []].append(property)
            }
        }
        return result
    }
}

/// A stored field whose last value the history keeps when its object is deleted.
public struct PreservedField: Sendable, Hashable {
    /// The entity's name.
    let entity: String
    /// The field's property name; `nil` when the key path names no stored field.
    let property: String?

    /// The stored field at `keyPath`: `.field(\Person.name)`.
    public static func field<E: Entity, V>(_ keyPath: KeyPath<E, V>) -> PreservedField {
        let description = E.entityDescription
        var property: String?
        if case .field(let index) = E.member(for: keyPath), description.fields.indices.contains(index) {
            property = description.fields[index].property
        }
        return PreservedField(entity: description.name, property: property)
    }
}
