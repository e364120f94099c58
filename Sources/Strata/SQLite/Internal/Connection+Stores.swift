internal import CSQLite

/// What a connection of a stack of several stores keeps of the other stores: which are attached, the
/// statement that takes a snapshot of all of them, the write locks of the running write transaction,
/// and the lock shared with the stack's other connections.
struct ConnectionStores {
    /// The lock a stack takes around each commit, counting them, and around the start of a read that
    /// needs to know which commits it sees. In a stack of several stores every read starts under it, so
    /// that it starts either before or after a commit that writes to several stores, never between
    /// the stores: SQLite commits attached databases one after the other.
    let commitGate: Locked<Int>?
    /// The stores the stack attaches, and the schema names attached to this connection so far.
    let list: AttachmentList?
    var attachedSchemas: [String] = [] {
        didSet {
            snapshotSQL = attachedSchemas.isEmpty ? nil : "SELECT (SELECT count(*) FROM main.sqlite_schema)"
                + attachedSchemas.map { " + (SELECT count(*) FROM \"\($0)\".sqlite_schema)" }.joined()
        }
    }
    /// The statement that takes the snapshot of every store, once another store is attached.
    private(set) var snapshotSQL: String?
    /// The stores whose write lock the running write transaction holds (see `Connection.beginWrite()`),
    /// one bit per store: bit 0 the main store, bit *n* the *n*th attached one.
    var writeLocked: UInt64 = 0
    /// Per store (index 0 the main one, *n* the *n*th attached), the statement that takes its write
    /// lock and the one that reads its `PRAGMA data_version`, each made once: a write transaction runs
    /// both, and looking them up by index costs no hashing of names or SQL.
    var lockStatements: [StatementKey?] = [nil]
    var dataVersionStatements: [StatementKey?] = [StatementKey("PRAGMA data_version")]
    /// Per store, its `PRAGMA data_version` when a write transaction last found its metadata at the
    /// expected schema version (see ``Connection/lockForWriting(store:)``); `nil` before the first look.
    var versionsLookedAt: [Int64?] = [nil]
    /// Per store, its `PRAGMA data_version` read when the running write transaction took its write lock
    /// (see ``Connection/lockedDataVersion(store:)``).
    var lockedVersions: [Int64?] = [nil]
    /// Counts the write transactions begun, so that a caller can tell one from the next.
    var writeTransactionNumber = 0
    /// Whether a write transaction begun by ``Connection/beginWrite()`` is open, as far as Strata knows:
    /// set when it begins, cleared when it commits or SQLite ends it on an error.
    var writeOpen = false
    /// Why SQLite rolled back the running write transaction on its own: a statement failed with an error
    /// that ends the whole transaction (an interrupt, an I/O error, a full disk…), savepoints included.
    /// Everything the transaction did is gone; nothing more may run in it. `nil` until then.
    var lostWrite: StrataError?
    /// The commit gate's count when the running read transaction took its snapshot under the gate:
    /// the read sees exactly the commits counted so far. `nil` before it took one that way.
    var snapshotCommitNumber: Int?
    /// The statement count right after the running read's `BEGIN DEFERRED`, while it has taken no
    /// snapshot yet (SQLite takes it at the first read).
    var readBegunAt: Int?
    let isReadOnly: Bool

    init(_ options: Connection.Options) {
        commitGate = options.commitGate
        list = options.attachments
        isReadOnly = options.readOnly
    }
}

/// Beginning and committing transactions, and attaching the other stores of a stack of several.
extension Connection {
    /// Counts the write transactions begun, so that a caller can tell one from the next.
    var writeTransactionNumber: Int { stores.writeTransactionNumber }

    /// `BEGIN DEFERRED`, then with `snapshot` a read that takes the snapshot at once. In a stack of
    /// several stores the snapshot of every store is always taken at once, under the commit gate, so the
    /// read sees each commit in all its stores or in none.
    ///
    /// A read that touches one store only (`oneStore`) needs no common snapshot: it begins as in a
    /// stack of one store.
    func beginRead(snapshot: Bool = false, oneStore: Bool = false) throws(StrataError) {
        try syncAttachments()
        stores.snapshotCommitNumber = nil
        stores.readBegunAt = nil
        guard !oneStore, let commitGate = stores.commitGate, let snapshotSQL = stores.snapshotSQL else {
            try run(.beginDeferred)
            if snapshot { try run(.startSnapshot) } else { stores.readBegunAt = statementCount }
            return
        }
        try underGate(commitGate, waitingOutside: true) { (commits: inout Int) throws(StrataError) -> Void in
            try run(.beginDeferred)
            let statement = try cachedStatement(snapshotSQL)
            defer { statement.reset() }
            _ = try statement.step()
            stores.snapshotCommitNumber = commits
        }
    }

