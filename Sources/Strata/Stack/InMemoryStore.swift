import Foundation

/// A store that lives as long as its ``DataStack``: for tests, previews and caches.
///
/// Every `InMemoryStore` stack has a database of its own. It behaves exactly like a file store —
/// the same WAL isolation, so readers see the writer's commits and never wait for a write in
/// progress — because it is one: a private file in RAM-backed storage (`/dev/shm` on Linux, the
/// temporary directory elsewhere), written without `fsync`, and removed when the stack is released.
/// (SQLite's own `:memory:` databases cannot be shared between a writer and concurrent readers
/// without readers blocking on the writer's locks.)
public struct InMemoryStore: Storage {
    /// A new, empty store.
    public init() {}

    public func location() throws(StrataError) -> StorageLocation {
        let shm = "/dev/shm"
        var isDirectory: ObjCBool = false
        let directory: String
        if FileManager.default.fileExists(atPath: shm, isDirectory: &isDirectory), isDirectory.boolValue,
            access(shm, W_OK) == 0
        {
            directory = shm
        } else {
            directory = NSTemporaryDirectory()
        }
        let name = "strata-memory-\(getpid())-\(UUID().uuidString).sqlite"
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        return StorageLocation(path: path, isTemporary: true, defaultSynchronous: .off)
    }
}
