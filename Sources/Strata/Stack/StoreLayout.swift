/// The stores a stack opens: which one is the main database, the SQLite schema name each other one is
/// attached under, and the checks of the storages given.
struct StoreLayout {
    struct Store {
        let location: StorageLocation
        /// The configuration (`""`: the default one).
        let configuration: String
        /// The SQLite schema name the store is attached under; `nil` for the main store.
        let schemaName: String?
    }

    /// The main store first, then the attached ones in the order given.
    let stores: [Store]
    /// Whether the stack must choose a store per access (several stores, or a schema with configurations).
    let isPartitioned: Bool

    var main: Store { stores[0] }
    var attached: ArraySlice<Store> { stores.dropFirst() }

    /// The most stores a stack attaches besides the main one (SQLite's default `SQLITE_MAX_ATTACHED`).
    static let maximumAttached = 10

    init(schema: Schema, locations: [StorageLocation]) throws(StrataError) {
        guard !locations.isEmpty else {
            throw StrataError(.invalidArgument, "A stack needs at least one storage.")
        }
        if locations.count > 1 || locations.contains(where: { $0.configuration != nil }) {
            var configurations: Set<String> = []
            var paths: Set<String> = []
            for location in locations {
                let key = location.configuration ?? ""
                try schema.checkStorageConfiguration(key)
                guard configurations.insert(key).inserted else {
                    throw StrataError(
                        .invalidArgument,
                        "Two storages are given for configuration \(StoreContext.shown(key)); a configuration has one store.")
                }
                guard paths.insert(location.path).inserted else {
                    throw StrataError(
                        .invalidArgument, "Two storages are given for the file \(location.path); each store needs a file of its own.")
                }
            }
            guard locations.count - 1 <= Self.maximumAttached else {
                throw StrataError(
                    .invalidArgument,
                    "A stack holds at most \(Self.maximumAttached + 1) stores (SQLite attaches at most \(Self.maximumAttached) "
                        + "databases to a connection); \(locations.count) were given.")
            }
        }
        let mainIndex = locations.firstIndex { $0.configuration == nil } ?? 0
        var ordered = [locations[mainIndex]]
        ordered += locations.indices.filter { $0 != mainIndex }.map { locations[$0] }
        stores = ordered.enumerated().map { index, location in
            Store(location: location, configuration: location.configuration ?? "", schemaName: index == 0 ? nil : "store\(index)")
        }
        // Several stores need configurations: without them every storage is the default one's, refused above.
        isPartitioned = schema.hasConfigurations
    }

    /// Refuses two stores with the same tag (a file copied from another): their IDs could not be told apart.
    func checkTags(_ tags: [UInt32]) throws(StrataError) {
        guard isPartitioned else { return }
        for (index, tag) in tags.enumerated() {
            if let other = tags[..<index].firstIndex(of: tag) {
                throw StrataError(
                    .invalidArgument,
                    "The stores at \(stores[other].location.path) and \(stores[index].location.path) carry the same store tag: "
                        + "one is a copy of the other. A stack's stores must be different stores; give one a new file.")
            }
        }
    }
}
