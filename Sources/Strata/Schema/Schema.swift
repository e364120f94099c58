/// One version of a data model: a name and the entities it holds.
///
/// ```swift
/// let schema = Schema("V1", Person.self, Pet.self)
/// ```
/// A new store gets a table per entity, with its indexes. A store remembers the version name and a
/// hash of the entities (the version lock): opening it with a schema whose name or entities differ
/// throws ``StrataError/Code/schemaMismatch`` instead of touching the data.
public struct Schema: Sendable {
    /// The version name, for example `"V1"`.
    public let version: String
    /// The entities, in the order given.
    public let entities: [EntityDescription]
    /// The identities of the entities' Swift types, in the same order (relationships refer to them).
    let entityTypes: [ObjectIdentifier]
    /// The Swift type names with their enclosing types (`V2.Recipe`), by identity, for messages.
    var entityTypeNames: [ObjectIdentifier: String] = [:]
    /// The lock declared for this version, if any: a stack refuses the schema when its entities no
    /// longer match it.
    public let declaredVersionLock: VersionLock?
    /// The configurations declared with ``configuration(_:_:)``: named ones in declaration order, and
    /// the entities placed in each (by name; the default configuration is the key `""`).
    var declaredConfigurations: [(name: String, entities: [String])] = []
    /// Whether ``configuration(_:_:)`` was given an empty name, which validation refuses (the default
    /// configuration is `nil`).
    var namesEmptyConfiguration = false
    /// For a schema ``restricted(to:)`` one configuration: the entities of the whole version that live in
    /// other configurations only, with those configurations' keys (for the messages of migrations).
    var elsewhere: [String: [String]] = [:]

    /// Declares a schema version with its entities and, once it shipped, its ``VersionLock``.
    public init(_ version: String, _ entities: any Entity.Type..., versionLock: VersionLock? = nil) {
        self.init(version, entities: entities, versionLock: versionLock)
    }

    /// Declares a schema version with its entities and, once it shipped, its ``VersionLock``.
    public init(_ version: String, entities: [any Entity.Type], versionLock: VersionLock? = nil) {
        self.version = version
        self.entities = entities.map { $0.entityDescription }
        self.entityTypes = entities.map { ObjectIdentifier($0) }
        self.entityTypeNames = Dictionary(
            entities.map { (ObjectIdentifier($0), EntityReference.qualifiedName(of: $0)) }, uniquingKeysWith: { first, _ in first })
        self.declaredVersionLock = versionLock
    }

    /// A schema with these members as they are (for ``restricted(to:)``).
    init(version: String, entities: [EntityDescription], entityTypes: [ObjectIdentifier], declaredVersionLock: VersionLock?) {
        self.version = version
        self.entities = entities
        self.entityTypes = entityTypes
        self.declaredVersionLock = declaredVersionLock
    }

    /// The entity with this name, if it is part of the schema.
    public func entity(named name: String) -> EntityDescription? {
        entities.first { $0.name == name }
    }

    /// A stable hash of every entity, field, column, type and option: the version lock.
    ///
    /// Two schemas with the same hash create the same tables. It is FNV-1a over a canonical text, so
    /// it is the same on every platform and in every process, and it does not depend on the order in
    /// which entities, fields, relationships or options are declared (tables are read and written by
    /// column name, never by position), nor on how Swift prints a value.
    public var versionHash: String {
        Self.fnv1a(canonicalText)
    }

    /// The lock of the entities as declared now: print it once the version ships and pass it as
    /// `versionLock:`.
    public var versionLock: VersionLock {
        var locked: [String: String] = [:]
        for entity in entities {
            var members: [(String, String)] = entity.fields.map { field in
                let options = field.options.map(Self.name(of:)).sorted().joined(separator: "+")
                return (field.property, "\(field.column):\(field.storageClass.rawValue):\(field.isOptional ? "null" : "notnull"):\(options)"
                    + kindText(field.kind))
            }
            members += entity.toMany.map { relationship in
                (relationship.property, "\(entityName(relationship.target)):\(relationship.isOrdered ? "ordered" : "set"):"
                    + (relationship.inverse ?? ""))
            }
            members += entity.derived.map { ($0.property, "\($0.function.rawValue)(\($0.relationship).\($0.attribute ?? ""))") }
            // Constraints and indexes over several fields, under names no property has (`#Unique(a,b)`).
            members += entity.uniqueConstraints.map {
                ("#Unique(\($0.joined(separator: ",")))", "unique:" + entity.columns(of: $0).joined(separator: "+"))
            }
            members += entity.indexes.map {
                ("#Index(\($0.joined(separator: ",")))", "index:" + entity.columns(of: $0).joined(separator: "+"))
            }
            locked[entity.name] = members.sorted { $0.0 < $1.0 }
                .map { "\(VersionLock.escaped($0.0))=\(Self.fnv1a($0.1).suffix(8))" }
                .joined(separator: " ")
        }
        return VersionLock(entities: locked)
    }

