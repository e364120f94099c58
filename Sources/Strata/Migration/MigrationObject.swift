/// An object of the source version during a migration, read by field name.
///
/// ```swift
/// .transform(Person.self) { old, person in
///     let full: String = try old.value("fullName")
///     person.firstName = String(full.split(separator: " ").first ?? "")
/// }
/// ```
public struct MigrationObject: Sendable {
    /// The property names of one source entity and their positions, shared by all its objects, so that
    /// reading an object costs one array instead of one dictionary per object.
    final class FieldNames: Sendable {
        let names: [String]
        let positions: [String: Int]

        init(_ names: [String]) {
            self.names = names
            positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The source entity's name.
    public let entity: String
    /// The object's ID, the same in both versions.
    public let id: Int64
    private let names: FieldNames
    private let storage: [DatabaseValue]

    init(entity: String, id: Int64, names: FieldNames, values: [DatabaseValue]) {
        self.entity = entity
        self.id = id
        self.names = names
        self.storage = values
    }

    /// The stored values by property name (to-one relationships hold the related object's ID).
    public var values: [String: DatabaseValue] {
        Dictionary(zip(names.names, storage), uniquingKeysWith: { first, _ in first })
    }

    /// The stored value of a field, or `nil` when the source entity has no such field.
    public subscript(_ field: String) -> DatabaseValue? {
        names.positions[field].map { storage[$0] }
    }

    /// The value of `field` as `V`.
    ///
    /// - Throws: ``StrataError/Code/invalidArgument`` when the source entity has no such field,
    ///   ``StrataError/Code/typeMismatch`` when its value cannot be read as `V`.
    public func value<V: DatabaseValueConvertible>(_ field: String, as type: V.Type = V.self) throws -> V {
        guard let value = self[field] else {
            throw StrataError(
                .invalidArgument,
                "\(entity) of the source version has no field '\(field)' (it has \(names.names.sorted().joined(separator: ", "))).",
                entity: entity, field: field)
        }
        guard let typed = V(databaseValue: value) else {
            throw StrataError(
                .typeMismatch, "\(entity).\(field) of object \(id) holds \(value), which cannot be read as \(V.self).",
                entity: entity, field: field
            ).hidingValues("\(entity).\(field) of object \(id) holds \(value.kindDescription), which cannot be read as \(V.self).")
        }
        return typed
    }
}
