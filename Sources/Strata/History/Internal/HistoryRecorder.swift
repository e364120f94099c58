import Foundation

/// What the writer of a stack with persistent history needs: the context name it records, the fields
/// deletions preserve, and which recorded transactions it has seen (its own, and others' it read).
///
/// The writer owns it and uses it on its own thread only.
struct HistoryRecorder {
    let contextName: String?
    let preserved: [String: PreservedFields]
    /// Every token up to this one is known: this stack's own, or read as another's.
    private var scanned: Int64
    /// This stack's tokens above `scanned` (others committed in between, not read yet).
    private var own: Set<Int64> = []

    /// Sets up recording on the writer's connection: creates the tables if needed.
    init(options: HistoryOptions?, schema: Schema, connection: Connection) throws(StrataError) {
        contextName = options?.contextName
        let dialect = SQLiteDialect()
        var preserved: [String: PreservedFields] = [:]
        for (entity, properties) in try (options ?? HistoryOptions()).preservedProperties(in: schema) {
            guard let description = schema.entities.first(where: { $0.name == entity }) else { continue }
            let columns = properties.compactMap { property in description.fields.first { $0.property == property }?.column }
            preserved[entity] = PreservedFields(columns: columns.map(dialect.quote).joined(separator: ", "), properties: properties)
        }
        self.preserved = preserved
        try HistoryStore.prepare(connection)
        scanned = try HistoryStore.currentToken(connection) ?? 0
    }

    /// Records a commit's changes in its transaction (before `COMMIT`); returns the token.
    func record(_ changes: ChangeSet, on connection: Connection) throws(StrataError) -> Int64 {
        try HistoryStore.record(
            changes, author: TransactionAuthor.current, context: contextName, date: Date(), on: connection)
    }

    /// Notes a token this stack committed.
    mutating func committed(_ token: Int64) {
        if token == scanned + 1 {
            scanned = token
        } else if token > scanned {
            own.insert(token)
        }
    }

    /// What other connections recorded since the last scan, as one change set (`nil` when nothing);
    /// read in one read transaction when the connection has none open.
    mutating func scanOthers(on connection: Connection) throws(StrataError) -> ChangeSet? {
        let ownTransaction = !connection.isInTransaction
        if ownTransaction { try connection.run(.beginDeferred) }
        defer { if ownTransaction { try? connection.run(.commit) } }
        let transactions: [HistoryTransaction]
        do {
            transactions = try HistoryStore.read(HistoryStore.Filter(after: scanned), on: connection)
        } catch where error.code == .historyExpired {
            // Another process purged what was not read yet: anything may have changed.
            scanned = try HistoryStore.currentToken(connection) ?? scanned
            own = []
            return .unknownExternal
        }
        var merged: ChangeSet?
        for transaction in transactions where !own.contains(transaction.token.rawValue) {
            if merged == nil { merged = ChangeSet() }
            merged?.merge(transaction.changes)
        }
        merged?.isExternal = true
        if let last = transactions.last?.token.rawValue {
            scanned = last
            own = own.filter { $0 > last }
        }
        return merged
    }
}
