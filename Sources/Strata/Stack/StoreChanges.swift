/// Every change committed to a store, as an `AsyncSequence` of ``ChangeSet`` values: the counterpart
/// of Core Data's `NSPersistentStoreRemoteChange` notification, for code that is not a publisher (a
/// cache to invalidate, a search index to update, a server pushing "changed" events to its clients).
///
/// ```swift
/// for await changes in stack.changes() {
///     if changes.isUnknown {
///         print("another process committed")   // no details: anything may have changed
///     } else {
///         print(changes.changedEntityNames, changes.insertedIDs(Person.self))
///     }
/// }
/// ```
///
/// It yields:
/// - one change set per commit of the stack that changed something, in commit order;
/// - one change set with ``ChangeSet/isExternal`` set each time the stack notices commits of another
///   connection (another process, or another `DataStack` on the same file); one may stand for several
///   commits. A file store notices them within milliseconds (a file-system
///   watch, backed by a poll; see ``DataStack/Configuration/externalChangePollInterval``, whose `nil`
///   turns them off). When the store keeps a persistent history (``DataStack/Configuration/history``),
///   the change set holds the exact changes those commits recorded, merged into one when several are
///   noticed at once (keeping what each did: an ID may be both inserted and updated or deleted; a
///   deleted one is gone); otherwise ``ChangeSet/isUnknown`` is set as well: it carries no details.
///
/// An external change set comes in the order the stack noticed the outside commit: after every change
/// set of the stack committed before that, before every one committed after. The first one after you
/// call ``DataStack/changes()`` may stand for commits made shortly before.
///
/// The subscription starts when ``DataStack/changes()`` returns, so a commit that follows the call is
/// never missed, and change sets wait in the sequence until you take them (so iterate it, or drop it).
/// It ends when its iterator is released (a `for await` loop that ends, by `break` or otherwise), when
/// the sequence is released without being iterated, when the iterating task is cancelled, or when the
/// stack is closed; while it lives, the stack watches for outside commits. Iterate it once, from one
/// task: a second iterator of the same sequence ends when the first is released. Call
/// ``DataStack/changes()`` again for another consumer.
public struct StoreChanges: AsyncSequence, Sendable {
    public typealias Element = ChangeSet
    public typealias Failure = Never

    private let subscription: CommitFeed.Subscription

    init(_ subscription: CommitFeed.Subscription) {
        self.subscription = subscription
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: subscription.stream.makeAsyncIterator(), end: End(subscription.continuation))
    }

    /// The iterator of ``StoreChanges``: releasing it ends the subscription.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: AsyncStream<ChangeSet>.Iterator
        private let end: End

        fileprivate init(base: AsyncStream<ChangeSet>.Iterator, end: End) {
            self.base = base
            self.end = end
        }

        /// The next change set, or `nil` once the subscription has ended.
        public mutating func next() async -> ChangeSet? {
            await base.next()
        }

        /// The next change set, or `nil` once the subscription has ended; runs in the caller's isolation.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> ChangeSet? {
            await base.next(isolation: actor)
        }
    }

    /// Ends the subscription when the last copy of its iterator is released.
    fileprivate final class End: Sendable {
        private let continuation: AsyncStream<ChangeSet>.Continuation

        init(_ continuation: AsyncStream<ChangeSet>.Continuation) {
            self.continuation = continuation
        }

        deinit {
            continuation.finish()
        }
    }
}

extension DataStack {
    /// Every change committed to the store from now on, by this stack or (as external change sets) by
    /// other processes and stacks; see ``StoreChanges``.
    public func changes() -> StoreChanges {
        StoreChanges(observation.changeSubscription())
    }
}
