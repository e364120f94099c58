import Foundation

/// What the writer of a stack with persistent history needs: the context name it records, the fields
/// deletions preserve, and for each store that keeps a history, which recorded transactions it has
/// seen (its own, and others' it read).
///
/// The writer owns it and uses it on its own thread only.
struct HistoryRecorder {
    let contextName: String?
    let preserved: [String: PreservedFields]
    /// Whether this stack turned history on: every store it adds keeps one too.
    private let turnedOn: Bool
    /// Per store, by index on the writer's connection (0 the main store, *n* the *n*th attached): its
    /// history, or `nil` when it keeps none.
    private var stores: [StoreHistory?] = []

    /// One store's history as the writer follows it.
    private struct StoreHistory {
        let tables: HistoryStore
        let configuration: String
        /// Every token up to this one is known: this stack's own, or read as another's.
        var scanned: Int64
        /// This stack's tokens above `scanned` (others committed in between, not read yet).
        var own: Set<Int64> = []
        /// Whether `own` outgrew ``ownLimit`` and was dropped: the next scan cannot tell this stack's
        /// commits from others' and reports unknown changes.
        var ownDropped = false
    }

    /// The most own tokens kept per store between two scans. Scans run only while something observes
    /// the stack; without an observer, a stack that commits after another connection did would keep
    /// every token of its own forever, and the first scan would then read all of that history at once.
    static let ownLimit = 4_096

    /// The own tokens kept for the next scan, in every store (for tests).
    var ownTokenCount: Int { stores.reduce(0) { $0 + ($1?.own.count ?? 0) } }

    /// A recorder for the stores of `store` on the writer's connection (their tables created when the
    /// stack turns history on), or `nil` when none of them keeps a history.
    init?(options: HistoryOptions?, store: StoreContext, connection: Connection) throws(StrataError) {
        contextName = options?.contextName
        turnedOn = options != nil
        preserved = try Self.preservedFields(options ?? HistoryOptions(), schema: store.schema)
        for one in store.allStores { try add(one, connection: connection) }
        guard stores.contains(where: { $0 != nil }) else { return nil }
    }

    /// A recorder for a stack of several stores that found, when a transaction first wrote to the store
    /// at `index`, that another connection turned that store's history on: it follows that store alone
    /// (``follow(_:of:connection:)`` adds the others as it finds them). `nil` when the store keeps no
    /// history. Looks at no other store: reading a store before writing to it would take a read
    /// snapshot of it, which could keep the transaction from writing there later.
    init?(following index: Int, of store: StoreContext, connection: Connection) throws(StrataError) {
        contextName = nil
        turnedOn = false
        preserved = try Self.preservedFields(HistoryOptions(), schema: store.schema)
        guard try follow(index, of: store, connection: connection) else { return nil }
    }

    private static func preservedFields(_ options: HistoryOptions, schema: Schema) throws(StrataError) -> [String: PreservedFields] {
        let dialect = SQLiteDialect()
        var preserved: [String: PreservedFields] = [:]
        for (entity, properties) in try options.preservedProperties(in: schema) {
            guard let description = schema.entities.first(where: { $0.name == entity }) else { continue }
            let columns = properties.compactMap { property in description.fields.first { $0.property == property }?.column }
            preserved[entity] = PreservedFields(columns: columns.map(dialect.quote).joined(separator: ", "), properties: properties)
        }
        return preserved
    }

    /// Follows the history of the store at `index` (see `Connection.storeIndex(_:)`) from now on, when
    /// it keeps one that the recorder does not follow yet; returns whether it does now.
    @discardableResult
    mutating func follow(_ index: Int, of store: StoreContext, connection: Connection) throws(StrataError) -> Bool {
        let all = store.allStores
        guard index < all.count, !recordsStore(index) else { return false }
        let tables = HistoryStore(schemaName: all[index].builder.schemaName)
        guard try tables.exists(connection) else { return false }
        while stores.count < all.count { stores.append(nil) }
        stores[index] = StoreHistory(
            tables: tables, configuration: all[index].configuration, scanned: try tables.currentToken(connection) ?? 0)
        return true
    }

    /// Follows the history of a store added to the stack (attached as the connection's last store):
    /// created when this stack turned history on, followed when another stack did.
    mutating func add(_ store: StoreContext, connection: Connection) throws(StrataError) {
        let tables = HistoryStore(schemaName: store.builder.schemaName)
        if turnedOn {
            try tables.prepare(connection)
        } else if try !tables.exists(connection) {
            stores.append(nil)
            return
        }
        stores.append(StoreHistory(
            tables: tables, configuration: store.configuration, scanned: try tables.currentToken(connection) ?? 0))
    }

