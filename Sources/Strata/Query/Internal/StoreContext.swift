/// The schema of an open stack with the SQL of each entity prepared once, for one of its stores.
///
/// A stack of one store has one context. A stack of several (see ``Schema/configuration(_:_:)``) has
/// one per store: the main database's, which lists the others in ``attached``, and one per attached
/// store, whose statements name its tables with the store's SQLite schema name.
final class StoreContext: Sendable {
    /// The SQL Strata runs for one entity, built once per stack. A class, so that looking it up on every
    /// create or fetch costs one reference count instead of one per field.
    final class EntitySQL: Sendable {
        let description: EntityDescription
        let insert: StatementKey
        let selectByID: StatementKey
        let deleteByID: StatementKey
        /// Whether objects of the entity take part in relationships.
        let hasRelationships: Bool
        /// Its to-one relationships.
        let toOnes: [SchemaGraph.ToOne]

        init(
            description: EntityDescription, insert: StatementKey, selectByID: StatementKey, deleteByID: StatementKey,
            hasRelationships: Bool, toOnes: [SchemaGraph.ToOne]
        ) {
            self.description = description
            self.insert = insert
            self.selectByID = selectByID
            self.deleteByID = deleteByID
            self.hasRelationships = hasRelationships
            self.toOnes = toOnes
        }
    }

    let schema: Schema
    let graph: SchemaGraph
    let builder: QueryBuilder
    /// The configuration whose entities this store holds (`""`: the default one).
    let configuration: String
    /// The schema restricted to this store's entities: what its file holds and its version lock covers.
    let storeSchema: Schema
    /// The names of the entities this store holds.
    let storeEntities: Set<String>
    /// The store's tag, which its IDs carry (0 in a stack of one store, where the connection's tag is used).
    let tag: UInt32
    /// The other stores of a stack of several, on the main store's context; empty otherwise.
    let attached: [StoreContext]
    /// Whether accesses must choose a store: the stack has several, or the schema has configurations
    /// (so the one store may not hold every entity).
    let isPartitioned: Bool
    private let entities: [String: EntitySQL]
    /// The same, by Swift type, for the hot path.
    private let entitiesByType: [ObjectIdentifier: EntitySQL]
    /// The entities whose objects take part in relationships (as source or target).
    private let related: Set<String>

    init(
        schema: Schema, configuration: String = "", schemaName: String? = nil, tag: UInt32 = 0, attached: [StoreContext] = []
    ) throws(StrataError) {
        let graph = try SchemaGraph(schema: schema)
        let builder = QueryBuilder(graph: graph, schemaName: schemaName)
        self.schema = schema
        self.graph = graph
        self.builder = builder
        self.configuration = configuration
        self.storeSchema = schema.hasConfigurations ? schema.restricted(to: configuration) : schema
        self.storeEntities = Set(storeSchema.entities.map(\.name))
        self.tag = tag
        self.attached = attached
        self.isPartitioned = !attached.isEmpty || schema.hasConfigurations
        let mainOnly = attached.isEmpty ? nil : try StoreContext(schema: schema, configuration: configuration, tag: tag)
        self.mainOnly = mainOnly
        var homes: [String: [StoreContext]] = [:]
        if let mainOnly {
            for store in [mainOnly] + attached {
                for entity in store.storeSchema.entities { homes[entity.name, default: []].append(store) }
            }
        }
        self.homes = homes
        var byTag: [UInt32: StoreContext] = [:]
        var byConfiguration: [String: StoreContext] = [:]
        if let mainOnly {
            for store in [mainOnly] + attached {
                byTag[store.tag] = store
                byConfiguration[store.configuration] = store
            }
        }
        self.byTag = byTag
        self.byConfiguration = byConfiguration
        var related: Set<String> = []
        for relationships in graph.toMany.values {
            for relationship in relationships { related.formUnion([relationship.source, relationship.target]) }
        }
        for relationships in graph.toOne.values {
            for relationship in relationships { related.formUnion([relationship.source, relationship.target]) }
        }
        self.related = related
        var entities: [String: EntitySQL] = [:]
        for description in schema.entities {
            entities[description.name] = EntitySQL(
                description: description,
                insert: StatementKey(builder.insert(description)),
                selectByID: StatementKey(try builder.selectByID(description)),
                deleteByID: StatementKey(builder.deleteByID(description)),
                hasRelationships: related.contains(description.name),
                toOnes: graph.toOne[description.name] ?? [])
        }
        self.entities = entities
        var byType: [ObjectIdentifier: EntitySQL] = [:]
        for (type, description) in zip(schema.entityTypes, schema.entities) {
            byType[type] = entities[description.name]
        }
        self.entitiesByType = byType
    }

