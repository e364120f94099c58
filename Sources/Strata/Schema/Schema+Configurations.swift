/// Configurations: named groups of entities, each kept in a store of its own.
///
/// A stack holds one store per configuration it is given a storage for (see
/// ``DataStack/init(_:storages:configuration:)``). An entity named in no configuration belongs to the
/// default configuration, named `nil`; an entity may belong to several configurations, and then lives in
/// each of their stores, with the same table in each.
///
/// ```swift
/// let schema = Schema("V1", Person.self, Thumbnail.self)
///     .configuration("Cache", Thumbnail.self)          // Thumbnail lives in the cache store only
/// let stack = try await DataStack(schema, storages: [
///     SQLiteStore(path: "app.sqlite"),                  // the default configuration: Person
///     SQLiteStore(path: "cache.sqlite").configuration("Cache"),
/// ])
/// ```
extension Schema {
    /// Places `entities` in the configuration `name` (`nil`: the default configuration).
    ///
    /// An entity placed in a named configuration leaves the default one unless it is also placed in
    /// `nil`. Calling this again for the same name adds to that configuration. Relationships cannot
    /// cross stores: every configuration that holds an entity must hold the entities its relationships
    /// point to, which ``DataStack`` checks when it opens.
    ///
    /// An empty name is refused when a stack opens with the schema (``StrataError/Code/invalidArgument``).
    public func configuration(_ name: String?, _ entities: any Entity.Type...) -> Schema {
        var copy = self
        if name == "" {
            copy.namesEmptyConfiguration = true
            return copy
        }
        let key = name ?? ""
        let names = entities.map { $0.entityDescription.name }
        if let index = copy.declaredConfigurations.firstIndex(where: { $0.name == key }) {
            copy.declaredConfigurations[index].entities += names.filter { !copy.declaredConfigurations[index].entities.contains($0) }
        } else {
            copy.declaredConfigurations.append((key, names))
        }
        return copy
    }

    /// Every configuration with at least one entity: `nil` (the default one) first when it holds any
    /// entity, then the named ones in the order they were declared.
    public var configurations: [String?] {
        var result: [String?] = []
        if !entities(in: nil).isEmpty { result.append(nil) }
        for declared in declaredConfigurations where !declared.name.isEmpty { result.append(declared.name) }
        return result
    }

    /// The configurations that hold the entity `name`, default (`nil`) first.
    public func configurations(ofEntity name: String) -> [String?] {
        configurationKeys(of: name).map { $0.isEmpty ? nil : $0 }
    }

    /// The entities of a configuration (`nil`: the default one), in the schema's order.
    public func entities(in configuration: String?) -> [EntityDescription] {
        let key = configuration ?? ""
        return entities.filter { configurationKeys(of: $0.name).contains(key) }
    }

    /// Whether the schema declares configurations at all.
    var hasConfigurations: Bool { !declaredConfigurations.isEmpty }

    /// The configuration keys of an entity (`""`: the default one), default first, then in declaration order.
    func configurationKeys(of entity: String) -> [String] {
        var keys: [String] = []
        var named = false
        for declared in declaredConfigurations where declared.entities.contains(entity) {
            if declared.name.isEmpty { keys.insert("", at: 0) } else { keys.append(declared.name); named = true }
        }
        if !named, !keys.contains("") { keys.insert("", at: 0) }
        return keys
    }

    /// Whether the schema declares the configuration `key` (`""`: the default one, always declared).
    func declaresConfiguration(_ key: String) -> Bool {
        key.isEmpty || declaredConfigurations.contains { $0.name == key }
    }

    /// Refuses a storage for a configuration (`""`: the default one) the schema does not declare,
    /// naming the ones it does.
    func checkStorageConfiguration(_ key: String) throws(StrataError) {
        guard !declaresConfiguration(key) else { return }
        throw StrataError(
            .invalidArgument,
            "A storage names configuration \"\(key)\", which schema \(version) does not declare; its "
                + "configurations: \(configurationList). Declare it with Schema.configuration(_:_:).")
    }

    /// The named configurations, for messages: `nil (default), "Cache"`.
    var configurationList: String {
        configurations.map { $0.map { "\"\($0)\"" } ?? "nil (the default configuration)" }.joined(separator: ", ")
    }

    /// The same version with only the entities of one configuration and no configurations: what that
    /// configuration's store holds, and what its version lock covers.
    func restricted(to key: String) -> Schema {
        let kept = entities.indices.filter { configurationKeys(of: entities[$0].name).contains(key) }
        var schema = Schema(
            version: version, entities: kept.map { entities[$0] }, entityTypes: kept.map { entityTypes[$0] },
            declaredVersionLock: nil)
        schema.entityTypeNames = entityTypeNames
        for entity in entities where schema.entity(named: entity.name) == nil {
            schema.elsewhere[entity.name] = configurationKeys(of: entity.name)
        }
        return schema
    }

    /// Checks the configurations: names, entities that are part of the schema, and relationships that
    /// stay within every store their source lives in; `graph` is the schema's.
    func validateConfigurations(_ graph: SchemaGraph) throws(StrataError) {
        if namesEmptyConfiguration {
            throw StrataError(
                .invalidArgument,
                "Schema \(version) places entities in the configuration \"\", which is not a name; use nil for the default "
                    + "configuration, or a name of one character or more.")
        }
        guard hasConfigurations else { return }
        for declared in declaredConfigurations {
            for name in declared.entities where entity(named: name) == nil {
                throw StrataError(
                    .invalidArgument,
                    "Configuration \(declared.name.isEmpty ? "nil (the default one)" : "\"\(declared.name)\"") of schema "
                        + "\(version) names \(name), which is not one of the schema's entities; add it to the Schema.",
                    entity: name)
            }
        }
        var links: [(source: String, property: String, target: String)] = []
        for entity in entities {
            for toOne in graph.toOne[entity.name] ?? [] { links.append((entity.name, toOne.property, toOne.target)) }
            for toMany in graph.toMany[entity.name] ?? [] { links.append((entity.name, toMany.property, toMany.target)) }
        }
        for link in links {
            let targetKeys = Set(configurationKeys(of: link.target))
            let missing = configurationKeys(of: link.source).filter { !targetKeys.contains($0) }
            guard let first = missing.first else { continue }
            let shown = first.isEmpty ? "the default configuration" : "configuration \"\(first)\""
            throw StrataError(
                .invalidArgument,
                "\(link.source).\(link.property) points to \(link.target), but \(link.source) is in \(shown) and "
                    + "\(link.target) is not: relationships cannot cross stores (a SQLite foreign key stays in its file). "
                    + "Place \(link.target) in every configuration of \(link.source), or drop the relationship.",
                entity: link.source, field: link.property)
        }
    }
}
