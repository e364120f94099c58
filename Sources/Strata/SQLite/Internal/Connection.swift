internal import CSQLite
import Foundation
import OrderedCollections
import Synchronization

/// One SQLite connection with its statement cache.
///
/// A connection is used by one executor at a time (the writer's, or one reader's), so it opens with
/// `SQLITE_OPEN_NOMUTEX`. Only ``InterruptHandle`` may be used from elsewhere.
@usableFromInline
final class Connection {
    /// How to open a connection.
    struct Options: Sendable {
        var readOnly = false
        var create = true
        var walMode = true
        var busyTimeoutMilliseconds: Int32 = 5_000
        var synchronous: Synchronous = .normal
        /// The `synchronous` the stack's configuration sets for every store, when it sets one; `nil`:
        /// each store takes its storage's default (see ``AttachmentList/Entry/synchronous``).
        var configuredSynchronous: Synchronous?
        /// Called with the SQL of every statement this connection runs (values are never included).
        var trace: (@Sendable (String) -> Void)?
        /// The tag of the store this connection reads: IDs decoded here carry it (0: none yet).
        var storeTag: UInt32 = 0
        /// The name of a registered SQLite VFS to open the file through (`nil`: the default VFS). For
        /// tests that inject I/O faults; not public.
        var vfsName: String?
        /// A wait for a lock held by another connection (another process, say) longer than this is
        /// reported to ``busyReport`` once, while it lasts; `nil` reports none.
        var busyReportThreshold: Duration?
        /// Called on the connection's thread with the time waited so far.
        var busyReport: (@Sendable (Duration) -> Void)?
        /// The other stores of a stack of several, attached to the connection when it opens and, for
        /// those added later, before its next read.
        var attachments: AttachmentList?
        /// The schema version the stack expects in the store's metadata (`nil`: not checked). A statement
        /// that fails with `SQLITE_ERROR` (no such table or column, say), a read that cannot decode a value
        /// (``Connection/explainingMigration(_:)``) and the writer's transactions then check whether
        /// another stack migrated the store meanwhile.
        var schemaVersion: String?
        /// Shared by the connections of a stack (see ``beginRead(snapshot:oneStore:)``); it counts the
        /// commits that went through it. (Not `Locked<Void>`: ThreadSanitizer takes the
        /// accesses of a value of no size for accesses of the lock's next field, and reports a race.)
        var commitGate: Locked<Int>?

        /// The same options for a connection that only reads a file that exists.
        var readingOnly: Options {
            var options = self
            options.readOnly = true
            options.create = false
            return options
        }
    }

    /// SQLite's `synchronous` setting.
    enum Synchronous: String, Sendable {
        case off = "OFF", normal = "NORMAL", full = "FULL"
    }

    let handle: OpaquePointer
    let path: String
    /// Cached statements, least recently used first.
    private var cache: OrderedDictionary<String, Statement> = [:]
    private var keyed: [ObjectIdentifier: KeyedStatement] = [:]
    /// The statement trace; SQLite holds an unretained pointer to it while the handle is open.
    private(set) var traceBox: Unmanaged<TraceBox>?
    /// The `strata_initial_value` function of a migration's connection, once registered.
    var initialValues: InitialValueFunction?
    /// Whether `strata_real_text` is registered (see ``realTextFunction()``).
    var hasRealTextFunction = false
    /// The WAL size the write connection's commits reported (see ``checkpointAfterCommits()``).
    var walPages: WALPages?
    private let interruptFlag = InterruptFlag()
    /// The busy handler's state; SQLite holds an unretained pointer to it while the handle is open.
    private(set) var busyWait: BusyWait?
    private(set) var isClosed = false
    /// How many statements this connection has been asked to run (prepared, or taken from a cache), for
    /// the statement count of a trace span: a plain increment, since one executor uses the connection.
    private(set) var statementCount = 0
    /// The tag of the store: IDs decoded on this connection carry it, and IDs with another tag are
    /// refused by the store (see `EntityID`).
    /// See ``Options/schemaVersion``.
    let expectedSchemaVersion: String?
    var storeTag: UInt32
    /// What the connection keeps of the other stores of a stack of several; only the methods in
    /// Connection+Stores.swift change it.
    var stores: ConnectionStores

