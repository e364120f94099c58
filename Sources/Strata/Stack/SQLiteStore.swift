public import Foundation

/// A store in a SQLite file, created if missing, in WAL mode.
///
/// ```swift
/// SQLiteStore(path: "/var/lib/app/app.sqlite")
/// SQLiteStore(fileName: "app.sqlite")   // in the application support directory
/// ```
/// Opening a file that is not a SQLite database, or a location that cannot be written, throws
/// ``StrataError/Code/notADatabase``, ``StrataError/Code/cannotOpen`` or ``StrataError/Code/readOnly``
/// and changes nothing on disk.
public struct SQLiteStore: Storage {
    private enum Place: Sendable {
        case path(String)
        case fileName(String)
    }

    private let place: Place
    private var recreates = false
    private var configurationName: String?

    /// A store at this path. The directory must exist. A path is a file's, never an SQLite URI: one that
    /// begins with `file:` is refused (``StrataError/Code/invalidArgument``).
    public init(path: String) {
        place = .path(path)
    }

    /// A store at this file URL. The directory must exist.
    public init(url: URL) {
        place = .path(url.path)
    }

    /// A store with this file name in the default directory: the application support directory
    /// (`~/Library/Application Support/<bundle id>` on Apple platforms, `$XDG_DATA_HOME` or
    /// `~/.local/share` on Linux), created if missing.
    public init(fileName: String) {
        place = .fileName(fileName)
    }

    /// The same store, deleted and made anew, empty, when it was made by a schema version the app cannot
    /// open: a version its ``SchemaHistory`` does not declare (an older app without that version, or a
    /// newer app), or a declared version whose entities were edited since. For caches, whose data can
    /// be fetched again; never the default. A store the app can migrate is migrated, and a file that
    /// Strata did not make is never deleted. Only one process should open such a store.
    ///
    /// ```swift
    /// let cache = try await DataStack(schema, storage: SQLiteStore(path: path).recreatingOnSchemaMismatch())
    /// ```
    public func recreatingOnSchemaMismatch() -> SQLiteStore {
        var store = self
        store.recreates = true
        return store
    }

    /// The same store, holding the entities of the schema configuration `name` (see
    /// ``Schema/configuration(_:_:)``) in a stack of several stores; `nil` (the default) holds the
    /// default configuration's.
    ///
    /// ```swift
    /// let stack = try await DataStack(schema, storages: [
    ///     SQLiteStore(path: "app.sqlite"),
    ///     SQLiteStore(path: "cache.sqlite").configuration("Cache"),
    /// ])
    /// ```
    /// An empty name is refused when the stack opens (``StrataError/Code/invalidArgument``): the default
    /// configuration is `nil`.
    public func configuration(_ name: String?) -> SQLiteStore {
        var store = self
        store.configurationName = name
        return store
    }

    /// The default directory for ``init(fileName:)``.
    public static var defaultDirectory: URL {
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSTemporaryDirectory())
        #if canImport(Darwin)
        if let bundle = Bundle.main.bundleIdentifier {
            return base.appendingPathComponent(bundle, isDirectory: true)
        }
        #endif
        return base
    }

    public func location() throws(StrataError) -> StorageLocation {
        try StorageLocation.checkConfigurationName(configurationName)
        switch place {
        case .path(let path):
            guard !path.isEmpty, !path.hasPrefix(":memory:") else {
                throw StrataError(
                    .invalidArgument,
                    "SQLiteStore needs a file path; use InMemoryStore for a database that lives in memory.")
            }
            // SQLite would read "file:…" as a URI, whose query string (`?mode=memory`) changes what opens.
            guard !path.hasPrefix("file:") else {
                throw StrataError(
                    .invalidArgument,
                    "SQLiteStore takes a file path, not an SQLite URI ('\(path)'): pass the path alone, or \"./\" before a "
                        + "file whose name begins with \"file:\". Use InMemoryStore for a database in memory.")
            }
            // SQLite reads a path up to its first NUL: "dir/abc\0def.sqlite" would open "dir/abc".
            guard !path.utf8.contains(0) else {
                throw StrataError(
                    .invalidArgument,
                    "The store path contains a NUL character, which no file name can hold: \(path.debugDescription).")
            }
            // Absolute and standardized once: every connection (readers open later, after a `chdir`
            // perhaps) opens the same file, and two spellings of one path ("dir/./app.sqlite") are told
            // apart from two files.
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            var location = StorageLocation(
                path: absolute, isTemporary: false, defaultSynchronous: .normal, recreatesOnSchemaMismatch: recreates)
            location.configuration = configurationName
            return location
        case .fileName(let name):
            guard !name.isEmpty, !name.contains("/"), !name.utf8.contains(0) else {
                throw StrataError(
                    .invalidArgument, "SQLiteStore(fileName:) takes a plain file name such as \"app.sqlite\", not '\(name)'.")
            }
            let directory = Self.defaultDirectory
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw StrataError(
                    .cannotOpen, "Cannot create the directory \(directory.path) for the store: \(error.localizedDescription)")
            }
            var location = StorageLocation(
                path: directory.appendingPathComponent(name).path, isTemporary: false, defaultSynchronous: .normal,
                recreatesOnSchemaMismatch: recreates)
            location.configuration = configurationName
            return location
        }
    }
}
