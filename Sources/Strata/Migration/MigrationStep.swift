/// What a migration from one version to its successor must be told: renames, entities to drop,
/// values for new required fields, and custom transforms.
///
/// Everything else is inferred from the two schemas: entities and fields added, fields removed, types
/// widened (integer to real or text, real to text), indexes and unique constraints added or removed,
/// relationships added or removed.
///
/// ```swift
/// MigrationStep(from: "V1", to: "V2",
///     .renameEntity(from: "People", to: "Person"),
///     .renameField("Person", from: "fullName", to: "name"),
///     .fill("Person", "email", with: "unknown@example.com"),
///     .deleteEntity("Cache"))
/// ```
public struct MigrationStep: Sendable {
    /// The version the step starts from.
    public let source: String
    /// The version the step leads to.
    public let destination: String
    /// The declared changes.
    public let changes: [MigrationChange]

    /// A step from `source` to `destination` with the changes inference cannot guess.
    public init(from source: String, to destination: String, _ changes: MigrationChange...) {
        self.init(from: source, to: destination, changes: changes)
    }

    /// A step from `source` to `destination` with the changes inference cannot guess.
    public init(from source: String, to destination: String, changes: [MigrationChange]) {
        self.source = source
        self.destination = destination
        self.changes = changes
    }
}
