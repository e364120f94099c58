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
    private var configurationName: String?

    /// A new, empty store.
    public init() {}

    /// The same store, holding the entities of the schema configuration `name` (see
    /// ``Schema/configuration(_:_:)``) in a stack of several stores; `nil` (the default) holds the
    /// default configuration's.
    /// An empty name is refused when the stack opens (``StrataError/Code/invalidArgument``): the default
    /// configuration is `nil`.
    public func configuration(_ name: String?) -> InMemoryStore {
        var store = self
        store.configurationName = name
        return store
    }

    public func location() throws(StrataError) -> StorageLocation {
        try StorageLocation.checkConfigurationName(configurationName)
        let directory = Self.directory
        let name = "\(Self.filePrefix)\(Self.pidNamespace)-\(getpid())-\(UUID().uuidString).sqlite"
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        var location = StorageLocation(path: path, isTemporary: true, defaultSynchronous: .off)
        location.configuration = configurationName
        return location
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

    /// Removes the files of in-memory stores whose process is gone.
    ///
    /// A store named by a process of this PID namespace (`strata-memory-<namespace>-<pid>-…`) goes when
    /// that process no longer runs. Any other store — one named by a process of another namespace (a
    /// container sharing `/dev/shm`), or by a version of Strata that named stores
    /// `strata-memory-<pid>-…` — goes when no process has it open: every SQLite connection to a WAL
    /// database keeps a read lock on a byte of its `-shm` file, which the lock's owner loses only by
    /// closing it or ending. A store without a `-shm` file is left alone while it is young (it may be
    /// being created) and removed once it is older than ``abandonedAge``.
    static func removeOrphans(in directory: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let folder = URL(fileURLWithPath: directory)
        let own = "\(filePrefix)\(pidNamespace)-\(getpid())-"
        var examined = Set<String>()
        for name in names where name.hasPrefix(filePrefix) && !name.hasPrefix(own) {
            let base = name.hasSuffix("-wal") || name.hasSuffix("-shm") ? String(name.dropLast(4)) : name
            guard examined.insert(base).inserted else { continue }
            let parts = base.dropFirst(filePrefix.count).split(separator: "-", maxSplits: 2)
            let isOrphan: Bool
            if parts.count == 3, UInt64(parts[0]) == pidNamespace, parts[2].count == 36 + ".sqlite".count,
                let pid = Int32(parts[1])
            {
                // ESRCH: no such process. (EPERM means it runs under another user: keep its files.)
                isOrphan = kill(pid, 0) != 0 && errno == ESRCH
            } else {
                isOrphan = isUnused(folder.appendingPathComponent(base).path)
            }
            guard isOrphan else { continue }
            for suffix in ["", "-wal", "-shm"] {
                unlink(folder.appendingPathComponent(base + suffix).path)
            }
        }
    }

    /// How old a store without a `-shm` file must be to count as abandoned.
    static let abandonedAge: TimeInterval = 600

    /// Whether no process has the database at `path` open. (Locks this process holds are not seen, so
    /// this is asked only of stores another process named.)
    static func isUnused(_ path: String) -> Bool {
        let shm = path + "-shm"
        let descriptor = open(shm, O_RDONLY)
        guard descriptor >= 0 else {
            // No shared-memory file: no connection in WAL mode. Young files may be being created.
            guard errno == ENOENT,
                let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            else { return false }
            return Date().timeIntervalSince(modified) > abandonedAge
        }
        defer { close(descriptor) }
        // SQLite's unix VFS: each connection holds a read lock on the "dead man switch" byte of the
        // `-shm` file, after 8 lock bytes starting at 120, for as long as it has the database open.
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 128
        lock.l_len = 1
        guard fcntl(descriptor, F_GETLK, &lock) == 0 else { return false }
        return lock.l_type == Int16(F_UNLCK)
    }
}
