import Synchronization

/// A bounded pool of reader connections, opened on demand.
///
/// Taking a free reader is a lock, not an actor hop, so a read costs one hop: to the reader's own
/// executor and back. When every reader is busy, the read waits for one (suspended, never blocking a
/// thread). Readers never wait for the writer: in WAL mode each sees the last committed state.
final class ReaderPool: Sendable {
    private enum Acquired: Sendable {
        case reader(ReaderConnection)
        case openNew(number: Int)
        case closed
    }

    private struct State {
        var idle: [ReaderConnection] = []
        var opened = 0
        var waiters: [CheckedContinuation<Acquired, Never>] = []
        var isClosed = false
    }

    private let state = Mutex(State())
    private let files: StoreFiles
    private let options: Connection.Options
    let capacity: Int

    init(files: StoreFiles, options: Connection.Options, capacity: Int) {
        self.files = files
        self.options = options
        self.capacity = capacity
    }

    /// Runs `body` on a reader, with cancellation interrupting SQLite.
    func read<T: Sendable>(inTransaction: Bool = false, _ body: @Sendable @escaping (Connection) throws -> T) async throws -> T {
        try Task.checkCancellation()
        let reader = try await acquire()
        defer { release(reader) }
        let handle = reader.interruptHandle
        defer { handle.reset() }
        do {
            return try await withTaskCancellationHandler {
                try await reader.handOffRead(inTransaction: inTransaction, body)
            } onCancel: {
                handle.interrupt()
            }
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    /// Takes an idle reader without waiting, or returns `nil` (none idle, or the pool is closed); give
    /// it back with ``release(_:)``.
    func tryAcquire() -> ReaderConnection? {
        state.withLock { state in state.isClosed ? nil : state.idle.popLast() }
    }

    /// Takes a reader for exclusive use; give it back with ``release(_:)``.
    func acquire() async throws -> ReaderConnection {
        let immediate: Acquired? = state.withLock { state in
            if state.isClosed { return .closed }
            if let reader = state.idle.popLast() { return .reader(reader) }
            if state.opened < capacity {
                state.opened += 1
                return .openNew(number: state.opened)
            }
            return nil
        }
        let acquired: Acquired
        if let immediate {
            acquired = immediate
        } else {
            acquired = await withCheckedContinuation { continuation in
                let ready: Acquired? = state.withLock { state in
                    if state.isClosed { return .closed }
                    if let reader = state.idle.popLast() { return .reader(reader) }
                    if state.opened < capacity {
                        state.opened += 1
                        return .openNew(number: state.opened)
                    }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
        switch acquired {
        case .closed:
            throw Connection.closedError
        case .reader(let reader):
            return reader
        case .openNew(let number):
            do {
                return try await ReaderConnection.open(files: files, options: options, number: number)
            } catch {
                // Hand the slot to a waiter, who tries to open a reader in turn; or give it back.
                let waiter = state.withLock { state in
                    if state.waiters.isEmpty {
                        state.opened -= 1
                        return nil as CheckedContinuation<Acquired, Never>?
                    }
                    return state.waiters.removeFirst()
                }
                waiter?.resume(returning: .openNew(number: number))
                throw error
            }
        }
    }

    /// Gives a reader back to the pool (or closes it when the pool is closed).
    func release(_ reader: ReaderConnection) {
        enum Next { case wake(CheckedContinuation<Acquired, Never>), keep, close }
        let next: Next = state.withLock { state in
            if state.isClosed { return .close }
            if state.waiters.isEmpty {
                state.idle.append(reader)
                return .keep
            }
            return .wake(state.waiters.removeFirst())
        }
        switch next {
        case .wake(let waiter): waiter.resume(returning: .reader(reader))
        case .keep: break
        case .close: Task { await reader.close() }
        }
    }

    /// Closes idle readers now and busy ones when their read ends; later reads throw
    /// ``StrataError/Code/stackClosed``.
    func close() async {
        let (idle, waiters) = state.withLock { state in
            state.isClosed = true
            defer {
                state.idle.removeAll()
                state.waiters.removeAll()
            }
            return (state.idle, state.waiters)
        }
        for waiter in waiters { waiter.resume(returning: .closed) }
        for reader in idle { await reader.close() }
    }

    /// The number of reader connections opened so far.
    var openedCount: Int { state.withLock { $0.opened } }
}
