/// An object of the source version during a migration, read by field name.
///
/// ```swift
/// .transform(Person.self) { old, person in
///     let full: String = try old.value("fullName")
///     person.firstName = String(full.split(separator: " ").first ?? "")
/// }
/// ```
public struct MigrationObject: Sendable {
    /// The source entity's name.
    public let entity: String
    /// The object's ID, the same in both versions.
    public let id: Int64
    /// The stored values by property name (to-one relationships hold the related object's ID).
    public let values: [String: DatabaseValue]

    /// The stored value of a field, or `nil` when the source entity has no such field.
    public subscript(_ field: String) -> DatabaseValue? {
        values[field]
    }

    /// The value of `field` as `V`.
    ///
    /// - Throws: ``StrataError/Code/invalidArgument`` when the source entity has no such field,
    ///   ``StrataError/Code/typeMismatch`` when its value cannot be read as `V`.
    public func value<V: DatabaseValueConvertible>(_ field: String, as type: V.Type = V.self) throws -> V {
        guard let value = values[field] else {
            throw StrataError(
                .invalidArgument,
                "\(entity) of the source version has no field '\(field)' (it has \(values.keys.sorted().joined(separator: ", "))).",
                entity: entity, field: field)
        }
        guard let typed = V(databaseValue: value) else {
            throw StrataError(
                .typeMismatch, "\(entity).\(field) of object \(id) holds \(value), which cannot be read as \(V.self).",
                entity: entity, field: field)
        }
        return typed
    }
}
