import Foundation

/// The files of a store, and whether they go away with it.
///
/// Kept alive by the writer and every reader connection, so a temporary (in-memory) store's files are
/// removed only once the last connection is gone.
final class StoreFiles: Sendable {
    let path: String
    let isTemporary: Bool
    /// The files of the other stores of a stack of several, attached to every connection of this one.
    private let attached: Locked<[StoreFiles]>

    init(path: String, isTemporary: Bool, attached: [StoreFiles] = []) {
        self.path = path
        self.isTemporary = isTemporary
        self.attached = Locked(attached)
    }

    /// Keeps the files of a store added to the stack.
    func attach(_ files: StoreFiles) {
        attached.withLock { $0.append(files) }
    }

    /// The paths of the stores another process may write to: every store but in-memory ones.
    var watchablePaths: [String] {
        (isTemporary ? [] : [path]) + attached.withLock { $0.filter { !$0.isTemporary }.map(\.path) }
    }

    /// The paths of the main store and the attached ones.
    var allPaths: [String] { [path] + attached.withLock { $0.map(\.path) } }

    deinit {
        removeIfTemporary()
    }

    /// The size of the write-ahead log file in bytes; 0 when there is none.
    var walFileSize: Int {
        var info = stat()
        guard stat(path + "-wal", &info) == 0 else { return 0 }
        return Int(info.st_size)
    }

    /// Removes the files of a temporary store (idempotent).
    func removeIfTemporary() {
        for files in attached.withLock({ $0 }) { files.removeIfTemporary() }
        guard isTemporary else { return }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            unlink(path + suffix)
        }
    }
}
