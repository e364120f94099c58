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
        self.store = store
        ids = IDAllocator(homes: store.idHomes)
        lastDataVersion = nil
    }

    /// Whether another connection (another process or stack) committed since the last check: the writer
    /// connection's `PRAGMA data_version` changes exactly then, never for its own commits.
    /// In a stack of several stores, every store's version counts.
    func externalChangeCheck() throws -> Bool {
        var version: [Int64] = []
        for index in 0..<connection.storeCount {
            guard let one = try connection.dataVersion(store: index) else { return false }
            version.append(one)
        }
        defer { lastDataVersion = version }
        guard let lastDataVersion else { return false }
        return version != lastDataVersion
    }

    /// What other connections committed since the last check, or `nil` when they committed nothing: the
    /// exact changes read from the persistent history when the store keeps one, an external change set
    /// (anything may have changed) otherwise.
    func externalChanges() throws -> ChangeSet? {
        guard try externalChangeCheck() else { return nil }
        // A commit that recorded no history (a purge, or a connection that is not Strata's): anything may
        // have changed.
        return try history?.scanOthers(on: connection) ?? .unknownExternal
    }
}
