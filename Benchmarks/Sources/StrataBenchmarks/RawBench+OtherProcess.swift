#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation

/// Workload n for raw SQLite: the watcher a careful C programmer would write (see ``RawWatcher``).
extension RawBench {
    func observeOtherProcess(round: Int) async throws -> Sample {
        #if canImport(Glibc)
        let path = environment.path("raw-n-\(round).sqlite")
        environment.remove(path)
        defer { environment.remove(path) }
        // The store, and a connection kept open for the round, as Strata's stack keeps its writer.
        let db = try Self.makeDatabase(path)
        defer { withExtendedLifetime(db) {} }
        let watcher = try RawWatcher(path: path, countSQL: "SELECT count(*) FROM item")
        defer { watcher.stop() }
        let child = try CommitChild(path: path, table: "item", seed: round, fullSync: environment.otherProcessFullSync)
        try await watcher.waitForCount(0)
        try await child.ready()
        try await Task.sleep(for: OtherProcess.settle)
        try child.go()
        let commits = try await child.commitTimes()
        try await watcher.waitForCount(Int64(commits.count))
        let delays = try OtherProcess.delays(commits: commits, snapshots: watcher.snapshots)
        return OtherProcess.sample(delays, rows: Int64(commits.count))
        #else
        throw RawError(description: "n: the raw watcher uses inotify, which only Linux has")
        #endif
    }
}

#if canImport(Glibc)
/// A thread of its own blocks in `poll(2)` on an inotify watch of the store's folder (events filtered
/// by the names of the database and its WAL, which SQLite deletes and makes anew) and on a stop pipe.
/// After an event it reads `PRAGMA data_version` on its own read-only connection, and when that
/// changed it counts the rows: a snapshot. SQLite makes a commit visible in shared memory (which no
/// watch sees) just after it writes the WAL frames (which inotify sees), so after an event it also
/// checks again 1, 4, 16, 64 and 256 ms later, as `poll(2)`'s timeout: Strata's schedule, without its
/// coalescing (every event checks at once).
final class RawWatcher: @unchecked Sendable {
    // @unchecked: the connection and its statements are used by the watcher's thread only; the
    // snapshots are behind a lock; the descriptors are set in `init` and never change.
    private let inotify: Int32
    private let stopRead: Int32
    private let stopWrite: Int32
    private let recorded = Locked<[(count: Int64, at: UInt64)]>([])
    private let failure = Locked<String?>(nil)
    private let snapshotTaken = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private static let recheckDelays: [Int32] = [1, 4, 16, 64, 256]

    init(path: String, countSQL: String) throws {
        let url = URL(fileURLWithPath: path)
        let names = [url.lastPathComponent, url.lastPathComponent + "-wal"].map { Array($0.utf8) }
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0, inotify_add_watch(inotify, url.deletingLastPathComponent().path, UInt32(IN_MODIFY)) >= 0 else {
            throw RawError(description: "n: inotify failed: \(String(cString: strerror(errno)))")
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw RawError(description: "n: pipe failed") }
        stopRead = ends[0]
        stopWrite = ends[1]
        Thread.detachNewThread { [self] in
            do {
                let reader = try RawDatabase(path: path, readOnly: true)
                let version = try reader.prepare("PRAGMA data_version")
                let count = try reader.prepare(countSQL)
                run(reader: reader, version: version, count: count, names: names)
            } catch {
                failure.withLock { $0 = "\(error)" }
                snapshotTaken.signal()
            }
            ended.signal()
        }
    }

    private func run(reader: RawDatabase, version: RawStatement, count: RawStatement, names: [[UInt8]]) {
        var lastVersion: Int64 = -1
        func check() {
            guard (try? version.step()) == true else { return version.reset() }
            let current = version.int64(0)
            version.reset()
            guard current != lastVersion else { return }
            lastVersion = current
            guard (try? count.step()) == true else { return count.reset() }
            let rows = count.int64(0)
            count.reset()
            let at = nanoseconds()
            recorded.withLock { $0.append((rows, at)) }
            snapshotTaken.signal()
        }
        check()
        var descriptors = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let header = MemoryLayout<inotify_event>.size
        var retries = ArraySlice<Int32>()
        while true {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            let ready = poll(&descriptors, 2, retries.first ?? -1)
            if ready < 0 { if errno == EINTR { continue } else { break } }
            if descriptors[1].revents != 0 { break }
            if ready == 0 {
                retries = retries.dropFirst()
                check()
                continue
            }
            var relevant = false
            while true {
                let bytes = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                guard bytes > 0 else { break }
                var offset = 0
                buffer.withUnsafeBytes { raw in
                    while offset + header <= bytes {
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        let name = raw[(offset + header)..<(offset + header + Int(event.len))].prefix { $0 != 0 }
                        if names.contains(where: { $0.elementsEqual(name) }) { relevant = true }
                        offset += header + Int(event.len)
                    }
                }
            }
            if relevant {
                retries = Self.recheckDelays[...]
                check()
            }
        }
    }

    /// The snapshots so far: the row count and when it was read.
    var snapshots: [(count: Int64, at: UInt64)] { recorded.withLock { $0 } }

    /// Waits (on a plain thread) until a snapshot counts `rows` rows or more; throws after 10 s.
    func waitForCount(_ rows: Int64) async throws {
        try await onPlainThread { [recorded, snapshotTaken, failure] in
            while (recorded.withLock { $0.last?.count ?? -1 }) < rows {
                if let failure = failure.withLock({ $0 }) { throw RawError(description: "n: \(failure)") }
                guard snapshotTaken.wait(timeout: .now() + 10) == .success else {
                    throw RawError(description: "n: the raw watcher did not count \(rows) rows within 10 s")
                }
            }
        }
    }

    /// Ends the thread, waits for it, and closes the descriptors.
    func stop() {
        var byte: UInt8 = 1
        _ = write(stopWrite, &byte, 1)
        ended.wait()
        close(inotify)
        close(stopRead)
        close(stopWrite)
    }
}
#endif