    /// Opens (and, unless read-only, creates) a database.
    init(path: String, options: Options) throws(StrataError) {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        if options.readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if options.create { flags |= SQLITE_OPEN_CREATE }
        }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, options.vfsName)
        if db != nil { Connection.handleCounter?.opened.add(1, ordering: .relaxed) }
        guard rc == SQLITE_OK, let db else {
            let error = Connection.openError(rc: rc, db: db, path: path)
            if let db { Connection.closeHandle(db) }
            throw error
        }
        sqlite3_extended_result_codes(db, 1)
        TextFunction.register(on: db)
        Collation.register(on: db)
        self.handle = db
        self.path = path
        self.storeTag = options.storeTag
        self.expectedSchemaVersion = options.schemaVersion
        self.stores = ConnectionStores(options)
        // The flag outlives the connection's use of it: the connection holds the flag.
        sqlite3_progress_handler(db, 256, { context in
            guard let context else { return 0 }
            return Unmanaged<InterruptFlag>.fromOpaque(context).takeUnretainedValue().raised.load(ordering: .acquiring) ? 1 : 0
        }, Unmanaged.passUnretained(interruptFlag).toOpaque())
        if let trace = options.trace {
            let box = Unmanaged.passRetained(TraceBox(trace))
            traceBox = box
            sqlite3_trace_v2(db, UInt32(SQLITE_TRACE_STMT), { _, context, _, sql in
                guard let context, let sql else { return 0 }
                let text = String(cString: sql.assumingMemoryBound(to: CChar.self))
                Unmanaged<TraceBox>.fromOpaque(context).takeUnretainedValue().record(text)
                return 0
            }, box.toOpaque())
        }
        do throws(StrataError) {
            let busyWait = BusyWait(
                timeoutMilliseconds: options.busyTimeoutMilliseconds, threshold: options.busyReportThreshold,
                report: options.busyReport, interrupt: interruptFlag)
            busyWait.install(on: db)
            self.busyWait = busyWait
            // Reading the schema here surfaces "not a database" before anything is written.
            try execute("SELECT count(*) FROM sqlite_schema")
            if !options.readOnly, sqlite3_db_readonly(db, "main") == 1 {
                throw StrataError(
                    .readOnly,
                    "The database at \(path) can only be read (the file or its directory is read-only). "
                        + "Open it from a writable location, or fix its permissions.",
                    sqliteCode: SQLITE_READONLY, extendedCode: SQLITE_READONLY)
            }
            try execute("PRAGMA foreign_keys = ON")
            try syncAttachments()
            if !options.readOnly {
                if options.walMode {
                    let mode = try pragmaText("PRAGMA journal_mode = WAL")
                    if mode.lowercased() != "wal" {
                        throw StrataError(
                            .cannotOpen,
                            "SQLite refused WAL mode for \(path) (it stayed in \(mode) mode); "
                                + "Strata's readers need WAL. Use a local file system.")
                    }
                }
                try execute("PRAGMA synchronous = \(options.synchronous.rawValue)")
            }
        } catch {
            // The connection is whole by now, so its deinit runs: close through `close()`, which it
            // checks, so that the handle is closed exactly once.
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    /// Finalizes the cached statements and closes the connection, once; further use throws.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        cache.removeAll()
        keyed.removeAll()
        if traceBox != nil { sqlite3_trace_v2(handle, 0, nil, nil) }
        if walPages != nil { sqlite3_wal_hook(handle, nil, nil) }
        if busyWait != nil { sqlite3_busy_handler(handle, nil, nil) }
        Connection.closeHandle(handle)
        busyWait = nil
        traceBox?.release()
        traceBox = nil
    }

    /// The one place that closes a handle.
    private static func closeHandle(_ handle: OpaquePointer) {
        sqlite3_close_v2(handle)
        handleCounter?.closed.add(1, ordering: .relaxed)
    }

    /// Counts the handles opened and closed within its scope, for tests that check that every handle
    /// is closed exactly once.
    @TaskLocal static var handleCounter: HandleCounter?

    final class HandleCounter: Sendable {
        let opened = Atomic<Int>(0)
        let closed = Atomic<Int>(0)
    }

    static let closedError = StrataError(
        .stackClosed, "The data stack was closed; open a new DataStack to keep working with the store.")

    private static func openError(rc: Int32, db: OpaquePointer?, path: String) -> StrataError {
        let extended = db.map { sqlite3_extended_errcode($0) } ?? rc
        let detail = db.flatMap { sqlite3_errmsg($0).map { String(cString: $0) } } ?? String(cString: sqlite3_errstr(rc))
        switch rc & 0xFF {
        case SQLITE_CANTOPEN where db.map { sqlite3_system_errno($0) } == EROFS:
            return StrataError(
                .readOnly,
                "Cannot create the database at \(path): the file system is read-only. Put the store on a "
                    + "writable file system.",
                sqliteCode: rc & 0xFF, extendedCode: extended)
        case SQLITE_CANTOPEN:
            return StrataError(
                .cannotOpen,
                "Cannot open or create the database at \(path): \(detail). Check that the directory exists "
                    + "and is writable.",
                sqliteCode: rc & 0xFF, extendedCode: extended)
        case SQLITE_NOTADB:
            return StrataError(
                .notADatabase, "The file at \(path) is not a SQLite database; it was left untouched.",
                sqliteCode: rc & 0xFF, extendedCode: extended)
        // Opening reads the file's header (and may recover a hot journal), so a failed read or a full
        // disk can end it: report them as they are reported for statements, not as `cannotOpen`.
        case SQLITE_IOERR:
            return StrataError(
                .ioError,
                "The operating system failed a read, write or sync of \(path) while opening it (\(detail), "
                    + "extended code \(extended)).",
                sqliteCode: rc & 0xFF, extendedCode: extended)
        case SQLITE_FULL:
            return StrataError(
                .diskFull, "The disk holding \(path) is full (\(detail)). Free some space and try again.",
                sqliteCode: rc & 0xFF, extendedCode: extended)
        default:
            return StrataError(
                .cannotOpen, "Cannot open the database at \(path): \(detail).",
                sqliteCode: rc & 0xFF, extendedCode: extended)
        }
    }

    /// A handle that interrupts this connection's running statement from any thread.
    var interruptHandle: InterruptHandle { InterruptHandle(handle: handle, flag: interruptFlag) }

    // MARK: Statements

    /// A prepared statement from the cache, reset and with its bindings cleared.
    @usableFromInline
    func cachedStatement(_ sql: String) throws(StrataError) -> Statement {
        if isClosed { throw Connection.closedError }
        statementCount &+= 1
        if let index = cache.index(forKey: sql) {
            let statement = cache.values[index]
            statement.reset()
            // The most recently used go last; moving the last one is free.
            if index != cache.count - 1 { moveToEnd(index) }
            return statement
        }
        if cache.count >= Self.cacheCapacity { evictLeastRecentlyUsed() }
        let statement = try Statement(connection: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    private func moveToEnd(_ index: Int) {
        let (sql, statement) = cache.remove(at: index)
        cache[sql] = statement
    }

    /// The prepared statement of a key: the hot path's lookup, by identity instead of by SQL text.
    /// Keyed statements are never evicted (there is a fixed number of keys per stack). The statement
    /// is reset but keeps its last bindings, which clearing would cost on every insert: bind every
    /// parameter.
    func statement(_ key: StatementKey) throws(StrataError) -> Statement {
        statementCount &+= 1
        if let entry = keyed[ObjectIdentifier(key)] {
            entry.statement.resetKeepingBindings()
            return entry.statement
        }
        if isClosed { throw Connection.closedError }
        let statement = try Statement(connection: self, sql: key.sql)
        keyed[ObjectIdentifier(key)] = KeyedStatement(key: key, statement: statement)
        return statement
    }

    /// A keyed statement with its key, held so that no other key can take the key's identity while the
    /// statement is cached (a store context replaced by `addStorage` drops its keys).
    private struct KeyedStatement {
        let key: StatementKey
        let statement: Statement
    }

    /// Finalizes the statements prepared for keys, before the keys go away: a key is known by its
    /// identity, which a later key could take over (a migration step's store context, say).
    func dropKeyedStatements() {
        keyed.removeAll()
    }

    /// The most statements kept prepared. Filters with `IN` lists of many lengths make many SQL texts;
    /// the cache keeps the ones in use and finalizes the rest.
    static var cacheCapacity: Int { 256 }

    /// The number of cached statements.
    var cachedStatementCount: Int { cache.count }

    /// Drops the least recently used quarter of the cache. A statement still in use stays alive until its
    /// user releases it.
    private func evictLeastRecentlyUsed() {
        cache.removeFirst(Self.cacheCapacity / 4)
    }

    /// Resets every statement of the connection that is still active (stepped, neither done nor reset),
    /// so that none holds a read transaction open, and returns how many were.
    @discardableResult
    func resetActiveStatements() -> Int {
        // A closed handle is freed: nothing to reset, and nothing may touch it.
        guard !isClosed else { return 0 }
        var count = 0
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 {
                sqlite3_reset(current)
                count += 1
            }
            statement = sqlite3_next_stmt(handle, current)
        }
        return count
    }

    /// A prepared statement that is not cached (for SQL that runs once).
    func makeStatement(_ sql: String) throws(StrataError) -> Statement {
        if isClosed { throw Connection.closedError }
        statementCount &+= 1
        return try Statement(connection: self, sql: sql)
    }

    /// Runs SQL without parameters and discards any rows. May hold several statements.
    func execute(_ sql: String) throws(StrataError) {
        if isClosed { throw Connection.closedError }
        statementCount &+= 1
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) }
            sqlite3_free(message)
            throw error(rc: rc, sql: sql, message: text)
        }
    }

    /// Runs a keyed statement without parameters to its end (`BEGIN`, `COMMIT`, `ROLLBACK`).
    func run(_ key: StatementKey) throws(StrataError) {
        let statement = try statement(key)
        while try statement.step() {}
    }

    /// Runs a statement with bound values and discards any rows.
    func execute(_ sql: String, _ values: [DatabaseValue]) throws(StrataError) {
        let statement = try cachedStatement(sql)
        try statement.bind(values)
        while try statement.step() {}
    }

    private func pragmaText(_ sql: String) throws(StrataError) -> String {
        let statement = try makeStatement(sql)
        guard try statement.step() else { return "" }
        if case .text(let text) = statement.value(at: 0) { return text }
        return ""
    }

    // The accessors below read nothing once the connection is closed: its handle is freed.

    /// The number of rows the last statement changed.
    var changes: Int { isClosed ? 0 : Int(sqlite3_changes64(handle)) }

    /// The row ID of the last row an `INSERT` added, on any table, in any earlier statement: an upsert
    /// that updated leaves it as it was (see ``clearLastInsertRowID()``).
    var lastInsertRowID: Int64 { isClosed ? 0 : sqlite3_last_insert_rowid(handle) }

    /// Sets ``lastInsertRowID`` to 0 (no row ID SQLite assigns), so that after the next statement it
    /// tells whether that statement inserted a row.
    func clearLastInsertRowID() {
        guard !isClosed else { return }
        sqlite3_set_last_insert_rowid(handle, 0)
    }

    /// Whether a transaction is open.
    var isInTransaction: Bool { !isClosed && sqlite3_get_autocommit(handle) == 0 }
}

@available(*, unavailable)
extension Connection: Sendable {}