    /// Runs `body` under the commit gate, with nothing there that may take long: the statement trace
    /// gets the texts once the gate is released (see ``TraceBox``), and with `waitingOutside`, a
    /// statement that meets another connection's lock fails at once; the gate is let go, the wait
    /// happens outside it (the busy timeout's schedule), and `body` runs again. A transaction `body`
    /// left open is rolled back before the wait.
    private func underGate<T>(
        _ gate: Locked<Int>, waitingOutside: Bool = false, _ body: (inout Int) throws(StrataError) -> T
    ) throws(StrataError) -> T {
        var attempts: Int32 = 0
        while true {
            let wasOpen = isInTransaction
            do throws(StrataError) {
                traceBox?.takeUnretainedValue().hold()
                defer { traceBox?.takeUnretainedValue().release() }
                busyWait?.failsAtOnce = waitingOutside
                defer { busyWait?.failsAtOnce = false }
                return try gate.withLock { (commits: inout Int) throws(StrataError) -> T in try body(&commits) }
            } catch where waitingOutside && error.sqliteCode == SQLITE_BUSY && error.extendedCode != SQLiteCode.busySnapshot {
                if !wasOpen, isInTransaction { try? run(.rollback) }
                guard let busyWait, busyWait.wait(after: attempts) else { throw error }
                attempts += 1
            }
        }
    }

    /// How many commits the running read transaction sees, by the commit gate's count: in a read begun
    /// with ``beginRead(snapshot:oneStore:)`` and no statement run yet, it takes the snapshot under the
    /// gate. `nil` without a gate, or when the read already took its snapshot another way (its commits
    /// are then unknown).
    func commitsSeen() throws(StrataError) -> Int? {
        if let seen = stores.snapshotCommitNumber { return seen }
        guard let commitGate = stores.commitGate, statementCount == stores.readBegunAt else { return nil }
        return try underGate(commitGate, waitingOutside: true) { (commits: inout Int) throws(StrataError) -> Int in
            try run(.startSnapshot)
            stores.snapshotCommitNumber = commits
            return commits
        }
    }

    /// Attaches the stores of the stack's list that this connection has not attached yet (outside a
    /// transaction: SQLite refuses `ATTACH` inside one).
    func syncAttachments() throws(StrataError) {
        guard let list = stores.list, list.count > stores.attachedSchemas.count else { return }
        for entry in list.current.dropFirst(stores.attachedSchemas.count) { try attach(entry) }
    }

    /// Attaches one store (outside a transaction).
    func attach(_ entry: AttachmentList.Entry) throws(StrataError) {
        try execute("ATTACH DATABASE ? AS \"\(entry.schemaName)\"", [.text(entry.path)])
        stores.attachedSchemas.append(entry.schemaName)
        stores.lockStatements.append(nil)
        stores.dataVersionStatements.append(nil)
        stores.versionsLookedAt.append(nil)
        stores.lockedVersions.append(nil)
        guard !stores.isReadOnly else { return }
        do throws(StrataError) {
            guard sqlite3_db_readonly(handle, entry.schemaName) != 1 else {
                throw StrataError(
                    .readOnly,
                    "The store at \(entry.path) can only be read (the file or its directory is read-only). "
                        + "Open it from a writable location, or fix its permissions.",
                    sqliteCode: SQLITE_READONLY, extendedCode: SQLITE_READONLY)
            }
            try execute("PRAGMA \"\(entry.schemaName)\".synchronous = \(entry.synchronous.rawValue)")
        } catch {
            detachLast()
            throw error
        }
    }

