import CoreMetrics
import Synchronization
import Tracing

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
    /// This pool's metrics (its waits and connections in use), `nil` when they go nowhere.
    private let metrics: StackMetrics.Pool?
    /// The stack's tracer, `nil` when spans go nowhere: ``read(entity:_:)`` starts its spans, and the
    /// cursors and read generations whose connections come from this pool start theirs with it.
    let tracer: StackTracer?
    private let opened = Atomic<Int>(0)
    /// The executors of every connection opened, for tests of closing.
    private let created = Locked<[ThreadExecutor]>([])
    /// The connections lent out now, when ``closesLeased`` (a pool of cursors, whose leases last across
    /// the consumer's awaits): closing the pool closes them too.
    private let leased = Locked<Lent>(Lent())
    /// The connections lent out, and whether ``close()`` took them (a connection lent after that must
    /// be closed by its borrower).
    private struct Lent {
        var readers: [ObjectIdentifier: ReaderConnection] = [:]
        var isClosed = false
    }
    /// Whether ``close()`` also closes the connections lent out (see ``leased``).
    private let closesLeased: Bool
    let capacity: Int

    init(
        files: StoreFiles, options: Connection.Options, capacity: Int, label: String = "strata.reader",
        waitLog: WaitLog? = nil, metrics: StackMetrics.Pool? = nil, tracer: StackTracer? = nil, closesLeased: Bool = false
    ) {
        self.closesLeased = closesLeased
        self.waitLog = waitLog
        self.metrics = metrics
        self.tracer = tracer
        self.files = files
        self.options = options
        self.capacity = capacity
        self.label = label
        self.leases = LeasePool(creatable: capacity)
    }

    /// Runs `body` on a connection of the pool, in one read transaction, inside the calling task.
    ///
    /// With a tracer, a `strata.read` span, started here in the caller's task (its parent is the
    /// caller's span), covers the wait for a connection and the read; `entity` names what it reads,
    /// when the caller knows.
    ///
    /// `oneStore` says the body reads one store of a stack of several (see `Connection.beginRead`).
    func read<T: Sendable>(
        entity: @autoclosure () -> String? = nil, oneStore: Bool = false, _ body: @Sendable (Connection) throws -> T
    ) async throws -> T {
        try Task.checkCancellation()
        guard let tracer else {
            let reader = try await acquire()
            return try await reader.lease(returningTo: self, oneStore: oneStore, body)
        }
        let entity = entity()
        return try await tracer.withSpan("strata.read") { span in
            if let entity { span.attributes["strata.entities"] = entity }
            let reader = try await acquire()
            return try await reader.lease(returningTo: self, span: span, oneStore: oneStore, body)
        }
    }

    /// Takes a connection for exclusive use: give it back with ``giveBack(_:)``, or ``discard(_:)`` it.
    func acquire() async throws -> ReaderConnection {
        let grant: LeasePool<ReaderConnection>.Grant
        if let ready = try leases.tryAcquire() {
            grant = ready
        } else if let waitLog {
            grant = try await waitLog.timing("waited for a connection", pool: label) { try await waitForLease() }
        } else {
            grant = try await waitForLease()
        }
        switch grant {
        case .resource(let reader):
            return try await lend(reader)
        case .create:
            let reader: ReaderConnection
            do {
                let number = opened.add(1, ordering: .relaxed).newValue
                reader = try await ReaderConnection.open(files: files, options: options, label: "\(label).\(number)")
            } catch {
                leases.creationFailed()
                // The pool closed while the connection opened (a temporary store's files may be gone):
                // the read fails as every read of a closed stack does.
                throw leases.closedError ?? error
            }
            // Closed meanwhile: `close()` did not see this connection, so it must not outlive the call.
            if let closed = leases.closedError {
                await reader.close()
                await reader.executor.stopped()
                leases.creationFailed()
                throw closed
            }
            created.withLock { $0.append(reader.executor) }
            return try await lend(reader)
        }
    }

    /// Lends `reader` out. A pool of cursors records it, so that ``close()`` closes it; when `close()`
    /// has already taken its list (the grant came just before), the connection is closed here and the
    /// call throws `stackClosed`, as every read of a closed stack does.
    private func lend(_ reader: ReaderConnection) async throws -> ReaderConnection {
        metrics?.inUse.increment()
        guard noteLeased(reader) else {
            metrics?.inUse.decrement()
            await reader.close()
            await reader.executor.stopped()
            throw leases.closedError ?? Connection.closedError
        }
        return reader
    }

    /// Waits for a lease, timed in `strata_reader_wait` when there are metrics.
    private func waitForLease() async throws -> LeasePool<ReaderConnection>.Grant {
        guard let metrics else { return try await leases.acquire() }
        return try await StackMetrics.time(metrics.wait) { try await leases.acquire() }
    }

    /// Takes an idle connection without waiting; `nil` when none is idle (none is opened here).
    func tryAcquire() -> ReaderConnection? {
        switch try? leases.tryAcquire() {
        case .resource(let reader):
            metrics?.inUse.increment()
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
        metrics?.inUse.decrement()
        noteReturned(reader)
        return leases.release(reader)
    }

    /// Forgets a connection that could not be cleaned (its owner closed it): a new one may be opened.
    func discard(_ reader: ReaderConnection) {
        metrics?.inUse.decrement()
        noteReturned(reader)
        leases.creationFailed()
    }

    /// Records a connection lent out; `false` when the pool closed and its borrower must close it.
    private func noteLeased(_ reader: ReaderConnection) -> Bool {
        guard closesLeased else { return true }
        return leased.withLock { lent in
            guard !lent.isClosed else { return false }
            lent.readers[ObjectIdentifier(reader)] = reader
            return true
        }
    }

    private func noteReturned(_ reader: ReaderConnection) {
        guard closesLeased else { return }
        leased.withLock { $0.readers[ObjectIdentifier(reader)] = nil }
    }

    /// Closes idle connections now and busy ones when their lease ends (a pool that ``closesLeased``:
    /// now, after the call each runs); waiting and later reads throw ``StrataError/Code/stackClosed``.
    func close() async {
        var idle = leases.close(Connection.closedError)
        let executors = idle.map(\.executor)
        for reader in idle { await reader.close() }
        // A pool of cursors closes the connections lent out too, each once the batch it reads (if any)
        // is done: the next batch of their iteration throws `stackClosed`, and the files are free.
        let lent = leased.withLock { lent in
            lent.isClosed = true
            defer { lent.readers.removeAll() }
            return Array(lent.readers.values)
        }
        for reader in lent { await reader.close() }
        // A released connection runs its deinit on its executor (on a short-lived thread once the
        // executor stopped): wait for those threads too.
        idle.removeAll()
        for executor in executors { await executor.stopped() }
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool { leases.closedError != nil }

    /// The executors of every connection this pool opened (for tests).
    var executors: [ThreadExecutor] { created.withLock { $0 } }

    /// The number of connections opened so far.
    var openedCount: Int { opened.load(ordering: .relaxed) }

    /// Whether this pool records metrics or spans (for tests).
    var hasInstruments: Bool { metrics != nil || tracer != nil }

    /// The number of reads waiting for a connection.
    var waiterCount: Int { leases.waiterCount }

    /// Returns once at least `count` reads wait for a connection (for tests; see
    /// ``LeasePool/waitForWaiters(_:)``).
    func waitForWaiters(_ count: Int = 1) async {
        await leases.waitForWaiters(count)
    }
}