    /// Whether this is the main context of a stack of several stores.
    var hasSeveralStores: Bool { !attached.isEmpty }

    /// Every store of the stack, main first: for a stack of several, a context of the main database
    /// alone (this one reads across stores), then the attached ones; this one for a stack of one store.
    var allStores: [StoreContext] { [mainOnly ?? self] + attached }
    /// For a stack of several stores, the context of the main database alone (this one reads across).
    private let mainOnly: StoreContext?
    /// For a stack of several stores, the stores that hold each entity, main first.
    private let homes: [String: [StoreContext]]
    /// For a stack of several stores, each store by tag and by configuration.
    private let byTag: [UInt32: StoreContext]
    private let byConfiguration: [String: StoreContext]

    /// The stores of the stack that hold `entity`, main first.
    func stores(holding entity: String) -> [StoreContext] {
        if mainOnly != nil { return homes[entity] ?? [] }
        return storeEntities.contains(entity) ? [self] : []
    }

    /// The stores of each entity by SQLite schema name (`nil`: main), for the ID allocator of a stack
    /// of several stores; empty for a stack of one.
    var idHomes: [String: [String?]] {
        homes.mapValues { $0.map(\.builder.schemaName) }
    }

    /// The store of the stack whose IDs carry `tag`, if it is one of the stack's.
    func store(tagged tag: UInt32) -> StoreContext? {
        if mainOnly != nil { return byTag[tag] }
        return tag == self.tag ? self : nil
    }

    /// The store of the stack of a configuration, if it has one.
    func store(ofConfiguration key: String) -> StoreContext? {
        if mainOnly != nil { return byConfiguration[key] }
        return key == configuration ? self : nil
    }

    /// The configuration's name as the API spells it: `nil` for the default one.
    var configurationName: String? { configuration.isEmpty ? nil : configuration }

    /// Whether objects of an entity take part in relationships (their own or others' pointing at them),
    /// so that writes must keep them stored and deletes must apply rules.
    func hasRelationships(_ entity: String) -> Bool {
        related.contains(entity)
    }

    /// The prepared SQL of an entity, or an error when the entity is not part of the schema.
    func entity<E: Entity>(_ type: E.Type) throws(StrataError) -> EntitySQL {
        if let entity = entitiesByType[ObjectIdentifier(type)] { return entity }
        let name = E.entityDescription.name
        guard let entity = entities[name] else {
            throw StrataError(
                .invalidArgument,
                "\(E.self) is not part of schema \(schema.version); add it to the Schema the stack was opened with.",
                entity: name)
        }
        return entity
    }

    /// The entity and the properties named in the `table.column` list of a SQLite constraint message
    /// (what follows "UNIQUE constraint failed: "): one for a field's own constraint, several for a unique
    /// constraint over several fields (``Unique(_:)``), in its order; `nil` when it names none.
    ///
    /// Entity and column names may hold dots and commas themselves (`@Entity(name: "app.Person")`), so
    /// each item is matched against the schema's own `table.column` names, the longest one it starts
    /// with winning; a table the schema does not know is split at its first dot.
    func describeConstraint(columns list: Substring) -> (entity: String, fields: [String])? {
        var rest = list
        var named: (entity: String, fields: [String])?
        while !rest.isEmpty {
            guard let (entity, field, length) = firstConstraintColumn(rest) else { break }
            if named == nil { named = (entity, []) }
            if named?.entity == entity { named?.fields.append(field) }
            rest = rest.dropFirst(length)
            guard rest.hasPrefix(", ") else { break }
            rest = rest.dropFirst(2)
        }
        return named
    }

    /// The entity and property of the `table.column` that `list` starts with, and its length.
    private func firstConstraintColumn(_ list: Substring) -> (entity: String, field: String, length: Int)? {
        var best: (length: Int, entity: String, field: String)?
        for entity in schema.entities {
            let columns: [(column: String, property: String)] = [("id", "id")] + entity.fields.map { ($0.column, $0.property) }
            for (column, property) in columns {
                let name = "\(entity.name).\(column)"
                guard name.count > (best?.length ?? 0), list.hasPrefix(name) else { continue }
                let rest = list.dropFirst(name.count)
                guard rest.isEmpty || rest.first == "," else { continue }
                best = (name.count, entity.name, property)
            }
        }
        if let best { return (best.entity, best.field, best.length) }
        let first = list.prefix { $0 != "," }
        guard let dot = first.firstIndex(of: ".") else { return nil }
        return (String(first[..<dot]), String(first[first.index(after: dot)...]), first.count)
    }
}
