/// Where a ``DataStack`` keeps its data: ``InMemoryStore`` or ``SQLiteStore``.
public protocol Storage: Sendable {
    /// Resolves the location of the database, creating directories where the storage promises to.
    func location() throws(StrataError) -> StorageLocation
}

/// A resolved database location. Made by the storages Strata provides.
public struct StorageLocation: Sendable {
    /// The path SQLite opens.
    public let path: String
    /// Whether the files are removed when the stack goes away.
    public let isTemporary: Bool
    /// The `synchronous` setting this storage wants unless the configuration overrides it.
    let defaultSynchronous: DataStack.Synchronous
    /// Whether a store the schema cannot open is deleted and made anew (``SQLiteStore/recreatingOnSchemaMismatch()``).
    let recreatesOnSchemaMismatch: Bool
    /// The schema configuration whose entities this store holds (`nil`: the default configuration).
    var configuration: String?

    init(path: String, isTemporary: Bool, defaultSynchronous: DataStack.Synchronous, recreatesOnSchemaMismatch: Bool = false) {
        self.path = path
        self.isTemporary = isTemporary
        self.defaultSynchronous = defaultSynchronous
        self.recreatesOnSchemaMismatch = recreatesOnSchemaMismatch
    }

    /// Refuses an empty configuration name: the default configuration is `nil`, and `""` would be
    /// taken for it.
    static func checkConfigurationName(_ name: String?) throws(StrataError) {
        guard name == "" else { return }
        throw StrataError(
            .invalidArgument,
            "A storage names the configuration \"\", which is not a name; leave the configuration out (nil) for the "
                + "default configuration, or give it the name the schema declares.")
    }
}
