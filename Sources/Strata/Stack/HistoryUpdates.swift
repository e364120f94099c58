/// The recorded transactions of a store, delivered as the stack sees them commit: see
/// ``DataStack/historyUpdates(after:)``.
///
/// Each iterator reads the history itself, a page at a time, after the last token it delivered, and
/// waits between pages for a commit of this stack or of another connection (it counts as an active
/// observer: other processes' commits are watched while it waits, unless
/// ``DataStack/Configuration/externalChangePollInterval`` is `nil`). Since it reads by token, nothing is
/// lost and nothing delivered twice, however commits and wake-ups interleave.
///
/// Neither the sequence nor its iterators keep the stack open: once the stack is released (and so
/// closed), an iteration under way ends.
public struct HistoryUpdates: AsyncSequence, Sendable {
    public typealias Element = HistoryTransaction

    let stack: StackReference
    let after: HistoryToken?

    init(stack: DataStack, after: HistoryToken?) {
        self.stack = StackReference(stack)
        self.after = after
    }

    /// Starts delivering the transactions after the sequence's token.
    public func makeAsyncIterator() -> Iterator {
        Iterator(stack: stack, last: after)
    }

    /// The stack, while it is referenced elsewhere: an iteration waiting for commits must not keep a
    /// stack open that its owner released.
    final class StackReference: Sendable {
        weak let stack: DataStack?

        init(_ stack: DataStack) {
            self.stack = stack
        }
    }

    /// Delivers the transactions in token order (in a stack of several stores, merged across stores by
    /// date).
    public struct Iterator: AsyncIteratorProtocol {
        private let stack: StackReference
        private let wakeUps: WakeUps
        private var signals: AsyncStream<Void>.Iterator
        private var pending: [HistoryTransaction] = []
        private var nextIndex = 0
        private var last: HistoryToken?
        private var isFinished = false
        /// Whether a read of the history succeeded: the stack was open when the iteration began.
        private var hasRead = false

        init(stack: StackReference, last: HistoryToken?) {
            self.stack = stack
            self.last = last
            // Listen before the first read: a commit after it wakes the iterator up.
            wakeUps = WakeUps(stack: stack.stack)
            signals = wakeUps.signals.makeAsyncIterator()
        }

        /// The next transaction: at once when one is recorded after the last delivered, otherwise once
        /// one commits. `nil` once the stack closes during the iteration; an iteration that begins on a
        /// closed stack throws ``StrataError/Code/stackClosed``, as a publisher's does. Throws
        /// `CancellationError` when the task is cancelled.
        public mutating func next() async throws -> HistoryTransaction? {
            while !isFinished {
                try Task.checkCancellation()
                if nextIndex < pending.count {
                    let transaction = pending[nextIndex]
                    nextIndex += 1
                    last = transaction.token
                    return transaction
                }
                let page: [HistoryTransaction]
                do {
                    // Held only for the read: a released stack closes, which ends the wait below.
                    guard let stack = stack.stack else { throw Connection.closedError }
                    page = try await stack.history(after: last, limit: Self.pageSize)
                } catch let error as StrataError where error.code == .stackClosed && hasRead {
                    isFinished = true
                    break
                }
                hasRead = true
                if !page.isEmpty {
                    pending = page
                    nextIndex = 0
                    continue
                }
                if await signals.next() == nil {
                    try Task.checkCancellation()
                    isFinished = true
                }
            }
            return nil
        }

        /// The most transactions read at once.
        static var pageSize: Int { 256 }
    }

    /// Wakes an iterator up after each commit (several commits before it looks give one wake-up), and
    /// ends its signals when the stack closes (at once for a stack already released).
    final class WakeUps: Sendable {
        let signals: AsyncStream<Void>
        private let relay: Task<Void, Never>

        init(stack: DataStack?) {
            let (signals, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            self.signals = signals
            // The stack's change stream: its own commits and other connections' (it keeps the watch for
            // them running while it lives), ending when the stack closes.
            let commits = stack?.observation.changeSubscription().stream ?? AsyncStream { $0.finish() }
            // Detached: the stack's own task, not the iterating task's priority and task-locals.
            relay = Task.detached {
                for await _ in commits { continuation.yield() }
                continuation.finish()
            }
        }

        deinit {
            relay.cancel()
        }
    }
}
