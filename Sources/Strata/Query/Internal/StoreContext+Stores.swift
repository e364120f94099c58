/// Choosing the store of each access, in a stack of several stores. Called on the main store's
/// context; a stack of one store always answers with that store.
extension StoreContext {
    /// How a configuration is named in messages.
    static func shown(_ key: String) -> String {
        key.isEmpty ? "nil (the default configuration)" : "\"\(key)\""
    }

    /// Whether a read of `entity` in `scope` reads one store only (and so needs no snapshot common to
    /// several): always in a stack of one store.
    func readsOneStore(_ entity: String, scope: [String?]?) -> Bool {
        guard hasSeveralStores else { return true }
        if let scope { return scope.count == 1 }
        return stores(holding: entity).count <= 1
    }

    /// Whether the read of `from` reads one store only.
    func readsOneStore<E: Entity>(_ from: From<E>) -> Bool {
        readsOneStore(E.entityDescription.name, scope: from.configurations)
    }

    /// This store's part of a read across several.
    var branch: QueryBuilder.Branch { QueryBuilder.Branch(builder: builder, tag: tag) }

    /// The stack's configurations with a store, for messages.
    var storeList: String {
        allStores.map { Self.shown($0.configuration) }.joined(separator: ", ")
    }

    /// The stores a fetch of `entity` reads: those of `scope` (configuration names, `nil` for the
    /// default one), or every store holding the entity.
    func stores(for entity: String, scope: [String?]?) throws(StrataError) -> [StoreContext] {
        guard let scope else {
            guard isPartitioned else { return [self] }
            let holding = stores(holding: entity)
            guard !holding.isEmpty else { throw missingEverywhere(entity) }
            return holding
        }
        // As CoreStore does: configurations whose store lacks the entity (or that have no store) are
        // skipped as long as one holds it; a name the schema does not declare is always an error.
        var result: [StoreContext] = []
        var firstError: StrataError?
        for name in scope {
            try Self.refuseEmptyName(name, "From", entity, everyStore: "every store that holds \(entity)")
            do {
                let store = try self.store(named: name ?? "", for: entity)
                if !result.contains(where: { $0 === store }) { result.append(store) }
            } catch {
                guard schema.declaresConfiguration(name ?? "") else { throw error }
                if firstError == nil { firstError = error }
            }
        }
        if result.isEmpty, let firstError { throw firstError }
        return result
    }

    /// The store a new object of `entity` goes to.
    func store<E: Entity>(for into: Into<E>) throws(StrataError) -> StoreContext {
        let entity = E.entityDescription.name
        try Self.refuseEmptyName(into.configuration, "Into", entity, everyStore: "the one store that holds \(entity)")
        if into.isScoped { return try store(named: into.configuration ?? "", for: entity) }
        guard isPartitioned else { return self }
        let holding = stores(holding: entity)
        guard holding.count == 1 else {
            if holding.isEmpty { throw missingEverywhere(entity) }
            let first = holding[1].configurationName.map { "\"\($0)\"" } ?? "nil"
            throw StrataError(
                .invalidArgument,
                "\(entity) lives in several stores of this stack (\(holding.map { Self.shown($0.configuration) }.joined(separator: ", "))): "
                    + "name the one to create the object in, as in Into<\(E.self)>(\(first)).",
                entity: entity)
        }
        return holding[0]
    }

    /// The store of a configuration, which must hold `entity`.
    func store(named key: String, for entity: String) throws(StrataError) -> StoreContext {
        guard schema.declaresConfiguration(key) else {
            throw StrataError(
                .storeNotFound,
                "Configuration \(Self.shown(key)) is not declared by schema \(schema.version); its configurations: "
                    + "\(schema.configurationList).",
                entity: entity)
        }
        guard let store = store(ofConfiguration: key) else {
            throw StrataError(
                .storeNotFound,
                "Configuration \(Self.shown(key)) has no store in this stack; the stack's stores: \(storeList). "
                    + "Give the stack a storage for it with .configuration(\(key.isEmpty ? "nil" : "\"\(key)\"")).",
                entity: entity)
        }
        guard store.storeEntities.contains(entity) else {
            let homes = schema.configurationKeys(of: entity).map(Self.shown).joined(separator: ", ")
            throw StrataError(
                .storeNotFound,
                "The store of configuration \(Self.shown(key)) does not hold \(entity); \(entity) belongs to: \(homes).",
                entity: entity)
        }
        return store
    }

    /// Refuses the configuration name `""` given to `clause` (`From`, `Into`), as ``Schema/configuration(_:_:)``
    /// and storages do: the default configuration is `nil`, and no configuration is named `""`.
    private static func refuseEmptyName(
        _ name: String?, _ clause: String, _ entity: String, everyStore: String
    ) throws(StrataError) {
        guard name == "" else { return }
        throw StrataError(
            .invalidArgument,
            "\(clause)(\"\") for \(entity) names the configuration \"\", which is not a name: use nil for the default "
                + "configuration (\(clause)(nil)), no name for \(everyStore) (\(clause)()), or a name the schema declares.",
            entity: entity)
    }

    private func missingEverywhere(_ entity: String) -> StrataError {
        let homes = schema.configurationKeys(of: entity).map(Self.shown).joined(separator: ", ")
        return StrataError(
            .storeNotFound,
            "No store of this stack holds \(entity): it belongs to \(homes), and the stack's stores are \(storeList).",
            entity: entity)
    }
}

extension StoreContext {
    /// Refuses a query whose filter compares with an ID read from a store that is not one of this
    /// stack's (``SQLQuery/idTags``): it would match that store's row ID here. `connectionTag` is the tag
    /// of the store the query runs on (the only one of a stack of one store).
    func checkIDs(_ query: SQLQuery, connectionTag: UInt32) throws(StrataError) {
        for tag in query.idTags where tag != connectionTag && store(tagged: tag) == nil {
            throw StrataError(
                .invalidArgument,
                "A filter compares with an ID from another store: IDs act only on the store they were read from "
                    + "(another stack, or an in-memory store of its own). Look the object up in this store, or make "
                    + "the ID with EntityID(rawValue:) if you mean this store's row with that number.")
        }
    }
}
