import Synchronization

/// The stores of a stack as of now: the ones it opened with until a store is added with
/// ``DataStack/addStorage(_:)``. Read on every access, so it reads the opened stores without a lock
/// until then (an atomic flag); publishers read it at each fetch, so they see stores added after them.
final class StoreSource: Sendable {
    private let opened: StoreContext
    private let added = Locked<StoreContext?>(nil)
    private let wasAdded = Atomic<Bool>(false)

    init(_ opened: StoreContext) {
        self.opened = opened
    }

    /// The main store's context now (for a stack of several, the one that chooses among them).
    var current: StoreContext {
        guard wasAdded.load(ordering: .acquiring) else { return opened }
        return added.withLock { $0 } ?? opened
    }

    /// Makes `next` the stack's stores.
    func replace(with next: StoreContext) {
        added.withLock { $0 = next }
        wasAdded.store(true, ordering: .releasing)
    }
}
