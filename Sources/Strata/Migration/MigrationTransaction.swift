/// What a free-form step (``MigrationChange/custom(_:)``) works with: the objects of the source version
/// as they were before the step, read by field name, and a ``Transaction`` of the destination version.
///
/// ```swift
/// // V1 kept addresses apart; V2 folds the street into Person and drops Address.
/// MigrationStep(from: "V1", to: "V2", .deleteEntity("Address"), .custom { migration in
///     for person in try migration.sourceObjects("Person") {
///         guard let addressID = try person.value("address", as: Int64?.self),
///             let address = try migration.sourceObject("Address", id: addressID) else { continue }
///         let street: String = try address.value("street")
///         try migration.transaction.edit(Person.ID(rawValue: person.id)) { $0.street = street }
///     }
/// })
/// ```
///
/// It is valid only inside the closure that receives it, and it is not `Sendable`, so it cannot leave it.
public final class MigrationTransaction {
    /// The version the step starts from.
    public let sourceVersion: String
    /// The version the step leads to: the version of the objects ``transaction`` reads and writes.
    public let destinationVersion: String
    /// Creates, edits, deletes and fetches objects of the destination version, typed, as in
    /// ``DataStack/perform(_:)``; it commits with the rest of the migration, or not at all.
    public let transaction: Transaction

    let connection: Connection
    let source: Schema
    private let dialect = SQLiteDialect()
    /// The field names of each source entity read so far, shared by its objects.
    private var fieldNames: [String: MigrationObject.FieldNames] = [:]

    init(source: Schema, destination: String, connection: Connection, transaction: Transaction) {
        self.sourceVersion = source.version
        self.destinationVersion = destination
        self.source = source
        self.connection = connection
        self.transaction = transaction
    }

    /// The table that keeps a source entity's rows as they were before the step.
    static func sourceTable(_ entity: String) -> String { "strata_source_" + entity }

    /// Every object of the source version's entity `entity` as it was before the step (also those of
    /// entities the step deletes or renames; not those its `deleteObjects` changes removed), in ID order.
    ///
    /// - Throws: ``StrataError/Code/invalidArgument`` when the source version has no such entity.
    public func sourceObjects(_ entity: String) throws -> [MigrationObject] {
        var objects: [MigrationObject] = []
        try forEachSourceObject(entity) { objects.append($0) }
        return objects
    }

    /// Calls `body` with each object of the source version's entity `entity`, in ID order, reading one
    /// at a time (for entities too large to hold in memory at once).
    public func forEachSourceObject(_ entity: String, _ body: (MigrationObject) throws -> Void) throws {
        let (description, statement) = try query(entity, where: nil)
        defer { statement.reset() }
        while try statement.step() {
            try body(object(description, statement))
        }
    }

    /// The object `id` of the source version's entity `entity` as it was before the step, or `nil`.
    public func sourceObject(_ entity: String, id: Int64) throws -> MigrationObject? {
        let (description, statement) = try query(entity, where: id)
        defer { statement.reset() }
        return try statement.step() ? object(description, statement) : nil
    }

    private func query(_ entity: String, where id: Int64?) throws(StrataError) -> (EntityDescription, Statement) {
        try transaction.checkOpen()
        guard let description = source.entity(named: entity) else {
            throw StrataError(
                .invalidArgument,
                "Version \(sourceVersion) has no entity \(entity) (it has \(source.entities.map(\.name).joined(separator: ", "))).",
                entity: entity)
        }
        let columns = (["id"] + description.fields.map(\.column)).map(dialect.quote).joined(separator: ", ")
        let statement = try connection.cachedStatement(
            "SELECT \(columns) FROM temp.\(dialect.quote(Self.sourceTable(entity)))"
                + (id == nil ? " ORDER BY \"id\"" : " WHERE \"id\" = ?"))
        if let id { try statement.bind([.integer(id)]) }
        return (description, statement)
    }

    private func object(_ description: EntityDescription, _ statement: Statement) -> MigrationObject {
        let names = fieldNames[description.name] ?? MigrationObject.FieldNames(description.fields.map(\.property))
        fieldNames[description.name] = names
        let values = (0..<description.fields.count).map { statement.value(at: Int32($0 + 1)) }
        guard case .integer(let id) = statement.value(at: 0) else {
            return MigrationObject(entity: description.name, id: 0, names: names, values: values)
        }
        return MigrationObject(entity: description.name, id: id, names: names, values: values)
    }
}
