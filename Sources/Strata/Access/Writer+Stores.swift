import Logging

/// The writer and the stack's stores: attaching a store added to the stack, and noticing other
/// connections' commits to the stores.
extension Writer {
    /// Attaches a store added to the stack, between two transactions (it waits for the turn), and
    /// from then on writes with the stack's new stores.
    nonisolated func attach(_ entry: AttachmentList.Entry, store: StoreContext) async throws {
        try Task.checkCancellation()
        try checkNotHoldingUnsafe()
        try await takeTurn()
        try await attachInTurn(entry, store: store)
    }

    private func attachInTurn(_ entry: AttachmentList.Entry, store: StoreContext) throws {
        defer { passTurn() }
        if connection.isClosed { throw Connection.closedError }
        try connection.attach(entry)
        // What can fail comes first, on copies: a failure detaches the store and leaves the writer with
        // the stack's stores as they were.
        var history = self.history
        var keepsHistory = false
        let addedVersion: Int64?
        do {
            // The added store's history: kept when this stack records one, followed when another stack
            // turned it on for that file.
            if history != nil, let added = store.allStores.last {
                try history?.add(added, connection: connection)
            } else if history == nil, let recorder = try HistoryRecorder(options: nil, store: store, connection: connection) {
                history = recorder
                keepsHistory = true
            }
            // The added store's version from now on, beside the others' as last checked: a commit another
            // connection made to them since that check is still one the next check reports. (Forgetting
            // every version here made the next check take them as a first baseline, and lose that commit.)
            addedVersion = lastDataVersion == nil ? nil : try connection.dataVersion(store: connection.storeCount - 1)
        } catch {
            connection.detachLast()
            throw error
        }
        self.store = store
        self.history = history
        if keepsHistory { historyKept.withLock { $0 = true } }
        ids = IDAllocator(homes: store.idHomes)
        if let addedVersion { lastDataVersion?.append(addedVersion) }
    }

    /// Whether another connection (another process or stack) committed since the last check: the writer
    /// connection's `PRAGMA data_version` changes exactly then, never for its own commits.
    /// In a stack of several stores, every store's version counts.
    func externalChangeCheck() throws -> Bool {
        try !changedStores().isEmpty
    }

    /// The indices of the stores another connection committed to since the last check (see
    /// ``externalChangeCheck()``).
    ///
    /// With `inOwnRead`, the connection is in a read transaction the caller began for this check: each
    /// version read there begins that store's snapshot, so the versions kept for the next check are
    /// those of exactly the commits the rest of that transaction reads.
    private func changedStores(inOwnRead: Bool = false) throws -> [Int] {
        // Between an unsafe transaction's blocks, reading a store's version would start that store's
        // snapshot: a later write of the transaction to it would fail with SQLITE_BUSY_SNAPSHOT once
        // another connection committed there. The check comes again when the transaction has ended.
        guard inOwnRead || !connection.isInTransaction else { return [] }
        var version: [Int64] = []
        for index in 0..<connection.storeCount {
            guard let one = try connection.dataVersion(store: index) else { return [] }
            version.append(one)
        }
        defer { lastDataVersion = version }
        guard let lastDataVersion else { return [] }
        return version.indices.filter { $0 >= lastDataVersion.count || version[$0] != lastDataVersion[$0] }
    }

    /// What other connections committed since the last check, or `nil` when they committed nothing: the
    /// exact changes read from the persistent history when the store keeps one, an external change set
    /// (anything may have changed) otherwise.
    func externalChanges() throws -> ChangeSet? {
        guard !connection.isInTransaction else { return nil }   // see changedStores()
        // With a history, the versions and the history are read in one read transaction: a commit that
        // lands between the two is then read at the next check, not now and again then (as a change
        // the history no longer explains, which would make every publisher read everything again).
        let scans = history != nil
        if scans { try connection.run(.beginDeferred) }
        defer {
            if scans, (try? connection.run(.commit)) == nil, connection.isInTransaction {
                // A read transaction left open would keep every later write transaction from beginning.
                connection.resetActiveStatements()
                try? connection.run(.rollback)
            }
        }
        let changed = try changedStores(inOwnRead: scans)
        guard !changed.isEmpty else { return nil }
        // A commit that recorded no history (a purge, or a connection that is not Strata's), or one to a
        // store that keeps none: anything may have changed.
        // The check above has taken the new versions: these commits are reported now or never. When
        // reading what they changed fails (an I/O error, a history table another program broke), they
        // are reported as unknown changes, which every publisher fetches anew for; the history is
        // read from the same place at the next check.
        var changes: ChangeSet
        do {
            changes = try history?.scanOthers(changedStores: changed, on: connection) ?? .unknownExternal
        } catch {
            logger.warning(
                "another connection's commits are reported as unknown changes: reading their history failed",
                metadata: ["strata.error": "\(error)"])
            changes = .unknownExternal
        }
        // Reads that start from now on see these commits: they count among the commits reads see.
        let commitLog = self.commitLog
        let found = changes
        connection.countExternalCommit { number in
            commitLog.add(number, found)
            changes.commitNumber = number
        }
        return changes
    }

    /// The own history tokens the writer keeps for its next scan of others' commits (for tests).
    var ownHistoryTokenCount: Int { history?.ownTokenCount ?? 0 }
}
