import Foundation

/// The persistent history's tables, and the SQL that records, reads and purges them.
///
/// One row per recorded commit in `strata_history`, with its changes as text (``HistoryCodec``), so a
/// commit adds one row to one table (the cost a small transaction pays is one more page written). Its
/// token is one more than the largest recorded or purged, so tokens grow across processes and a purge
/// never lets one be used again. Values preserved on deletion go to `strata_history_value`, keyed by
/// token (`WITHOUT ROWID`), only when some field is preserved.
enum HistoryStore {
    static let transactions = "strata_history"
    static let values = "strata_history_value"
    /// The metadata key of the highest token a purge may have removed.
    static let purgedKey = "history_purged_through"

    static let create = """
        CREATE TABLE IF NOT EXISTS \(transactions) (
            token INTEGER PRIMARY KEY, timestamp REAL NOT NULL, author TEXT, context TEXT,
            entities TEXT NOT NULL, changes TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS \(values) (
            token INTEGER NOT NULL, seq INTEGER NOT NULL, entity TEXT NOT NULL, id INTEGER NOT NULL,
            field TEXT NOT NULL, value, PRIMARY KEY (token, seq)) WITHOUT ROWID;
        """

    /// Whether the store has history tables (some stack turned history on for it).
    static func exists(_ connection: Connection) throws(StrataError) -> Bool {
        let statement = try connection.makeStatement(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '\(transactions)'")
        return try statement.step()
    }

    /// Creates the tables if they are missing.
    static func prepare(_ connection: Connection) throws(StrataError) {
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

    /// The largest token recorded or purged (0 before the first).
    private static let lastToken = "max(coalesce((SELECT max(token) FROM \(transactions)), 0), "
        + "coalesce((SELECT CAST(value AS INTEGER) FROM \(SchemaSQL.metadataTable) WHERE key = '\(purgedKey)'), 0))"

    // Keyed statements: found by identity on every commit, not by hashing their text.
    private static let insertTransaction = StatementKey(
        "INSERT INTO \(transactions) (token, timestamp, author, context, entities, changes) "
            + "VALUES (\(lastToken) + 1, ?, ?, ?, ?, ?)")
    private static let insertValue = StatementKey(
        "INSERT INTO \(values) (token, seq, entity, id, field, value) VALUES (?, ?, ?, ?, ?, ?)")

    /// Records a commit's changes inside its transaction and returns its token.
    static func record(
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
    static func currentToken(_ connection: Connection) throws(StrataError) -> Int64? {
        let statement = try connection.cachedStatement("SELECT \(lastToken)")
        // Reset at once: a statement left on a row would hold a read transaction open.
        defer { statement.reset() }
        guard try statement.step(), case .integer(let token) = statement.value(at: 0), token > 0 else { return nil }
        return token
    }

    /// The highest token a purge may have removed (0 when none ran).
    static func purgedThrough(_ connection: Connection) throws(StrataError) -> Int64 {
        let statement = try connection.cachedStatement(
            "SELECT value FROM \(SchemaSQL.metadataTable) WHERE key = '\(purgedKey)'")
        defer { statement.reset() }
        guard try statement.step(), case .text(let text) = statement.value(at: 0) else { return 0 }
        return Int64(text) ?? 0
    }

    /// The recorded transactions that pass the filter, in token order.
    ///
    /// - Throws: ``StrataError/Code/historyExpired`` when a purge removed transactions after the filter's
    ///   token: reading from it would silently miss them.
    static func read(_ filter: Filter, on connection: Connection) throws(StrataError) -> [HistoryTransaction] {
        if let after = filter.after {
            let purged = try purgedThrough(connection)
            if after < purged {
                throw StrataError(
                    .historyExpired,
                    "The history after token \(after) was purged (through token \(purged)), so changes made since it "
                        + "can no longer be read. Fetch the current state again, then follow the history from "
                        + "currentHistoryToken().")
            }
        }
        var sql = "SELECT token, timestamp, author, context, changes FROM \(transactions) WHERE token > ?"
        var bindings: [DatabaseValue] = [.integer(filter.after ?? 0)]
        if let authors = filter.authors {
            sql += " AND author IN (\(placeholders(authors.count)))"
            bindings += authors.sorted().map(DatabaseValue.text)
        }
        if !filter.excludingAuthors.isEmpty {
            sql += " AND (author IS NULL OR author NOT IN (\(placeholders(filter.excludingAuthors.count))))"
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
                    token: HistoryToken(rawValue: token), date: Date(timeIntervalSince1970: timestamp),
                    author: statement.value(at: 2).text, contextName: statement.value(at: 3).text, changes: changes))
        }
        if anyPreserved, let first = found.first?.token.rawValue, let last = found.last?.token.rawValue {
            try readValues(from: first, through: last, into: &found, on: connection)
        }
        return found
    }

    /// Adds the preserved values of deleted objects to the transactions read.
    private static func readValues(
        from first: Int64, through last: Int64, into transactions: inout [HistoryTransaction], on connection: Connection
    ) throws(StrataError) {
        let statement = try connection.cachedStatement(
            "SELECT token, entity, id, field, value FROM \(values) WHERE token BETWEEN ? AND ? ORDER BY token, seq")
        try statement.bind([.integer(first), .integer(last)])
        var positions: [Int64: Int] = [:]
        for (position, transaction) in transactions.enumerated() { positions[transaction.token.rawValue] = position }
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
    static func purge(before token: Int64, on connection: Connection) throws(StrataError) -> Int {
        // The marker never passes the last token, so a purge "before" a token not yet given out leaves
        // the next tokens as they would have been.
        let last = try currentToken(connection) ?? 0
        try connection.execute("DELETE FROM \(values) WHERE token < ?", [.integer(token)])
        try connection.execute("DELETE FROM \(transactions) WHERE token < ?", [.integer(token)])
        let deleted = connection.changes
        let purged = max(try purgedThrough(connection), min(token - 1, last))
        try connection.execute(
            "INSERT OR REPLACE INTO \(SchemaSQL.metadataTable) (key, value) VALUES ('\(purgedKey)', ?)", [.text(String(purged))])
        return deleted
    }

    /// The first token after the transactions committed before `date` (what ``purge(before:on:)`` takes
    /// to remove them), or `nil` when none was.
    static func firstToken(notBefore date: Date, on connection: Connection) throws(StrataError) -> Int64? {
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
