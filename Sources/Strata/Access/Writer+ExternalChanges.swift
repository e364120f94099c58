import Logging

/// What the writer checks at the start of a write transaction when another connection committed
/// since it last looked: that the store is still at the stack's schema version, and whether the
/// persistent history was turned on (see ``Writer/begin()``).
extension Writer {
    /// Refuses to write to a store that another stack or process migrated to another version since this
    /// stack opened it: its objects would be written as this stack's version declares them, into tables
    /// of the other version. Looks at the store's metadata only when another connection committed since
    /// the last look (`dataVersion`, the store's `PRAGMA data_version`, changed), which a migration does;
    /// called at the start of each write transaction, holding the write lock, so no migration can
    /// commit before the transaction ends. A stack of several stores looks at each store when a write
    /// transaction first writes to it instead (``Connection/lockForWriting(store:)``).
    func checkStoreVersion(dataVersion version: Int64) throws(StrataError) {
        guard version != versionLookedAt, let expected = connection.expectedSchemaVersion else { return }
        if let stored = connection.storedSchemaVersion(), stored != expected {
            // Not recorded as looked at: every later transaction is refused too.
            throw connection.migratedError(stored: stored, expected: expected)
        }
        versionLookedAt = version
    }

    /// Starts recording the persistent history when another connection turned it on for the store after
    /// this stack opened (a commit without its history would be lost to every consumer of it). Looks only
    /// when another connection committed since the last look (`dataVersion`, the store's `PRAGMA
    /// data_version`, changed), which turning the history on does; called at the start of each write
    /// transaction, so the transaction that follows is recorded. The version is read once for this, the
    /// schema version's check and the ID counters' check.
    func adoptHistoryIfTurnedOn(dataVersion version: Int64) throws(StrataError) {
        guard version != historyLookedAt else { return }
        historyLookedAt = version
        try followHistoryIfKept()
    }

    /// Starts recording the history of the stack's stores when they keep one (another connection
    /// turned it on), and says so in the log.
    private func followHistoryIfKept() throws(StrataError) {
        guard let recorder = try HistoryRecorder(options: nil, store: store, connection: connection) else { return }
        history = recorder
        historyKept.withLock { $0 = true }
        logger.notice(
            "another connection turned on the store's persistent history, so this stack records it too",
            metadata: ["strata.path": "\(files.path)"])
    }

    /// For a history read by a stack that does not record the history yet: looks whether another
    /// stack turned it on for the stack's stores since this one opened, and follows it when it did.
    /// (A stack that writes looks at its transactions; one that only reads, a widget's, looks here.)
    /// Takes the writer's turn, between two transactions; while an unsafe transaction is open it does
    /// not look: the caller may be its owner (`beginUnsafe()` has no scope to recognise it by), whose
    /// turn it is, and a read must not wait for a transaction anyway.
    nonisolated func lookForHistory() async throws {
        guard !recordsHistory else { return }
        guard openUnsafeToken.withLock({ $0 }) == nil else { return }
        try await takeTurn()
        try await lookForHistoryInTurn()
    }

    private func lookForHistoryInTurn() throws {
        defer { passTurn() }
        if connection.isClosed { throw Connection.closedError }
        if history == nil { try followHistoryIfKept() }
    }

    /// The observer a transaction tells of its first write to each store: the writer, in a stack of
    /// several stores; `nil` in a stack of one, which looks at the start of each transaction instead.
    var lockObserver: (any StoreLockObserver)? {
        connection.storeCount > 1 || store.attached.count > 0 ? self : nil
    }

    /// In a stack of several stores, when a transaction first writes to the store at `index`: starts
    /// recording the store's persistent history when another connection turned it on and this stack
    /// does not record it yet (a commit without its history would be lost to every consumer of it).
    /// Looks only when another connection committed to the store since the last look (its `PRAGMA
    /// data_version`, read when the transaction took the store's write lock, changed). Returns whether
    /// it started, so that the transaction records its changes by store from then on.
    func followHistory(ofStore index: Int) throws(StrataError) -> Bool {
        if let history, history.recordsStore(index) { return false }
        guard let version = connection.lockedDataVersion(store: index) else { return false }
        while storeHistoryLookedAt.count <= index { storeHistoryLookedAt.append(nil) }
        guard version != storeHistoryLookedAt[index] else { return false }
        storeHistoryLookedAt[index] = version
        if history == nil {
            guard let recorder = try HistoryRecorder(following: index, of: store, connection: connection) else { return false }
            history = recorder
        } else {
            guard try history?.follow(index, of: store, connection: connection) == true else { return false }
        }
        historyKept.withLock { $0 = true }
        logger.notice(
            "another connection turned on the persistent history of a store, so this stack records it too",
            metadata: ["strata.path": "\(connection.storePath(ofStore: index))"])
        return true
    }
}

extension Writer: StoreLockObserver {
    /// See ``followHistory(ofStore:)``; transactions run on the writer's executor.
    nonisolated func storeLocked(_ index: Int) throws(StrataError) -> Bool {
        try assumeIsolated { writer in
            Result { () throws(StrataError) -> Bool in try writer.followHistory(ofStore: index) }
        }.get()
    }
}