    /// Detaches the store attached last, when setting it up after ``attach(_:)`` failed: the connection
    /// goes back to the stores it had.
    /// A DETACH that SQLite refuses leaves the store attached and listed, so that the list stays true.
    func detachLast() {
        guard let schemaName = stores.attachedSchemas.last else { return }
        if isInTransaction { try? run(.rollback) }
        guard (try? execute("DETACH DATABASE \"\(schemaName)\"")) != nil else { return }
        stores.attachedSchemas.removeLast()
        stores.lockStatements.removeLast()
        stores.dataVersionStatements.removeLast()
        stores.versionsLookedAt.removeLast()
        stores.lockedVersions.removeLast()
    }

    /// Begins the writer's transaction: `BEGIN IMMEDIATE`, which takes the write lock of every database
    /// of the connection. In a stack of several stores, `BEGIN DEFERRED`: each store's write lock is
    /// taken when a write first goes to it (``lockForWriting(store:)``), so a transaction that writes to
    /// one store leaves the others alone.
    func beginWrite() throws(StrataError) {
        stores.writeLocked = 0
        stores.writeTransactionNumber &+= 1
        stores.lostWrite = nil
        try run(stores.attachedSchemas.isEmpty ? .beginImmediate : .beginDeferred)
        stores.writeOpen = true
    }

    /// Why SQLite rolled back the running write transaction on its own, if it did (see
    /// ``ConnectionStores/lostWrite``).
    var lostWrite: StrataError? { stores.lostWrite }

    /// Notes that the running write transaction ended (committed or rolled back).
    func writeEnded() {
        stores.writeOpen = false
    }

    /// Called with each error of this connection: when it ended the open write transaction (SQLite rolls
    /// a whole transaction back on some errors of a statement that writes), records why.
    func noteLostWrite(_ error: StrataError) {
        guard stores.writeOpen, sqlite3_get_autocommit(handle) != 0 else { return }
        stores.writeOpen = false
        stores.lostWrite = StrataError(
            error.code,
            "SQLite rolled the whole transaction back after this error, so nothing the transaction did is kept: "
                + error.message,
            sqliteCode: error.sqliteCode, extendedCode: error.extendedCode, sql: error.sql)
    }

    /// The index of the store attached as `schemaName` (`"main"` or `nil`: the main store, 0; the *n*th
    /// attached store, *n*). A stack has at most a handful of stores: a scan of their short names costs
    /// less than hashing one.
    ///
    /// - Throws: ``StrataError/Code/storeNotFound`` when no store is attached as `schemaName`.
    func storeIndex(_ schemaName: String?) throws(StrataError) -> Int {
        guard let schemaName, schemaName != "main" else { return 0 }
        guard let index = stores.attachedSchemas.firstIndex(of: schemaName) else {
            throw StrataError(
                .storeNotFound,
                "No store is attached as \(schemaName) on this connection; the stack's stores changed "
                    + "meanwhile. Retry the operation.")
        }
        return index + 1
    }

    /// The number of stores this connection reads: the main one and those attached so far.
    var storeCount: Int { stores.attachedSchemas.count + 1 }

    /// The schema name of the store at `index` (see ``storeIndex(_:)``).
    func schemaName(ofStore index: Int) -> String {
        index == 0 ? "main" : stores.attachedSchemas[index - 1]
    }

    /// The path of the store at `index` (see ``storeIndex(_:)``), for messages.
    func storePath(ofStore index: Int) -> String {
        guard index > 0 else { return path }
        let name = schemaName(ofStore: index)
        return stores.list?.current.first { $0.schemaName == name }?.path ?? name
    }

    /// Whether the running write transaction holds the write lock of the store at `index` (see
    /// ``storeIndex(_:)``); always true in a stack of one store, which `BEGIN IMMEDIATE` locked.
    func holdsWriteLock(store index: Int) -> Bool {
        stores.attachedSchemas.isEmpty || stores.writeLocked & (1 << index) != 0
    }

