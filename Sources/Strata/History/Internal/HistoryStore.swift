import Foundation

/// One store's persistent history: its tables, and the SQL that records, reads and purges them.
///
/// One row per recorded commit in `strata_history`, with its changes as text (``HistoryCodec``), so a
/// commit adds one row to one table (the cost a small transaction pays is one more page written). Its
/// token is one more than the largest recorded or purged, so tokens grow across processes and a purge
/// never lets one be used again. Values preserved on deletion go to `strata_history_value`, keyed by
/// token (`WITHOUT ROWID`), only when some field is preserved.
///
/// Each store of a stack keeps the history of its own changes in its own file, named here with the
/// store's SQLite schema name (`main`, or the name a stack of several stores attaches it as): a
/// store's changes and their history commit together, and any stack that opens the file reads it.
struct HistoryStore: Sendable {
    static let transactionsTable = "strata_history"
    static let valuesTable = "strata_history_value"
    /// The metadata key of the highest token a purge may have removed.
    static let purgedKey = "history_purged_through"

    /// The store's SQLite schema name on the connection.
    let schemaName: String
    /// The tables' names, qualified with the schema name.
    let transactions: String
    let values: String
    let metadata: String
    /// The largest token recorded or purged (0 before the first).
    private let lastToken: String
    // Keyed statements: found by identity on every commit, not by hashing their text.
    private let insertTransaction: StatementKey
    private let insertValue: StatementKey

    /// The history of the store attached as `schemaName` (`nil` or `"main"`: the connection's main
    /// database).
    init(schemaName: String? = nil) {
        let schemaName = schemaName ?? "main"
        self.schemaName = schemaName
        let schema = "\"\(schemaName)\"."
        transactions = schema + Self.transactionsTable
        values = schema + Self.valuesTable
        metadata = schema + SchemaSQL.metadataTable
        lastToken = "max(coalesce((SELECT max(token) FROM \(transactions)), 0), "
            + "coalesce((SELECT CAST(value AS INTEGER) FROM \(metadata) WHERE key = '\(Self.purgedKey)'), 0))"
        insertTransaction = StatementKey(
            "INSERT INTO \(transactions) (token, timestamp, author, context, entities, changes) "
                + "VALUES (\(lastToken) + 1, ?, ?, ?, ?, ?)")
        insertValue = StatementKey(
            "INSERT INTO \(values) (token, seq, entity, id, field, value) VALUES (?, ?, ?, ?, ?, ?)")
    }

    /// Whether the store has history tables (some stack turned history on for it).
    func exists(_ connection: Connection) throws(StrataError) -> Bool {
        let statement = try connection.cachedStatement(
            "SELECT 1 FROM \"\(schemaName)\".sqlite_schema WHERE type = 'table' AND name = '\(Self.transactionsTable)'")
        defer { statement.reset() }
        return try statement.step()
    }

