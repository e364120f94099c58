#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import Dispatch
#endif
import Foundation
import Logging
import Synchronization

/// Tells when a store's files change on disk, which is how a commit of another process shows: a
/// file-system watch instead of a poll.
///
/// - On Linux: inotify on the store's folder, filtered by the names of the database and its `-wal`
///   file (SQLite deletes the WAL when the last connection closes and makes it anew with the next, so
///   a watch on the file itself would go stale). The events are read by a thread of its own, blocked
///   in `poll(2)` between them (never a thread of Swift's pool); after a batch it waits as long as
///   the handler says before it reads again, while the kernel merges repeated events. ``stop()``
///   wakes it through a pipe.
/// - On Apple platforms: dispatch sources on the folder, the database and the WAL, on a serial queue
///   of their own; an event of the folder (the WAL was made or deleted) watches the WAL anew.
/// - Elsewhere there is no watch: ``start(paths:logger:onEvent:)`` returns `nil` and callers poll.
///
/// A stack of several stores watches every store's files: one inotify watch per folder on Linux, one
/// set of sources per store on Apple platforms.
///
/// An event says only that the files were written: SQLite writes a commit's WAL frames before it
/// makes them visible (through shared memory, which no watch sees), and this stack's own commits
/// write the same files. ``ExternalChangeMonitor`` turns events into checks.
final class StoreWatcher: Sendable {
    private let watches: [any FileWatch]
    /// The databases watched, as given to ``start(paths:logger:onEvent:)`` (for tests).
    let paths: [String]

    private init(watches: [any FileWatch], paths: [String]) {
        self.watches = watches
        self.paths = paths
    }

    deinit {
        for watch in watches { watch.stop() }
    }

    /// Watchers started in this process and not yet ended (for tests).
    static var liveCount: Int { live.load(ordering: .relaxed) }
    fileprivate static let live = Atomic<Int>(0)

    /// Starts watching the files of the database at `path`; `onEvent` is called (on the watcher's
    /// thread or queue, so it must be quick) after any write to them, and returns how long the watcher
    /// waits before it reads events again (on Linux; dispatch sources merge events by themselves):
    /// events meanwhile are merged into one. Returns `nil`, having logged why, when the watch cannot be
    /// set up, and on platforms without one.
    static func start(path: String, logger: Logger, onEvent: @escaping @Sendable () -> Duration) -> StoreWatcher? {
        start(paths: [path], logger: logger, onEvent: onEvent)
    }

    /// Starts watching the files of the databases at `paths` (the stores of one stack); `nil` when no
    /// watch could be set up. A store whose watch cannot be set up is logged and left to the poll.
    static func start(paths: [String], logger: Logger, onEvent: @escaping @Sendable () -> Duration) -> StoreWatcher? {
        // SQLite resolves symbolic links and keeps the WAL beside the file they lead to.
        let resolved = paths.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath() }
        var watches: [any FileWatch] = []
        #if canImport(Glibc)
        var folders: [(directory: String, names: [String])] = []
        for url in resolved {
            let directory = url.deletingLastPathComponent().path
            let names = [url.lastPathComponent, url.lastPathComponent + "-wal"]
            if let index = folders.firstIndex(where: { $0.directory == directory }) {
                folders[index].names += names
            } else {
                folders.append((directory, names))
            }
        }
        for folder in folders {
            do {
                watches.append(try InotifyWatch(directory: folder.directory, names: folder.names, onEvent: onEvent, logger: logger))
            } catch {
                logger.notice(
                    "cannot watch the store's folder; polling for other processes' commits instead",
                    metadata: ["strata.path": "\(folder.directory)", "strata.error": "\(error.message)"])
            }
        }
        #elseif canImport(Darwin)
        for url in resolved {
            let directory = url.deletingLastPathComponent().path
            guard let watch = VnodeWatch(directory: directory, database: url.path, onEvent: onEvent) else {
                logger.notice(
                    "cannot watch the store's files; polling for other processes' commits instead",
                    metadata: ["strata.path": "\(url.path)"])
                continue
            }
            watches.append(watch)
        }
        #endif
        return watches.isEmpty ? nil : StoreWatcher(watches: watches, paths: paths)
    }

    /// Stops watching (idempotent, returns at once); ``stopped()`` waits until the thread has ended.
    func stop() {
        for watch in watches { watch.stop() }
    }

    /// Waits until the watch has ended: its thread returned (Linux), its sources are cancelled (Apple).
    func stopped() async {
        for watch in watches { await watch.stopped() }
    }

    /// Whether the watch still runs.
    var isRunning: Bool { watches.allSatisfy(\.isRunning) }
}