    /// Whether the store at `index` keeps a history.
    func recordsStore(_ index: Int) -> Bool {
        index < stores.count && stores[index] != nil
    }

    /// Whether more than one store keeps a history: a transaction's changes are then recorded by store.
    var isPerStore: Bool { stores.count > 1 }

    /// Records a commit's changes in its transaction (before `COMMIT`): in a stack of one store, all of
    /// `changes`; in one of several, each store's part (`byStore`, by store index) in that store's
    /// history. Returns the tokens.
    func record(_ changes: ChangeSet, byStore: [ChangeSet], on connection: Connection) throws(StrataError) -> Recorded {
        let author = TransactionAuthor.current
        let date = Date()
        if stores.count == 1 {
            guard let main = stores[0] else { return .several([]) }
            return .main(try main.tables.record(changes, author: author, context: contextName, date: date, on: connection))
        }
        var tokens: [(Int, Int64)] = []
        for (index, part) in byStore.enumerated() where !part.isEmpty {
            guard index < stores.count, let store = stores[index] else { continue }
            tokens.append((index, try store.tables.record(part, author: author, context: contextName, date: date, on: connection)))
        }
        return .several(tokens)
    }

    /// The tokens a commit recorded: the main store's alone (a stack of one store: no array to allocate
    /// per commit), or by store index.
    enum Recorded {
        case main(Int64)
        case several([(Int, Int64)])
    }

    /// Notes the tokens this stack committed.
    mutating func committed(_ recorded: Recorded) {
        let tokens: [(Int, Int64)]
        switch recorded {
        case .main(let token): return committed(token, store: 0)
        case .several(let several): tokens = several
        }
        for (index, token) in tokens { committed(token, store: index) }
    }

    private mutating func committed(_ token: Int64, store index: Int) {
        // In place: a copy taken out and written back would copy the set of own tokens.
        guard let scanned = stores[index]?.scanned, stores[index]?.ownDropped == false else { return }
        if token == scanned + 1 {
            stores[index]?.scanned = token
        } else if token > scanned {
            if stores[index]?.own.count ?? 0 >= Self.ownLimit {
                stores[index]?.own = []
                stores[index]?.ownDropped = true
            } else {
                stores[index]?.own.insert(token)
            }
        }
    }

    /// What other connections recorded since the last scan in the stores they changed (`changedStores`,
    /// by index), as one change set; read in one read transaction when the connection has none open.
    /// A changed store that keeps no history, or whose history records no other connection's commit,
    /// makes it unknown (anything may have changed).
    mutating func scanOthers(changedStores: [Int], on connection: Connection) throws(StrataError) -> ChangeSet {
        if changedStores.contains(where: { !recordsStore($0) }) { return .unknownExternal }
        let ownTransaction = !connection.isInTransaction
        if ownTransaction { try connection.run(.beginDeferred) }
        defer { if ownTransaction { try? connection.run(.commit) } }
        var merged: ChangeSet?
        for index in changedStores {
            guard var store = stores[index] else { continue }
            defer { stores[index] = store }
            if store.ownDropped {
                // Too many own commits since the last scan to tell apart: anything may have changed, and
                // the next scan starts from here.
                store.scanned = try store.tables.currentToken(connection) ?? store.scanned
                store.own = []
                store.ownDropped = false
                return .unknownExternal
            }
            let transactions: [HistoryTransaction]
            do {
                transactions = try store.tables.read(
                    HistoryStore.Filter(after: store.scanned), configuration: store.configuration, on: connection)
            } catch where error.code == .historyExpired {
                // Another process purged what was not read yet: anything may have changed.
                store.scanned = try store.tables.currentToken(connection) ?? store.scanned
                store.own = []
                return .unknownExternal
            }
            var foundOthers = false
            for transaction in transactions where !store.own.contains(transaction.storePosition) {
                if merged == nil { merged = ChangeSet() }
                merged?.mergeKeepingEveryChange(transaction.changes)
                foundOthers = true
            }
            // The store changed, yet no commit of another connection is recorded (a purge, or a
            // connection that is not Strata's): anything may have changed.
            if !foundOthers { return .unknownExternal }
            if let last = transactions.last?.storePosition {
                store.scanned = last
                store.own = store.own.filter { $0 > last }
            }
        }
        var result = merged ?? .unknownExternal
        result.isExternal = true
        return result
    }
}
