/// What opening a store with a schema history would do, found without changing the file:
/// ``DataStack/forecast(_:storage:)``.
public struct MigrationForecast: Sendable, CustomStringConvertible {
    /// The store's version, or `nil` when the store does not exist yet (it will be created at the current version).
    public let storeVersion: String?
    /// The version the store ends at.
    public let currentVersion: String
    /// The steps, in order; empty when no migration is needed.
    public let steps: [Step]

    /// Whether opening the store migrates it.
    public var isMigrationRequired: Bool { !steps.isEmpty }

    /// One step of the chain.
    public struct Step: Sendable, Hashable {
        /// The version the step starts from.
        public let source: String
        /// The version the step leads to.
        public let destination: String
        /// What happens to each entity, in the destination's order, then the entities dropped.
        public let entities: [EntityChange]
        /// The number of free-form changes (``MigrationChange/custom(_:)``) the step runs after them.
        public let customChanges: Int
    }

    /// What a step does to one entity.
    public struct EntityChange: Sendable, Hashable {
        /// The entity's name in the destination version (in the source version for a dropped entity).
        public let entity: String
        /// The entity's name in the source version, when it had one.
        public let sourceEntity: String?
        /// How the step migrates the entity.
        public let kind: Kind
        /// The rows the step works through: every row of the source table for ``Kind/rebuild`` and
        /// ``Kind/custom`` (copied, or passed through the transform) and for ``Kind/delete`` (dropped with
        /// the table); 0 for ``Kind/create`` and ``Kind/inferred``, which copy none. Counted in the store
        /// for the first step; for later steps, carried over from the earlier ones.
        public let rows: Int
        /// The fields and relationships the step removes from an entity it keeps, and whose values are
        /// lost with them, by their names in the source version: stored fields (to-one relationships
        /// among them) and to-many relationships whose links are dropped (not those stored through the
        /// foreign key of a to-one the step keeps). With ``Kind/custom``, the transform can read them
        /// from the source object; they are gone afterwards. Empty for ``Kind/create`` and ``Kind/delete``.
        public let removedFields: [String]
        /// The fields and relationships the step adds to an entity it keeps, by their names in the
        /// destination version: existing objects get the declared default, the step's fill, `nil`, or
        /// a dynamic initial value (a new to-many relationship starts empty, unless a to-one that exists
        /// already stores it). Empty for ``Kind/create`` and ``Kind/delete``.
        public let addedFields: [String]
        /// The fields and relationships the step renames, keeping their values (declared in the step with
        /// ``MigrationChange/renameField(_:from:to:)`` or on the type with `renamedFrom:`).
        public let renamedFields: [RenamedField]
        /// The unique constraints over several fields (``Unique(_:)``) the step adds to an entity it keeps,
        /// by the destination version's property names: the step fails if existing objects break one.
        /// Empty for ``Kind/create`` and ``Kind/delete``.
        public internal(set) var addedUniqueConstraints: [[String]] = []
        /// The unique constraints over several fields the step removes, by the source version's names.
        public internal(set) var removedUniqueConstraints: [[String]] = []
        /// The indexes over several fields (``Index(_:)``) the step adds, by the destination version's names.
        public internal(set) var addedIndexes: [[String]] = []
        /// The indexes over several fields the step removes, by the source version's names.
        public internal(set) var removedIndexes: [[String]] = []
    }

    /// A field or relationship a step renames.
    public struct RenamedField: Sendable, Hashable {
        /// Its name in the source version.
        public let from: String
        /// Its name in the destination version.
        public let to: String
    }

    /// How a step migrates an entity.
    public enum Kind: String, Sendable, Hashable {
        /// A new entity: an empty table.
        case create
        /// The table stays: unchanged, or renamed, with columns added or renamed (`ALTER TABLE`) and
        /// indexes changed. No row is copied (an index added reads the table once to build it), so
        /// ``EntityChange/rows`` is 0.
        case inferred
        /// The table is rebuilt and every row copied in SQL (a type widened, a field removed, a field that
        /// becomes required or unique, a relationship's storage; a new field that is unique, has a
        /// `dynamicInitialValue` and no fill, or has a value with no SQL literal).
        case rebuild
        /// Every object goes through the step's transform.
        case custom
        /// The entity is dropped with its objects.
        case delete
    }

    /// The steps in one line: per entity, its kind, the rows it works through (an entity changed in
    /// place says that no rows are copied), the fields it removes, adds and renames, and the unique
    /// constraints and indexes over several fields it adds and removes (`adds #Unique(firstName, lastName)`), as in
    /// `V1 → V2: Todo rebuild (2 rows; removes Todo.done, adds Todo.isDone), Post create (0 rows),
    /// Tag inferred (in place, no rows copied; renames Tag.name to Tag.label)`.
    public var description: String {
        guard let storeVersion else { return "new store at \(currentVersion)" }
        guard isMigrationRequired else { return "store at \(storeVersion): no migration needed" }
        return steps.map { step in
            "\(step.source) → \(step.destination): " + step.entities.map { change in
                let source = change.sourceEntity ?? change.entity
                let fields = [
                    change.removedFields.isEmpty ? nil : "removes " + change.removedFields.map { "\(source).\($0)" }.joined(separator: ", "),
                    change.addedFields.isEmpty ? nil : "adds " + change.addedFields.map { "\(change.entity).\($0)" }.joined(separator: ", "),
                    change.renamedFields.isEmpty ? nil : "renames "
                        + change.renamedFields.map { "\(source).\($0.from) to \(change.entity).\($0.to)" }.joined(separator: ", "),
                    Self.constraints("adds", change.addedUniqueConstraints, change.addedIndexes),
                    Self.constraints("removes", change.removedUniqueConstraints, change.removedIndexes),
                ].compactMap { $0 }
                return "\(change.entity) \(change.kind.rawValue) ("
                    + (change.kind == .inferred ? "in place, no rows copied" : "\(change.rows) row\(change.rows == 1 ? "" : "s")")
                    + (fields.isEmpty ? "" : "; " + fields.joined(separator: ", ")) + ")"
            }.joined(separator: ", ")
                + (step.customChanges > 0 ? ", \(step.customChanges) custom change\(step.customChanges == 1 ? "" : "s")" : "")
        }.joined(separator: "; ")
    }

    /// `adds #Unique(firstName, lastName), #Index(lastName, firstName)`, or `nil` when there are none.
    private static func constraints(_ verb: String, _ unique: [[String]], _ indexes: [[String]]) -> String? {
        let written = unique.map { "#Unique(\($0.joined(separator: ", ")))" } + indexes.map { "#Index(\($0.joined(separator: ", ")))" }
        return written.isEmpty ? nil : "\(verb) " + written.joined(separator: ", ")
    }
}
