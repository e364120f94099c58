import Synchronization

/// The stores attached to every connection of a stack of several stores, in the order they were
/// attached. A store added to a running stack is appended here, and each connection attaches it before
/// its next read (``Connection/beginRead(snapshot:)``); the writer attaches it at once.
final class AttachmentList: Sendable {
    struct Entry: Sendable {
        /// The SQLite schema name the store is attached under.
        let schemaName: String
        let path: String
        /// The store's `synchronous`: the stack's configured one, or its own storage's default (a file
        /// store attached behind an in-memory main store keeps `NORMAL`, not the memory store's `OFF`).
        let synchronous: Connection.Synchronous
    }

    private let entries: Locked<[Entry]>
    /// The number of entries, read without the lock by every read of the stack.
    private let entryCount: Atomic<Int>

    init(_ entries: [Entry] = []) {
        self.entries = Locked(entries)
        entryCount = Atomic(entries.count)
    }

    /// The stores attached so far.
    var current: [Entry] { entries.withLock { $0 } }

    /// How many stores are attached so far.
    var count: Int { entryCount.load(ordering: .acquiring) }

    func append(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
        entryCount.add(1, ordering: .releasing)
    }
}