    /// Creates the tables if they are missing.
    func prepare(_ connection: Connection) throws(StrataError) {
        let create = """
            CREATE TABLE IF NOT EXISTS \(transactions) (
                token INTEGER PRIMARY KEY, timestamp REAL NOT NULL, author TEXT, context TEXT,
                entities TEXT NOT NULL, changes TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS \(values) (
                token INTEGER NOT NULL, seq INTEGER NOT NULL, entity TEXT NOT NULL, id INTEGER NOT NULL,
                field TEXT NOT NULL, value, PRIMARY KEY (token, seq)) WITHOUT ROWID;
            """
        try connection.execute("BEGIN IMMEDIATE")
        do throws(StrataError) {
            try connection.execute(create)
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    // MARK: Recording

    /// Records a commit's changes (to this store) inside its transaction and returns its token.
    func record(
        _ changeSet: ChangeSet, author: String?, context: String?, date: Date, on connection: Connection
    ) throws(StrataError) -> Int64 {
        let (text, entities) = HistoryCodec.encode(changeSet)
        let head = try connection.statement(insertTransaction)
        try head.bind(.real(date.timeIntervalSince1970), at: 1)
        try head.bind(author.map(DatabaseValue.text) ?? .null, at: 2)
        try head.bind(context.map(DatabaseValue.text) ?? .null, at: 3)
        try head.bind(.text(entities), at: 4)
        try head.bind(.text(text), at: 5)
        while try head.step() {}
        let token = connection.lastInsertRowID
        var seq: Int64 = 0
        for entity in changeSet.entities.keys.sorted() {
            guard let deletedValues = changeSet.entities[entity]?.deletedValues, !deletedValues.isEmpty else { continue }
            let insert = try connection.statement(insertValue)
            for id in deletedValues.keys.sorted() {
                let values = deletedValues[id, default: [:]]
                for field in values.keys.sorted() {
                    seq += 1
                    insert.reset()
                    try insert.bind([
                        .integer(token), .integer(seq), .text(entity), .integer(id), .text(field), values[field, default: .null],
                    ])
                    while try insert.step() {}
                }
            }
        }
        return token
    }

    // MARK: Reading

    /// What to read: transactions after a token, by author and by entity.
    struct Filter: Sendable {
        var after: Int64?
        var authors: Set<String>?
        var excludingAuthors: Set<String> = []
        var entities: Set<String>?
        var limit: Int?
    }

    /// The token of the last recorded transaction (even if purged since), or `nil` before the first.
    func currentToken(_ connection: Connection) throws(StrataError) -> Int64? {
        let statement = try connection.cachedStatement("SELECT \(lastToken)")
        // Reset at once: a statement left on a row would hold a read transaction open.
        defer { statement.reset() }
        guard try statement.step(), case .integer(let token) = statement.value(at: 0), token > 0 else { return nil }
        return token
    }

    /// The highest token a purge may have removed (0 when none ran).
    func purgedThrough(_ connection: Connection) throws(StrataError) -> Int64 {
        let statement = try connection.cachedStatement(
            "SELECT value FROM \(metadata) WHERE key = '\(Self.purgedKey)'")
        defer { statement.reset() }
        guard try statement.step(), case .text(let text) = statement.value(at: 0) else { return 0 }
        return Int64(text) ?? 0
    }

    /// The recorded transactions that pass the filter, in token order.
    ///
    /// - Throws: ``StrataError/Code/historyExpired`` when a purge removed transactions after the filter's
    ///   token: reading from it would silently miss them.
    ///
    /// Each transaction's token names this store alone (`configuration` its key): a reader of several
    /// stores merges them (``merge(_:after:limit:)``).
    func read(
        _ filter: Filter, configuration: String, tag: UInt32 = 0, on connection: Connection
    ) throws(StrataError) -> [HistoryTransaction] {
        if let after = filter.after {
            let purged = try purgedThrough(connection)
            if after < purged {
                let store = configuration.isEmpty ? "" : " of the store of configuration \(configuration)"
                throw StrataError(
                    .historyExpired,
                    "The history\(store) after token \(after) was purged (through token \(purged)), so changes made since it "
                        + "can no longer be read. Fetch the current state again, then follow the history from "
                        + "currentHistoryToken().")
            }
        }
        var sql = "SELECT token, timestamp, author, context, changes FROM \(transactions) WHERE token > ?"
        var bindings: [DatabaseValue] = [.integer(filter.after ?? 0)]
        if let authors = filter.authors {
            sql += " AND author IN (\(Self.placeholders(authors.count)))"
            bindings += authors.sorted().map(DatabaseValue.text)
        }
        if !filter.excludingAuthors.isEmpty {
            sql += " AND (author IS NULL OR author NOT IN (\(Self.placeholders(filter.excludingAuthors.count))))"
            bindings += filter.excludingAuthors.sorted().map(DatabaseValue.text)
        }
        if let entities = filter.entities {
            let tests = Array(repeating: "instr(entities, ?) > 0", count: max(1, entities.count))
            sql += " AND (" + (entities.isEmpty ? "0" : tests.joined(separator: " OR ")) + ")"
            bindings += entities.sorted().map { .text(HistoryCodec.needle($0)) }
        }
        sql += " ORDER BY token"
        if let limit = filter.limit {
            sql += " LIMIT ?"
            bindings.append(.integer(Int64(max(0, limit))))
        }
        let statement = try connection.cachedStatement(sql)
        try statement.bind(bindings)
        var found: [HistoryTransaction] = []
        var anyPreserved = false
        while try statement.step() {
            guard case .integer(let token) = statement.value(at: 0) else { continue }
            let timestamp: Double
            switch statement.value(at: 1) {
            case .real(let value): timestamp = value
            case .integer(let value): timestamp = Double(value)
            default: timestamp = 0
            }
            let changes = HistoryCodec.decode(statement.value(at: 4).text ?? "", only: filter.entities)
            anyPreserved = anyPreserved || changes.entities.values.contains { !$0.deleted.isEmpty }
            found.append(
                HistoryTransaction(
                    token: HistoryToken(positions: [configuration: token], storeTags: [configuration: tag]),
                    configuration: configuration, storeTag: tag, storePosition: token, date: Date(timeIntervalSince1970: timestamp),
                    author: statement.value(at: 2).text, contextName: statement.value(at: 3).text, changes: changes))
        }
        if anyPreserved, let first = found.first?.storePosition, let last = found.last?.storePosition {
            try readValues(from: first, through: last, into: &found, on: connection)
        }
        return found
    }

    /// The transactions read from each store (each list in its store's order), merged into one list by
    /// date (a store's own order kept), at most `limit` long, each with the token of the positions
    /// reached in every store once it is read: the token a consumer resumes after.
    static func merge(_ perStore: [[HistoryTransaction]], after start: HistoryToken?, limit: Int?) -> [HistoryTransaction] {
        // In a stack of one store, a token names that store alone: as read.
        guard perStore.count > 1 else { return perStore.first ?? [] }
        var reached = start ?? HistoryToken(positions: [:])
        let total = min(perStore.reduce(0) { $0 + $1.count }, limit.map { max(0, $0) } ?? .max)
        var next = Array(repeating: 0, count: perStore.count)
        var merged: [HistoryTransaction] = []
        merged.reserveCapacity(total)
        while merged.count < total {
            // The store whose next transaction is the oldest (the first store on a tie).
            var pick = -1
            for store in perStore.indices where next[store] < perStore[store].count {
                if pick < 0 || perStore[store][next[store]].date < perStore[pick][next[pick]].date { pick = store }
            }
            var transaction = perStore[pick][next[pick]]
            next[pick] += 1
            reached = reached.advanced(in: transaction.storeConfiguration, tag: transaction.storeTag, to: transaction.storePosition)
            transaction.token = reached
            merged.append(transaction)
        }
        return merged
    }

    /// Adds the preserved values of deleted objects to the transactions read.
    private func readValues(
        from first: Int64, through last: Int64, into transactions: inout [HistoryTransaction], on connection: Connection
    ) throws(StrataError) {
        let statement = try connection.cachedStatement(
            "SELECT token, entity, id, field, value FROM \(values) WHERE token BETWEEN ? AND ? ORDER BY token, seq")
        try statement.bind([.integer(first), .integer(last)])
        var positions: [Int64: Int] = [:]
        for (position, transaction) in transactions.enumerated() { positions[transaction.storePosition] = position }
        while try statement.step() {
            guard case .integer(let token) = statement.value(at: 0), let position = positions[token],
                let entity = statement.value(at: 1).text, case .integer(let id) = statement.value(at: 2),
                let field = statement.value(at: 3).text,
                transactions[position].changes.entities[entity]?.deleted.contains(id) == true
            else { continue }
            transactions[position].changes.entities[entity]?.deletedValues[id, default: [:]][field] = statement.value(at: 4)
        }
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    // MARK: Purging

    /// Deletes the transactions before `token` and returns how many were deleted.
    func purge(before token: Int64, on connection: Connection) throws(StrataError) -> Int {
        // The marker never passes the last token, so a purge "before" a token not yet given out leaves
        // the next tokens as they would have been.
        let last = try currentToken(connection) ?? 0
        try connection.execute("DELETE FROM \(values) WHERE token < ?", [.integer(token)])
        try connection.execute("DELETE FROM \(transactions) WHERE token < ?", [.integer(token)])
        let deleted = connection.changes
        let purged = max(try purgedThrough(connection), min(token - 1, last))
        try connection.execute(
            "INSERT OR REPLACE INTO \(metadata) (key, value) VALUES ('\(Self.purgedKey)', ?)", [.text(String(purged))])
        return deleted
    }

    /// The first token after the transactions committed before `date` (what ``purge(before:on:)`` takes
    /// to remove them), or `nil` when none was.
    func firstToken(notBefore date: Date, on connection: Connection) throws(StrataError) -> Int64? {
        let statement = try connection.cachedStatement("SELECT max(token) FROM \(transactions) WHERE timestamp < ?")
        try statement.bind([.real(date.timeIntervalSince1970)])
        defer { statement.reset() }
        guard try statement.step(), case .integer(let token) = statement.value(at: 0) else { return nil }
        return token + 1
    }
}

extension DatabaseValue {
    /// The text, or `nil` for any other storage class.
    fileprivate var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }
}