/// One platform's watch.
private protocol FileWatch: Sendable {
    func stop()
    func stopped() async
    var isRunning: Bool { get }
}

/// When a watch's thread (or queue) has ended, and who waits for it.
private struct Ending {
    var isEnded = false
    var waiters: [CheckedContinuation<Void, Never>] = []
}

#if canImport(Glibc)
/// inotify on the store's folder, read by a thread of its own.
private final class InotifyWatch: FileWatch {
    private let inotify: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Whether stop was asked and whether the thread ended; the thread closes the descriptors under
    /// this lock, and `stop()` writes to the pipe under it, so it never writes to a closed descriptor.
    private let state = Locked((stopAsked: false, ending: Ending()))

    init(directory: String, names: [String], onEvent: @escaping @Sendable () -> Duration, logger: Logger) throws(StrataError) {
        let inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else {
            let reason = errno == EMFILE
                ? "the per-user limit of inotify instances is reached (raise fs.inotify.max_user_instances)"
                : String(cString: strerror(errno))
            throw StrataError(.ioError, "inotify_init1 failed: \(reason).")
        }
        let mask = UInt32(IN_MODIFY)
        let directoryWatch = inotify_add_watch(inotify, directory, mask)
        guard directoryWatch >= 0 else {
            let reason = errno == ENOSPC
                ? "the per-user limit of inotify watches is reached (raise fs.inotify.max_user_watches)"
                : String(cString: strerror(errno))
            close(inotify)
            throw StrataError(.ioError, "cannot watch \(directory): \(reason).")
        }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let reason = String(cString: strerror(errno))
            close(inotify)
            throw StrataError(.ioError, "cannot make the watcher's wake-up pipe: \(reason).")
        }
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        self.inotify = inotify
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        StoreWatcher.live.add(1, ordering: .relaxed)
        let watched = names.map { Array($0.utf8) }
        let thread = Thread { [self] in
            run(directoryWatch: directoryWatch, names: watched, onEvent: onEvent, logger: logger)
            finish()
        }
        thread.name = "strata.watcher"
        thread.start()
    }

    func stop() {
        state.withLock { state in
            guard !state.stopAsked else { return }
            state.stopAsked = true
            guard !state.ending.isEnded else { return }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    func stopped() async {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state in
                if !state.ending.isEnded { state.ending.waiters.append(continuation) }
                return state.ending.isEnded
            }
            if ended { continuation.resume() }
        }
    }

    var isRunning: Bool { state.withLock { !$0.ending.isEnded } }

    /// The thread's work: waits in `poll(2)` for events or the wake-up, and calls `onEvent` once per
    /// batch of events that concern the store's files.
    private func run(directoryWatch: Int32, names: [[UInt8]], onEvent: @Sendable () -> Duration, logger: Logger) {
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        let headerSize = MemoryLayout<inotify_event>.size
        // Room for many events at once: each is a header and a name padded to NAME_MAX at most.
        var buffer = [UInt8](repeating: 0, count: 64 * (headerSize + Int(NAME_MAX) + 1))
        while true {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            guard poll(&descriptors, 2, -1) >= 0 else {
                if errno == EINTR { continue }
                logger.error("the store watcher stopped: poll failed", metadata: ["strata.error": "\(String(cString: strerror(errno)))"])
                return waitForStop()
            }
            if descriptors[1].revents != 0 { return }
            guard descriptors[0].revents != 0 else { continue }
            var relevant = false
            var readFailed = descriptors[0].revents & Int16(POLLERR | POLLNVAL) != 0
            while !readFailed {
                let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    readFailed = errno != EAGAIN && errno != EWOULDBLOCK
                    break
                }
                var offset = 0
                buffer.withUnsafeBytes { bytes in
                    while offset + headerSize <= count {
                        let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        let nameStart = offset + headerSize
                        offset = nameStart + Int(event.len)
                        if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                            relevant = true   // events were lost: one of them may have been a commit
                        } else if event.wd == directoryWatch, event.mask & UInt32(IN_IGNORED) != 0 {
                            readFailed = true   // the folder is gone (deleted, or its file system unmounted)
                        } else if event.len > 0 {
                            let name = bytes[nameStart..<min(offset, count)].prefix { $0 != 0 }
                            if names.contains(where: { $0.elementsEqual(name) }) { relevant = true }
                        }
                    }
                }
            }
            if relevant {
                // Events that come meanwhile wait in the kernel, which merges repeated ones: a burst of
                // writes (a commit writes several times; this stack's own commits write the same
                // files) wakes the thread once per pause.
                let (seconds, attoseconds) = onEvent().components
                let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
                if microseconds > 0 { usleep(UInt32(clamping: microseconds)) }
            }
            if readFailed {
                // Without events only the poll is left; keep the thread for the wake-up alone.
                logger.notice("the store watcher lost its watch; polling for other processes' commits instead")
                descriptors[0].fd = -1
            }
        }
    }

    /// Blocks until `stop()` writes to the pipe (after a failure that left nothing to watch).
    private func waitForStop() {
        var byte: UInt8 = 0
        while read(wakeRead, &byte, 1) < 0, errno == EINTR {}
    }

    /// The thread's end: closes the descriptors and wakes whoever waits in `stopped()`.
    private func finish() {
        let waiters = state.withLock { state in
            state.ending.isEnded = true
            close(inotify)
            close(wakeRead)
            close(wakeWrite)
            defer { state.ending.waiters = [] }
            return state.ending.waiters
        }
        StoreWatcher.live.subtract(1, ordering: .relaxed)
        for waiter in waiters { waiter.resume() }
    }
}
#endif