    /// Takes the write lock of the store at `index` (see ``storeIndex(_:)``) in the running write
    /// transaction, with a write statement that changes nothing; returns whether it was taken now (false
    /// when the transaction held it already).
    ///
    /// With an expected schema version (``Options/schemaVersion``), a lock taken now also checks that
    /// the store is still at that version when another connection committed to it since the last look
    /// (its `PRAGMA data_version` changed), as the writer of a stack of one store does at the start of
    /// each transaction: another stack or process may have migrated this store alone, and the stack's
    /// writes would go into tables of another version.
    ///
    /// - Throws: ``StrataError/Code/schemaMismatch`` when the store is at another version (the lock
    ///   stays taken, until the transaction rolls back).
    @discardableResult
    func lockForWriting(store index: Int) throws(StrataError) -> Bool {
        guard !holdsWriteLock(store: index) else { return false }
        let statement = try perStoreStatement(\.lockStatements, store: index) { schemaName in
            "UPDATE \"\(schemaName)\".strata_metadata SET value = value WHERE 0"
        }
        defer { statement.reset() }
        while try statement.step() {}
        stores.writeLocked |= 1 << index
        let version = try dataVersion(store: index)
        stores.lockedVersions[index] = version
        if let expected = expectedSchemaVersion, let version, version != stores.versionsLookedAt[index] {
            if let stored = storedSchemaVersion(store: index), stored != expected {
                // Not recorded as looked at: every later write to the store is refused too.
                throw migratedError(path: storePath(ofStore: index), stored: stored, expected: expected)
            }
            stores.versionsLookedAt[index] = version
        }
        return true
    }

    /// The `PRAGMA data_version` of the store at `index` that ``lockForWriting(store:)`` read when it
    /// took the store's write lock in the running write transaction (no other connection can commit to
    /// the store until the transaction ends, so it is the store's version until then); `nil` before.
    func lockedDataVersion(store index: Int) -> Int64? {
        holdsWriteLock(store: index) && !stores.attachedSchemas.isEmpty ? stores.lockedVersions[index] : nil
    }

    /// `PRAGMA data_version` of the store at `index` (see ``storeIndex(_:)``; 0, the main database, by
    /// default): it changes when another connection commits to that database, never for this
    /// connection's own commits.
    func dataVersion(store index: Int = 0) throws(StrataError) -> Int64? {
        let statement = try perStoreStatement(\.dataVersionStatements, store: index) { schemaName in
            "PRAGMA \"\(schemaName)\".data_version"
        }
        defer { statement.reset() }
        guard try statement.step(), case .integer(let version) = statement.value(at: 0) else { return nil }
        return version
    }

    /// The statement of the store at `index` in one of the per-store lists, made from `sql` (given the
    /// store's schema name) the first time.
    private func perStoreStatement(
        _ list: WritableKeyPath<ConnectionStores, [StatementKey?]>, store index: Int, _ sql: (String) -> String
    ) throws(StrataError) -> Statement {
        if let key = stores[keyPath: list][index] { return try statement(key) }
        let key = StatementKey(sql(schemaName(ofStore: index)))
        stores[keyPath: list][index] = key
        return try statement(key)
    }

    /// `COMMIT`, under the commit gate (see ``beginRead(snapshot:oneStore:)``), which counts it;
    /// `counted` runs under the gate too, with the commit's number, once it has committed.
    ///
    /// A `COMMIT` that fails after the transaction wrote to more than one store may have committed some
    /// of them: SQLite commits a WAL database at a time (the main store first), each atomic on its own.
    /// It is counted as a commit then too, and `partial` gets its number, before the error is thrown.
    func commitWrite(counted: (Int) -> Void = { _ in }, partial: (Int) -> Void = { _ in }) throws(StrataError) {
        guard let commitGate = stores.commitGate else {
            try run(.commit)
            stores.writeOpen = false
            checkpointIfDue()
            return
        }
        try underGate(commitGate) { (commits: inout Int) throws(StrataError) -> Void in
            do throws(StrataError) {
                try run(.commit)
            } catch {
                if stores.writeLocked.nonzeroBitCount > 1 {
                    commits += 1
                    partial(commits)
                }
                throw error
            }
            commits += 1
            counted(commits)
        }
        stores.writeOpen = false
        // Outside the gate: reads that start under it never wait for a checkpoint.
        checkpointIfDue()
    }

    /// Counts a commit another connection made, which the stack noticed only now: `counted` runs under
    /// the commit gate with its number. Reads that start afterwards count it among those they see.
    func countExternalCommit(_ counted: (Int) -> Void) {
        guard let commitGate = stores.commitGate else { return }
        commitGate.withLock { commits in
            commits += 1
            counted(commits)
        }
    }
}
