import Tracing

/// One committed state of the store, held across awaits until you release it: several fetches, and the
/// pages of a list, all see the same state while transactions commit (Core Data's query generations).
///
/// ```swift
/// let people = From<Person>().orderBy(.ascending(\.name))
/// try await stack.withReadGeneration { generation in
///     let total = try await generation.fetchCount(people)
///     for offset in stride(from: 0, to: total, by: 50) {
///         let page = try await generation.fetchAll(people.tweak(.offset(offset), .limit(50)))
///         try await send(page)    // other awaits; transactions commit meanwhile
///     }
/// }
/// ```
/// Every read through a generation sees the state that was committed when it was taken (or when
/// ``moveToLatest()`` last moved it), whatever commits in between: the pages above never skip nor
/// repeat an object, and always add up to `total`. Reads of the stack itself go on seeing the latest
/// state.
///
/// **Connections.** A generation is one read transaction kept open on a connection of its own, outside
/// the reader pool, so other reads never wait for it. At most
/// ``DataStack/Configuration/maximumReadGenerations`` are held at once; taking another waits,
/// cancellably, until one is released (so a task that holds them all and takes one more waits forever).
/// The reads of one generation take turns on its connection, first come first served, from whichever
/// task they come (a cancelled task stops waiting at once); each runs inside the calling task, on the
/// connection's thread: task-local values, `Task.isCancelled` and priority are the caller's.
///
/// **The writer.** A generation never blocks the writer, and transactions commit while it is held. But an
/// open generation keeps SQLite from recycling the write-ahead log past the state it reads, so the log
/// grows with every commit until the generation is released or moved to the latest state, and reads
/// slow down as it grows. A generation held while the log grows past
/// ``DataStack/Configuration/readGenerationWALWarningSize`` is logged at warning level, once per
/// pinned state. Hold a generation for a request or a paging session, not for the life of the app.
///
/// **Releasing.** A generation gives its connection back when you call ``release()``, when the closure
/// of ``DataStack/withReadGeneration(_:)`` ends, when its last reference goes away, and when a task
/// that uses it is cancelled: inside ``DataStack/withReadGeneration(_:)`` cancelling the task releases it
/// at once, even while the closure awaits something else; a generation from
/// ``DataStack/readGeneration()`` is released by any use from a cancelled task. Uses after it was
/// released throw ``StrataError/Code/transactionClosed`` (`CancellationError` in a cancelled task, and
/// ``StrataError/Code/stackClosed`` once the stack was closed).
///
/// **Errors.** A read that throws leaves the generation as it was, on the same state. If SQLite itself
/// ended the read transaction (after some I/O errors), the generation never silently reads a newer
/// state: the read that noticed throws, and later reads throw ``StrataError/Code/transactionClosed``
/// until ``moveToLatest()`` pins the latest state.
public final class ReadGeneration: Sendable {
    /// Why a generation ended.
    private enum Ending: Sendable {
        case released, cancelled, stackClosed
    }

    private enum Phase: Sendable {
        case pinned(ReaderConnection)
        /// SQLite ended the read transaction; the connection is still held, for ``moveToLatest()``.
        case lost(ReaderConnection, reason: String)
        case ended(Ending)
    }

    private struct State: Sendable {
        var phase: Phase
        /// Gives the connection back, once the generation ended; ``release()`` awaits it.
        var giveBack: Task<Void, Never>?
    }

    private let token: UInt64
    private let pool: ReaderPool
    private let registry: GenerationRegistry
    private let store: StoreContext
    private let state: Locked<State>
    /// The turn to use the connection: one read (or move) at a time, waiting cancellably, so that no
    /// task waits in the connection's job queue.
    let turn = LeasePool<Void>(idle: [()])

    init(reader: ReaderConnection, token: UInt64, pool: ReaderPool, registry: GenerationRegistry, store: StoreContext) {
        self.token = token
        self.pool = pool
        self.registry = registry
        self.store = store
        self.state = Locked(State(phase: .pinned(reader)))
    }

    deinit {
        end(.released)
    }

    // MARK: Reading

    /// Runs several fetches in one closure, on the generation's state.
    ///
    /// ```swift
    /// let (people, pets) = try await generation.read { r in
    ///     (try r.fetchAll(From<Person>()), try r.fetchCount(From<Pet>()))
    /// }
    /// ```
    /// The closure runs on the generation's connection, inside the calling task: task-local values and
    /// `Task.isCancelled` are the caller's, and cancelling the task interrupts the statement that is
    /// running (and releases the generation).
    ///
    /// - Throws: What the closure throws; ``StrataError/Code/transactionClosed`` when the generation was
    ///   released or lost its transaction; `CancellationError` when the task is cancelled.
    public func read<T: Sendable>(_ body: @Sendable (ReadContext) throws -> T) async throws -> T {
        let store = self.store
        return try await pinned(entity: nil) { connection in
            let context = ReadContext(connection: connection, store: store)
            defer { context.isOpen = false }
            return try body(context)
        }
    }

