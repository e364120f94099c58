/// Every schema version an app ever shipped, the chain that leads from each to the current one, and
/// the steps that say what the inferred migration cannot guess.
///
/// ```swift
/// enum V1 {
///     @Entity(name: "Person") struct Person { var fullName: String = "" }
/// }
/// let history = SchemaHistory(
///     Schema("V1", V1.Person.self),
///     Schema("V2", Person.self),
///     steps: [MigrationStep(from: "V1", to: "V2", .renameField("Person", from: "fullName", to: "name"))])
/// let stack = try await DataStack(history, storage: SQLiteStore(path: path))
/// ```
///
/// Without a chain, the versions migrate in the order given (a linear chain) and the last one is
/// current. Opening a stack on a store at an older version migrates it along the chain, all or
/// nothing, before the stack is usable.
public struct SchemaHistory: Sendable {
    /// Every declared version, in the order given.
    public let schemas: [Schema]
    /// The chain between the versions.
    public let chain: MigrationChain
    /// The declared steps (a step that is not declared is inferred from the two schemas alone).
    public let steps: [MigrationStep]

    /// A history of `schemas`, migrating along `chain` (by default, in the order given).
    public init(_ schemas: Schema..., chain: MigrationChain? = nil, steps: [MigrationStep] = []) {
        self.init(schemas: schemas, chain: chain, steps: steps)
    }

    /// A history of `schemas`, migrating along `chain` (by default, in the order given).
    public init(schemas: [Schema], chain: MigrationChain? = nil, steps: [MigrationStep] = []) {
        self.schemas = schemas
        self.chain = chain ?? MigrationChain(linear: schemas.map(\.version))
        self.steps = steps
    }

    /// The version every store ends at: the end of the chain (the last schema for a linear history).
    public var current: Schema {
        let version = (try? chain.validate(versions: schemas.map(\.version))) ?? schemas.last?.version
        return schemas.first { $0.version == version } ?? schemas[schemas.count - 1]
    }

    /// The schema of a version, if the history declares it.
    public func schema(_ version: String) -> Schema? {
        schemas.first { $0.version == version }
    }

    /// Checks every schema, the chain and the steps, without opening anything; returns the current schema.
    @discardableResult
    func validate() throws(StrataError) -> Schema {
        guard !schemas.isEmpty else {
            throw StrataError(.invalidMigration, "A schema history needs at least one Schema.")
        }
        var seen: Set<String> = []
        for schema in schemas {
            try schema.validate()
            guard seen.insert(schema.version).inserted else {
                throw StrataError(
                    .invalidMigration,
                    "The schema history declares version \(schema.version) twice. Give each version its own name.")
            }
        }
        let currentVersion = try chain.validate(versions: schemas.map(\.version))
        for step in steps {
            guard chain.successor(of: step.source) == step.destination else {
                throw StrataError(
                    .invalidMigration,
                    "The step \(step.source) → \(step.destination) is not an edge of \(chain). Declare steps only "
                        + "between a version and its successor.")
            }
        }
        var stepEdges: Set<String> = []
        for step in steps where !stepEdges.insert(step.source).inserted {
            throw StrataError(
                .invalidMigration,
                "Two steps start at \(step.source). Put all the changes of one step in one MigrationStep.")
        }
        guard let current = schema(currentVersion) else {
            throw StrataError(.invalidMigration, "The chain ends in \(currentVersion), which has no Schema.")
        }
        return current
    }

    /// The steps from `version` to the current version, in order; empty when `version` is current,
    /// `nil` when the history does not know `version`.
    func path(from version: String) -> [(source: Schema, destination: Schema, step: MigrationStep?)]? {
        guard schema(version) != nil else { return nil }
        var path: [(source: Schema, destination: Schema, step: MigrationStep?)] = []
        var current = version
        while let next = chain.successor(of: current), let source = schema(current), let destination = schema(next) {
            path.append((source, destination, steps.first { $0.source == current }))
            current = next
            if path.count > schemas.count { return nil }
        }
        return path
    }
}

extension SchemaHistory {
    /// The history of the store of configuration `key` (`""`: the default one): ``restricted(to:)`` when
    /// any version declares configurations, so that a store made by a version that kept entities in
    /// other stores is compared with, and migrated from, what that version kept in it; the history
    /// itself otherwise.
    func forStore(_ key: String) -> SchemaHistory {
        schemas.contains(where: \.hasConfigurations) ? restricted(to: key) : self
    }

    /// The history of one configuration's store: every version restricted to the configuration's
    /// entities, and the declared changes that concern them. A custom change (which may touch any
    /// entity) runs in the default configuration's store only.
    func restricted(to key: String) -> SchemaHistory {
        let restrictedSchemas = schemas.map { $0.restricted(to: key) }
        let restricted = SchemaHistory(schemas: restrictedSchemas, chain: chain, steps: [])
        var kept: [MigrationStep] = []
        for step in steps {
            let source = restricted.schema(step.source)
            let destination = restricted.schema(step.destination)
            let changes = step.changes.filter { change in
                switch change.kind {
                case .renameEntity(_, let to): destination?.entity(named: to) != nil
                case .renameField(let entity, _, _), .fill(let entity, _, _), .transform(let entity, _):
                    destination?.entity(named: entity) != nil
                case .deleteEntity(let entity), .deleteObjects(let entity, _): source?.entity(named: entity) != nil
                case .custom: key.isEmpty
                }
            }
            if !changes.isEmpty { kept.append(MigrationStep(from: step.source, to: step.destination, changes: changes)) }
        }
        return SchemaHistory(schemas: restrictedSchemas, chain: chain, steps: kept)
    }
}
