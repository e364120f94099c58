import CSQLiteBench
import Dispatch
import Foundation

/// Raw SQLite behind a server's requests (workload k): a fixed pool of OS threads, each with its own
/// read-only connection and prepared statements, serves the operations that Swift tasks submit and
/// await through continuations. Writes run on one writer connection behind a lock, on whichever pool
/// thread took them.
///
/// Why this model: a server's requests are Swift tasks, and SQLite calls block, so a careful server
/// does not run them on Swift's cooperative pool (which has one thread per core: one blocked thread is
/// a lost core) but on threads of its own, as many as the cores and a few more (``defaultThreadCount``),
/// so that a thread waiting for the writer lock or the disk does not leave a core idle. The tasks pay
/// what Strata's and GRDB's callers pay: a hand-off to another thread and a continuation to resume.
final class RawServer: Sendable {
    /// One unit of work, run on a pool thread with that thread's connections.
    typealias Job = @Sendable (RawServerThread) -> Void

    private enum Entry: Sendable {
        case job(Job)
        case stop
    }

    /// A first-in first-out queue of entries.
    private struct Queue: Sendable {
        var entries: [Entry] = []
        var head = 0

        mutating func push(_ entry: Entry) {
            entries.append(entry)
        }

        mutating func pop() -> Entry? {
            guard head < entries.count else { return nil }
            let entry = entries[head]
            head += 1
            if head >= 1_024 && head * 2 >= entries.count {
                entries.removeFirst(head)
                head = 0
            }
            return entry
        }
    }

    /// The cores this process may use, plus two.
    static var defaultThreadCount: Int {
        (Affinity.allowedCPUs ?? ProcessInfo.processInfo.activeProcessorCount) + 2
    }

    let threadCount: Int
    private let queue = Locked(Queue())
    /// Counts the entries in the queue: a pool thread waits on it, parked, when there is nothing to do.
    private let available = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    /// Starts `threadCount` threads on the database at `path`, each opening its connection, and one
    /// writer connection; returns when they are ready.
    init(path: String, threadCount: Int = RawServer.defaultThreadCount) throws {
        self.threadCount = threadCount
        let writer = try RawServerWriter(path: path)
        let ready = DispatchSemaphore(value: 0)
        let errors = Locked<[String]>([])
        for _ in 0..<threadCount {
            Thread.detachNewThread { [self] in
                let thread: RawServerThread
                do {
                    thread = try RawServerThread(path: path, writer: writer)
                } catch {
                    errors.withLock { $0.append("\(error)") }
                    ready.signal()
                    ended.signal()
                    return
                }
                ready.signal()
                while true {
                    available.wait()
                    guard case .job(let job) = queue.withLock({ $0.pop() }) else { break }
                    job(thread)
                }
                ended.signal()
            }
        }
        for _ in 0..<threadCount { ready.wait() }
        if let error = errors.withLock({ $0.first }) {
            shutdown()
            throw RawError(description: error)
        }
    }

    /// Runs `body` on a pool thread and returns its result to the awaiting task.
    func perform<T: Sendable>(_ body: @escaping @Sendable (RawServerThread) throws -> T) async throws -> T {
        try await withUnsafeThrowingContinuation { continuation in
            submit(.job { thread in continuation.resume(with: Result { try body(thread) }) })
        }
    }

    /// Stops the threads and returns once each has ended (or failed to start).
    func shutdown() {
        for _ in 0..<threadCount { submit(.stop) }
        for _ in 0..<threadCount { ended.wait() }
    }

    private func submit(_ entry: Entry) {
        queue.withLock { $0.push(entry) }
        available.signal()
    }
}

/// What one pool thread of ``RawServer`` owns: its read-only connection and statements. Created on
/// its thread and used only there.
final class RawServerThread {
    let writer: RawServerWriter
    private let reader: RawDatabase
    private let lookupStatement: RawStatement
    private let rangeStatement: RawStatement

    init(path: String, writer: RawServerWriter) throws {
        self.writer = writer
        reader = try RawDatabase(path: path, readOnly: true)
        lookupStatement = try reader.prepare(RawBench.selectByIDSQL)
        rangeStatement = try reader.prepare(RawBench.selectRangeSQL)
    }

    /// The row with this ID, or `nil`.
    func lookup(_ id: Int64) throws -> RawItem? {
        lookupStatement.bind(id, at: 1)
        defer { lookupStatement.reset() }
        return try lookupStatement.step() ? RawItem(lookupStatement) : nil
    }

    /// The rows with `lower ≤ age ≤ lower + 1`.
    func range(_ lower: Int) throws -> [RawItem] {
        rangeStatement.bind(Int64(lower), at: 1)
        rangeStatement.bind(Int64(lower + 1), at: 2)
        defer { rangeStatement.reset() }
        var items: [RawItem] = []
        while try rangeStatement.step() { items.append(RawItem(rangeStatement)) }
        return items
    }
}

/// The one writer connection of ``RawServer``, used by one pool thread at a time under its lock.
final class RawServerWriter: @unchecked Sendable {
    // @unchecked: the connection and its statements are only used with `lock` held.
    private let lock = NSLock()
    private let db: RawDatabase
    private let insertStatement: RawStatement
    private let updateStatement: RawStatement
    private let begin: RawStatement
    private let commit: RawStatement

    static let updateSQL = "UPDATE item SET score = ? WHERE id = ?"

    init(path: String) throws {
        db = try RawDatabase(path: path)
        // The file is in WAL mode already; `synchronous` is per connection (FULL would sync each commit).
        try db.execute("PRAGMA synchronous = NORMAL")
        insertStatement = try db.prepare(RawBench.insertSQL)
        updateStatement = try db.prepare(Self.updateSQL)
        begin = try db.prepare("BEGIN IMMEDIATE")
        commit = try db.prepare("COMMIT")
    }

    /// One transaction inserting `item`.
    func insert(_ item: ItemData) throws {
        lock.lock()
        defer { lock.unlock() }
        try transaction { try RawBench.insertRow(item, insertStatement) }
    }

    /// One transaction setting the score of the row with this ID.
    func update(id: Int64, score: Double) throws {
        lock.lock()
        defer { lock.unlock() }
        try transaction {
            updateStatement.bind(score, at: 1)
            updateStatement.bind(id, at: 2)
            try updateStatement.run()
            guard sqlite3_changes(db.handle) == 1 else { throw RawError(description: "no row \(id) to update") }
        }
    }

    private func transaction(_ body: () throws -> Void) throws {
        try begin.run()
        do {
            try body()
            try commit.run()
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }
}