#if canImport(Darwin)
/// Dispatch sources on the store's folder, database and WAL, on a serial queue of their own. (This
/// branch is not compiled on the Linux machines Strata is developed on: it keeps to the plainest
/// Dispatch API.)
///
/// `@unchecked Sendable`: `sources`, `walSource` and `ending` are only touched on `queue` (the
/// sources' handlers run there, and `stop()` and `stopped()` hop there); the rest is immutable.
private final class VnodeWatch: FileWatch, @unchecked Sendable {
    private let queue = DispatchQueue(label: "strata.watcher")
    private let walPath: String
    private let onEvent: @Sendable () -> Duration
    private var sources: [any DispatchSourceFileSystemObject] = []
    private var walSource: (any DispatchSourceFileSystemObject)?
    private var ending = Ending()
    private var isStopAsked = false

    init?(directory: String, database: String, onEvent: @escaping @Sendable () -> Duration) {
        walPath = database + "-wal"
        self.onEvent = onEvent
        let started: Bool = queue.sync {
            guard let folder = makeSource(directory, [.write], { [weak self] in self?.folderChanged() }),
                let file = makeSource(database, [.write, .extend], { [weak self] in _ = self?.onEvent() })
            else { return false }
            sources = [folder, file]
            watchWAL()
            return true
        }
        guard started else {
            queue.sync { cancelAll() }
            return nil
        }
        StoreWatcher.live.add(1, ordering: .relaxed)
    }

    private func makeSource(
        _ path: String, _ mask: DispatchSource.FileSystemEvent, _ handler: @escaping @Sendable () -> Void
    ) -> (any DispatchSourceFileSystemObject)? {
        let descriptor = open(path, O_EVTONLY)
        guard descriptor >= 0 else { return nil }
        let source = DispatchSource.makeFileSystemObjectSource(fileDescriptor: descriptor, eventMask: mask, queue: queue)
        source.setEventHandler { handler() }
        source.setCancelHandler { close(descriptor) }
        source.resume()
        return source
    }

    /// (On the queue.) Watches the WAL file that is there now, if any.
    private func watchWAL() {
        walSource?.cancel()
        walSource = makeSource(walPath, [.write, .extend, .delete, .rename], { [weak self] in self?.walChanged() })
    }

    /// (On the queue.) Entries of the folder came or went: the WAL may have been made or deleted.
    private func folderChanged() {
        guard !isStopAsked else { return }
        watchWAL()
        _ = onEvent()
    }

    /// (On the queue.) The WAL was written, or deleted or renamed (then the folder's event watches anew).
    private func walChanged() {
        guard !isStopAsked else { return }
        if access(walPath, F_OK) != 0 {
            walSource?.cancel()
            walSource = nil
        }
        _ = onEvent()
    }

    /// (On the queue.)
    private func cancelAll() {
        for source in sources { source.cancel() }
        sources = []
        walSource?.cancel()
        walSource = nil
    }

    func stop() {
        queue.async { [self] in
            guard !isStopAsked else { return }
            isStopAsked = true
            cancelAll()
            ending.isEnded = true
            StoreWatcher.live.subtract(1, ordering: .relaxed)
            for waiter in ending.waiters { waiter.resume() }
            ending.waiters = []
        }
    }

    func stopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                if ending.isEnded {
                    continuation.resume()
                } else {
                    ending.waiters.append(continuation)
                }
            }
        }
    }

    var isRunning: Bool { queue.sync { !ending.isEnded } }
}
#endif