    /// Whether a store's recorded hash was made by this schema (with the current lock, or the first one).
    func isStoredHash(_ hash: String) -> Bool {
        hash == versionHash || hash == legacyVersionHash
    }

    /// The hash that stores made before the version lock ignored declaration order hold: such a store
    /// opens with the same schema and gets the new hash.
    var legacyVersionHash: String {
        Self.fnv1a(legacyCanonicalText)
    }

    private static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The canonical text: entities by name, fields by column, relationships and derived fields by
    /// property, options by their names, each spelled out here.
    var canonicalText: String {
        "lock2;" + entitiesText(inDeclarationOrder: false)
    }

    /// The canonical text of the first version lock, in declaration order (kept to recognise old stores).
    var legacyCanonicalText: String {
        entitiesText(inDeclarationOrder: true)
    }

    /// Every entity, by name, with its fields, to-many relationships and derived fields, either in
    /// declaration order or sorted (fields by column, the others by property).
    private func entitiesText(inDeclarationOrder: Bool) -> String {
        func ordered<T>(_ items: [T], by key: (T) -> String) -> [T] {
            inDeclarationOrder ? items : items.sorted { key($0) < key($1) }
        }
        return entities.sorted { $0.name < $1.name }.map { entity in
            let fields = ordered(entity.fields, by: \.column).map { field in
                let options = field.options.map(Self.name(of:)).sorted().joined(separator: "+")
                return "\(field.column):\(field.storageClass.rawValue):\(field.isOptional ? "null" : "notnull"):\(options)"
                    + kindText(field.kind)
            }
            let toMany = ordered(entity.toMany, by: \.property).map { relationship in
                "\(relationship.property)>\(entityName(relationship.target)):\(relationship.isOrdered ? "ordered" : "set"):"
                    + (relationship.inverse ?? "")
            }
            let derived = ordered(entity.derived, by: \.property).map {
                "\($0.property)=\($0.function.rawValue)(\($0.relationship).\($0.attribute ?? ""))"
            }
            return "\(entity.name)(\(fields.joined(separator: ",")))[\(toMany.joined(separator: ","))]{\(derived.joined(separator: ","))}"
                + Self.compositesText(entity)
        }.joined(separator: ";")
    }

    /// The unique constraints and indexes over several fields, by their columns in order, sorted: empty
    /// when the entity has none, so that the hash of a schema without them is the one it had before
    /// they existed.
    private static func compositesText(_ entity: EntityDescription) -> String {
        var text = ""
        let unique = entity.uniqueConstraints.map { entity.columns(of: $0).joined(separator: "+") }.sorted()
        if !unique.isEmpty { text += "<unique:\(unique.joined(separator: ","))>" }
        let indexes = entity.indexes.map { entity.columns(of: $0).joined(separator: "+") }.sorted()
        if !indexes.isEmpty { text += "<index:\(indexes.joined(separator: ","))>" }
        return text
    }

    private static func name(of option: FieldOption) -> String {
        switch option {
        case .unique: "unique"
        case .indexed: "indexed"
        }
    }

    private func kindText(_ kind: FieldDescription.FieldKind) -> String {
        switch kind {
        case .attribute: ""
        case .coded: ":coded"
        case .toOne(let relationship): ":toOne>\(entityName(relationship.target)):\(relationship.inverse ?? "")"
        }
    }

    /// The entity name of a referenced type (its type name when it is not part of the schema).
    func entityName(_ reference: EntityReference) -> String {
        entityTypes.firstIndex(of: reference.type).map { entities[$0].name } ?? reference.typeName
    }

    /// What the schema declares that Strata ignores or that is probably a mistake, each said in a
    /// sentence (a to-one relationship's `inverse:` that names no to-many pointing back; a to-many and
    /// the one to-one of its target pointing back with no `inverse:` on either, kept as two unrelated
    /// relationships): a stack logs them as warnings when it opens.
    public var warnings: [String] {
        (try? SchemaGraph(schema: self))?.warnings ?? []
    }