    /// Every object that matches, in the requested order, as of the generation's state.
    public func fetchAll<E: Entity>(_ from: From<E>) async throws -> [E] {
        let store = self.store
        return try await pinned(entity: E.entityDescription.name) { try $0.fetchAll(from, store: store) }
    }

    /// The first object that matches, or `nil`.
    public func fetchOne<E: Entity>(_ from: From<E>) async throws -> E? {
        let store = self.store
        return try await pinned(entity: E.entityDescription.name) { try $0.fetchAll(from.firstOnly, store: store).first }
    }

    /// The number of objects that match.
    public func fetchCount<E: Entity>(_ from: From<E>) async throws -> Int {
        let store = self.store
        return try await pinned(entity: E.entityDescription.name) { try $0.fetchCount(from, store: store) }
    }

    /// The IDs of the objects that match, in the requested order.
    public func fetchIDs<E: Entity>(_ from: From<E>) async throws -> [EntityID<E>] {
        let store = self.store
        return try await pinned(entity: E.entityDescription.name) { try $0.fetchIDs(from, store: store) }
    }

    /// The ID of the first object that matches, or `nil`.
    public func fetchID<E: Entity>(_ from: From<E>) async throws -> EntityID<E>? {
        let store = self.store
        return try await pinned(entity: E.entityDescription.name) { try $0.fetchID(from, store: store) }
    }

    /// The value of a one-value query (an aggregate, or a field of the first matching row); `nil` when
    /// no row matches or the value is `NULL`. See ``DataStack/queryValue(_:)``.
    public func queryValue<E: Entity, T: DatabaseValueConvertible>(_ query: Query<E, T>) async throws -> T? {
        let store = self.store
        return try await pinned(entity: E.entityDescription.name) { try $0.queryValue(query, store: store) }
    }

    /// The rows of an attributes query, each value under its term's key.
    public func queryAttributes<E: Entity>(_ query: Query<E, QueryRow>) async throws -> [QueryRow] {
        let store = self.store
        return try await pinned(entity: E.entityDescription.name) { try $0.queryRows(query, store: store) }
    }

    /// The object with this ID as of the generation's state, or `nil` when it did not exist then.
    public func fetchExisting<E: Entity>(_ id: EntityID<E>) async throws -> E? {
        let store = self.store
        return try await pinned(entity: E.entityDescription.name) { try $0.fetchExisting(id, store: store) }
    }

    /// The objects with these IDs, in the order given, skipping those that did not exist then; read in
    /// one query per 500 IDs.
    public func fetchExisting<E: Entity, S: Sequence>(_ ids: S) async throws -> [E] where S.Element == EntityID<E> {
        let store = self.store
        let ids = Array(ids)
        return try await pinned(entity: E.entityDescription.name) { try $0.fetchExisting(ids: ids, store: store) }
    }

    // MARK: Moving and releasing

    /// Ends the generation's read transaction and pins the latest committed state: later reads see every
    /// commit made so far, and none made after. It also recovers a generation whose transaction SQLite
    /// ended after an error.
    ///
    /// - Throws: ``StrataError/Code/transactionClosed`` when the generation was released;
    ///   `CancellationError` when the task is cancelled (the generation is then released); the error
    ///   that kept a new transaction from beginning (the generation then reads nothing until a
    ///   `moveToLatest()` succeeds).
    public func moveToLatest() async throws {
        let reader = try heldReader(allowingLost: true)
        do {
            _ = try await turn.acquire()
            defer { turn.release(()) }
            let walSize = try await reader.repin(token)
            let ending = state.withLock { state -> Ending? in
                switch state.phase {
                case .pinned: return nil
                case .lost(let reader, _):
                    state.phase = .pinned(reader)
                    return nil
                case .ended(let ending): return ending
                }
            }
            if let ending { throw Self.endedError(ending) }
            registry.repinned(token, walSize: walSize)
        } catch {
            throw failure(error)
        }
    }

    /// Ends the generation's read transaction and gives its connection back; returns once it is back.
    /// Calling it again does nothing. Later uses throw ``StrataError/Code/transactionClosed``.
    public func release() async {
        await end(.released)?.value
    }

    /// Whether the generation was released (by ``release()``, its scope's end, a cancelled task, or
    /// closing the stack): it can read no more.
    public var isReleased: Bool {
        let ended = state.withLock { state in
            if case .ended = state.phase { return true }
            return false
        }
        return ended || registry.isClosed
    }

