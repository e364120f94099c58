import Foundation

/// A store that lives as long as its ``DataStack``: for tests, previews and caches.
///
/// Every `InMemoryStore` stack has a database of its own. It behaves exactly like a file store —
/// the same WAL isolation, so readers see the writer's commits and never wait for a write in
/// progress — because it is one: a private file in RAM-backed storage (`/dev/shm` on Linux when it
/// has at least 512 MB free, the temporary directory otherwise and elsewhere), written without
/// `fsync`, and removed when the stack is closed or released. Files that crashed processes left
/// behind are removed the first time a process makes an in-memory store.
/// (SQLite's own `:memory:` databases cannot be shared between a writer and concurrent readers
/// without readers blocking on the writer's locks.)
public struct InMemoryStore: Storage {
    /// A new, empty store.
    public init() {}

    public func location() throws(StrataError) -> StorageLocation {
        let directory = Self.directory
        let name = "\(Self.filePrefix)\(Self.pidNamespace)-\(getpid())-\(UUID().uuidString).sqlite"
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        return StorageLocation(path: path, isTemporary: true, defaultSynchronous: .off)
    }

    static let filePrefix = "strata-memory-"

    /// The least free space for which `/dev/shm` is used: container runtimes often cap it at 64 MB, and
    /// a store that outgrows it fails with "database or disk is full".
    static let minimumSharedMemorySpace: UInt64 = 512 * 1024 * 1024

    /// Where in-memory stores live: `/dev/shm` when it is there, writable and has room, else the
    /// temporary directory. Chosen once per process, after removing the stores that processes which
    /// no longer run left behind (a crash skips the cleanup of their files).
    static let directory: String = {
        let temporary = NSTemporaryDirectory()
        let shm = "/dev/shm"
        var isDirectory: ObjCBool = false
        let hasShm = FileManager.default.fileExists(atPath: shm, isDirectory: &isDirectory) && isDirectory.boolValue
            && access(shm, W_OK) == 0
        removeOrphans(in: temporary)
        guard hasShm else { return temporary }
        removeOrphans(in: shm)
        return (freeSpace(at: shm) ?? 0) >= minimumSharedMemorySpace ? shm : temporary
    }()

    /// The bytes free to an unprivileged process at `path`.
    static func freeSpace(at path: String) -> UInt64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// The process's PID namespace on Linux (0 elsewhere): containers that share `/dev/shm` number their
    /// processes apart, so a process ID means something only within its namespace.
    static let pidNamespace: UInt64 = {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/self/ns/pid", &buffer, buffer.count - 1)
        guard count > 0 else { return 0 }
        let link = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)   // "pid:[4026531836]"
        return UInt64(link.filter(\.isNumber)) ?? 0
    }()

    /// Removes the files of in-memory stores whose process is gone (`strata-memory-<namespace>-<pid>-…`),
    /// among the processes of this PID namespace.
    static func removeOrphans(in directory: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(filePrefix) {
            let parts = name.dropFirst(filePrefix.count).split(separator: "-", maxSplits: 2)
            guard parts.count == 3, UInt64(parts[0]) == pidNamespace, let pid = Int32(parts[1]), pid != getpid() else {
                continue
            }
            // ESRCH: no such process. (EPERM means it runs under another user: keep its files.)
            if kill(pid, 0) != 0, errno == ESRCH {
                unlink(URL(fileURLWithPath: directory).appendingPathComponent(name).path)
            }
        }
    }
}