    /// Checks names (no empty or duplicate entity names, no duplicate columns, no reserved names) and
    /// the declared version lock.
    func validate() throws(StrataError) {
        guard !version.isEmpty else {
            throw StrataError(.invalidArgument, "A schema needs a non-empty version name.")
        }
        if let declaredVersionLock {
            let lock = versionLock
            if let malformed = declaredVersionLock.malformedEntry {
                throw StrataError(
                    .invalidArgument,
                    "The version lock of schema \(version) is not as Schema.versionLock prints it: the entry of "
                        + "\(malformed.entity) is \"\(malformed.text)\", where 'member=hash' pairs (8 hex digits) are expected. "
                        + "Paste the lock printed for the version as it shipped: \(lock)",
                    entity: malformed.entity)
            }
            let differences = lock.differences(from: declaredVersionLock)
            if let first = differences.first {
                throw StrataError(
                    .schemaMismatch,
                    "Schema \(version) was locked when it shipped, and its entities changed since: "
                        + differences.map(\.change).joined(separator: "; ") + ". A version that shipped must stay as "
                        + "it was: undo the edit and declare the change in a new version. If \(version) never shipped, "
                        + "declare its new lock: versionLock: \(lock)",
                    entity: first.entity, field: first.member)
            }
        }
        var names: Set<String> = []
        for entity in entities {
            let lowered = entity.name.lowercased()
            guard !entity.name.isEmpty, !lowered.hasPrefix("sqlite_"), !lowered.hasPrefix("strata_") else {
                throw StrataError(
                    .invalidArgument,
                    "The entity name '\(entity.name)' is reserved; names starting with sqlite_ or strata_ "
                        + "belong to SQLite and Strata. Give the entity another name with @Entity(name:).",
                    entity: entity.name)
            }
            guard names.insert(lowered).inserted else {
                throw StrataError(
                    .invalidArgument,
                    "Schema \(version) holds two entities named '\(entity.name)' (names are case-insensitive "
                        + "in SQLite). Rename one with @Entity(name:).",
                    entity: entity.name)
            }
            var columns: Set<String> = ["id"]
            for field in entity.fields where !columns.insert(field.column.lowercased()).inserted {
                throw StrataError(
                    .invalidArgument,
                    "Entity \(entity.name) has two fields stored in column '\(field.column)', or uses the "
                        + "reserved column 'id'. Give one another column with @Field(column:).",
                    entity: entity.name, field: field.property)
            }
        }
        for entity in entities { try validateComposites(entity) }
        let graph = try SchemaGraph(schema: self)
        try validateGeneratedNames(graph)
        try validateConfigurations(graph)
    }

    /// Refuses a unique constraint or an index over several fields (``EntityDescription/uniqueConstraints``,
    /// ``EntityDescription/indexes``) that is empty, repeats a field or names no stored field: the
    /// macro refuses them at compile time, a description written by hand here.
    private func validateComposites(_ entity: EntityDescription) throws(StrataError) {
        for (kind, lists) in [("unique constraint", entity.uniqueConstraints), ("index", entity.indexes)] {
            for list in lists {
                let problem: String? =
                    if list.isEmpty { "lists no field" }
                    else if let name = list.first(where: { entity.field(forProperty: $0) == nil }) {
                        "names '\(name)', which is not a stored field of \(entity.name) (attributes, coded fields and "
                            + "to-one relationships are)"
                    } else if Set(list).count != list.count { "names a field twice" }
                    else { nil }
                guard let problem else { continue }
                throw StrataError(
                    .invalidArgument,
                    "The \(kind) [\(list.joined(separator: ", "))] of \(entity.name) \(problem). List stored fields, each once.",
                    entity: entity.name, field: list.first)
            }
        }
    }

    /// Refuses a schema in which a name Strata makes (the hidden position column of an ordered
    /// relationship, an index, a join table) is taken by another, declared or made: SQLite would refuse
    /// the store's tables with a message about names the user never wrote.
    private func validateGeneratedNames(_ graph: SchemaGraph) throws(StrataError) {
        for entity in entities {
            for hidden in graph.positionColumns[entity.name] ?? [] {
                guard let field = entity.fields.first(where: { $0.column.lowercased() == hidden.lowercased() }) else { continue }
                throw StrataError(
                    .invalidArgument,
                    "Entity \(entity.name) stores \(field.property) in column '\(field.column)', which Strata uses to keep the "
                        + "order of an ordered relationship whose inverse is \(entity.name).\(hidden.dropLast(SchemaGraph.positionSuffix.count)). "
                        + "Give the field another column with @Field(column:).",
                    entity: entity.name, field: field.property)
            }
        }
        // Tables and indexes share one namespace in SQLite, case-insensitively.
        var owners: [String: String] = [:]
        func claim(_ name: String, by owner: String) throws(StrataError) {
            if let other = owners.updateValue(owner, forKey: name.lowercased()), other != owner {
                throw StrataError(
                    .invalidArgument,
                    "Schema \(version) needs the name '\(name)' twice in the store: for \(other) and for \(owner). Rename an "
                        + "entity with @Entity(name:), a relationship, or a field's column with @Field(column:).")
            }
        }
        let sql = SchemaSQL()
        for entity in entities {
            try claim(entity.name, by: "entity \(entity.name)")
            let indexes = sql.indexes(entity, graph: graph)
            for (offset, index) in indexes.enumerated()
            where indexes[..<offset].contains(where: { $0.name.lowercased() == index.name.lowercased() }) {
                // Index names join columns with `_`: columns `a_b` and `c` give the name that `a` and `b_c` give.
                throw StrataError(
                    .invalidArgument,
                    "Entity \(entity.name) needs the index name '\(index.name)' for two different indexes, because a column name "
                        + "holds an underscore. Give that field another column with @Field(column:).",
                    entity: entity.name)
            }
            for index in indexes { try claim(index.name, by: "an index of \(entity.name)") }
        }
        for join in graph.joinTables {
            try claim(join.name, by: "a join table")
            for index in sql.joinIndexes(join) { try claim(index.name, by: "an index of the join table \(join.name)") }
        }
    }
}