    /// Releases the generation at once, from the cancellation handler of
    /// ``DataStack/withReadGeneration(_:)``: later uses throw `CancellationError` in the cancelled task.
    func releaseOnCancellation() {
        end(.cancelled)
    }

    // MARK: Internals

    /// Runs `body` on the generation's connection, in its read transaction.
    ///
    /// With a tracer, a `strata.read` span, started here in the caller's task (its parent is the
    /// caller's span), covers the wait for the generation's connection and the read; `entity` names
    /// what it reads, when known, and `strata.read_generation` tells the reads of one generation apart
    /// from the others'.
    private func pinned<T: Sendable>(
        entity: String?, _ body: @Sendable (Connection) throws -> T
    ) async throws -> T {
        guard let tracer = pool.tracer else { return try await pinned(span: nil, body) }
        return try await tracer.withSpan("strata.read") { span in
            if let entity { span.attributes["strata.entities"] = entity }
            span.attributes["strata.read_generation"] = Int(truncatingIfNeeded: token)
            return try await pinned(span: span, body)
        }
    }

    private func pinned<T: Sendable>(span: (any Span)?, _ body: @Sendable (Connection) throws -> T) async throws -> T {
        let reader = try heldReader(allowingLost: false)
        do {
            _ = try await turn.acquire()
            defer { turn.release(()) }
            return try await reader.readPinned(token, span: span, body)
        } catch {
            throw failure(error)
        }
    }

    /// The generation's connection, if it may be used; a cancelled task releases the generation instead
    /// (without waiting for the connection to come back: a read of another task may still run on it).
    private func heldReader(allowingLost: Bool) throws -> ReaderConnection {
        if Task.isCancelled {
            end(.cancelled)
            throw CancellationError()
        }
        switch state.withLock({ $0.phase }) {
        case .pinned(let reader): return reader
        case .lost(let reader, _) where allowingLost: return reader
        case .lost(_, let reason): throw Self.lostError(reason)
        case .ended(let ending): throw Self.endedError(ending)
        }
    }

    /// The error to report for a failed use, after updating the generation's state.
    private func failure(_ error: any Error) -> any Error {
        if Task.isCancelled {
            end(.cancelled)
            return CancellationError()
        }
        if let failure = error as? ReaderConnection.PinFailure {
            switch failure {
            case .unpinned:
                // Released by another task while this use waited for the connection.
                return state.withLock { state -> any Error in
                    if case .ended(let ending) = state.phase { return Self.endedError(ending) }
                    return Self.endedError(.released)
                }
            case .transactionLost(let underlying):
                let reason = underlying.map { "\($0)" } ?? "an error caught inside the closure"
                state.withLock { state in
                    switch state.phase {
                    case .pinned(let reader), .lost(let reader, _): state.phase = .lost(reader, reason: reason)
                    case .ended: break
                    }
                }
                return underlying ?? Self.lostError(reason)
            }
        }
        if let strata = error as? StrataError, strata.code == .stackClosed {
            end(.stackClosed)
        }
        return error
    }

    /// Marks the generation ended and starts giving its connection back; returns the task that does,
    /// which every later call returns too.
    @discardableResult
    private func end(_ ending: Ending) -> Task<Void, Never>? {
        // Copied, so that the task does not capture `self` (this runs in `deinit` too).
        let token = self.token
        let pool = self.pool
        let registry = self.registry
        return state.withLock { state -> Task<Void, Never>? in
            switch state.phase {
            case .pinned(let reader), .lost(let reader, _):
                state.phase = .ended(ending)
                // The registry keeps the task until it has run, for the stack's close() to await.
                let task = registry.unregister(token) {
                    await reader.unpin(token, returningTo: pool)
                    // Given back to a closed pool, the connection is closed: its thread ends before
                    // close() returns.
                    if pool.isClosed { await reader.executor.stopped() }
                }
                state.giveBack = task
                return task
            case .ended:
                return state.giveBack
            }
        }
    }

    private static func endedError(_ ending: Ending) -> any Error {
        switch ending {
        case .released:
            return StrataError(
                .transactionClosed,
                "This read generation was released; take a new one with DataStack.readGeneration() or "
                    + "withReadGeneration(_:) to read again.")
        case .cancelled:
            if Task.isCancelled { return CancellationError() }
            return StrataError(
                .transactionClosed,
                "This read generation was released because a task that used it was cancelled; take a new one "
                    + "with DataStack.readGeneration() or withReadGeneration(_:) to read again.")
        case .stackClosed:
            return Connection.closedError
        }
    }

    private static func lostError(_ reason: String) -> StrataError {
        StrataError(
            .transactionClosed,
            "This read generation's read transaction was ended by SQLite after an error (\(reason)), so it no "
                + "longer reads one committed state. Call moveToLatest() to read the latest state, or release it "
                + "and take a new one.")
    }
}
