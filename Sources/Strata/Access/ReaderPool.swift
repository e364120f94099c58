import Synchronization

/// A bounded pool of read-only connections, opened on demand.
///
/// Every read is a lease: ``read(_:)`` takes one connection, runs the body inside the calling task on
/// that connection's thread, in one read transaction, and gives the connection back clean. When every
/// connection is busy the read waits for one, suspended (never blocking a thread), first come first
/// served; a cancelled waiter leaves the queue at once. Readers never wait for the writer: in WAL mode
/// each read sees the last state committed before it began.
final class ReaderPool: Sendable {
    private let leases: LeasePool<ReaderConnection>
    private let files: StoreFiles
    private let options: Connection.Options
    private let label: String
    private let waitLog: WaitLog?
    private let opened = Atomic<Int>(0)
    /// The executors of every connection opened, for tests of closing.
    private let created = Locked<[ThreadExecutor]>([])
    let capacity: Int

    init(
        files: StoreFiles, options: Connection.Options, capacity: Int, label: String = "strata.reader",
        waitLog: WaitLog? = nil
    ) {
        self.waitLog = waitLog
        self.files = files
        self.options = options
        self.capacity = capacity
        self.label = label
        self.leases = LeasePool(creatable: capacity)
    }

    /// Runs `body` on a connection of the pool, in one read transaction, inside the calling task.
    func read<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try Task.checkCancellation()
        let reader = try await acquire()
        return try await reader.lease(returningTo: self, body)
    }

    /// Takes a connection for exclusive use: give it back with ``giveBack(_:)``, or ``discard(_:)`` it.
    func acquire() async throws -> ReaderConnection {
        let grant: LeasePool<ReaderConnection>.Grant
        if let ready = try leases.tryAcquire() {
            grant = ready
        } else if let waitLog {
            grant = try await waitLog.timing("waited for a connection", pool: label) { try await leases.acquire() }
        } else {
            grant = try await leases.acquire()
        }
        switch grant {
        case .resource(let reader):
            return reader
        case .create:
            do {
                let number = opened.add(1, ordering: .relaxed).newValue
                let reader = try await ReaderConnection.open(files: files, options: options, label: "\(label).\(number)")
                created.withLock { $0.append(reader.executor) }
                return reader
            } catch {
                leases.creationFailed()
                throw error
            }
        }
    }

    /// Takes an idle connection without waiting; `nil` when none is idle (none is opened here).
    func tryAcquire() -> ReaderConnection? {
        switch try? leases.tryAcquire() {
        case .resource(let reader):
            return reader
        case .create:
            leases.creationFailed()
            return nil
        case nil:
            return nil
        }
    }

    /// Gives a clean connection back; `false` when the pool is closed and the caller must close it.
    func giveBack(_ reader: ReaderConnection) -> Bool {
        leases.release(reader)
    }

    /// Forgets a connection that could not be cleaned (its owner closed it): a new one may be opened.
    func discard(_ reader: ReaderConnection) {
        leases.creationFailed()
    }

    /// Closes idle connections now and busy ones when their lease ends; waiting and later reads throw
    /// ``StrataError/Code/stackClosed``.
    func close() async {
        var idle = leases.close(Connection.closedError)
        let executors = idle.map(\.executor)
        for reader in idle { await reader.close() }
        // A released connection runs its deinit on its executor (on a short-lived thread once the
        // executor stopped): wait for those threads too.
        idle.removeAll()
        for executor in executors { await executor.stopped() }
    }

    /// The executors of every connection this pool opened (for tests).
    var executors: [ThreadExecutor] { created.withLock { $0 } }

    /// The number of connections opened so far.
    var openedCount: Int { opened.load(ordering: .relaxed) }

    /// The number of reads waiting for a connection.
    var waiterCount: Int { leases.waiterCount }
}
