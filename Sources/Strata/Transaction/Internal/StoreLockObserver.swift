/// What a transaction of a stack of several stores tells the writer that runs it: that it is about to
/// write to a store for the first time in its SQLite transaction, holding that store's write lock.
protocol StoreLockObserver: AnyObject {
    /// Called on the writer's executor, once per store and SQLite transaction, before the first write
    /// to the store at `index` (see `Connection.storeIndex(_:)`); returns whether the transaction must
    /// now record its changes by store (the writer began to follow the store's history).
    func storeLocked(_ index: Int) throws(StrataError) -> Bool
}
