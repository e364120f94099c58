import Foundation

/// The persistent history's tables, and the SQL that records, reads and purges them.
///
/// One row per recorded commit in `strata_history` (its token is an `AUTOINCREMENT` key, so tokens
/// grow across processes and are never reused after a purge); its changes in `strata_history_change`,
/// one row per run of inserted or deleted IDs and per edited object with its changed fields; the
/// values preserved on deletion in `strata_history_value`. The changes and values are keyed by token
/// (`WITHOUT ROWID`), so recording appends to one b-tree each and reading or purging a range of tokens
/// is a range scan.
enum HistoryStore {
    static let transactions = "strata_history"
    static let changes = "strata_history_change"
    static let values = "strata_history_value"
    /// The metadata key of the highest token a purge may have removed.
    static let purgedKey = "history_purged_through"

    enum Kind: Int64 {
        case insert = 1, update = 2, delete = 3
    }

    static let create = """
        CREATE TABLE IF NOT EXISTS \(transactions) (
            token INTEGER PRIMARY KEY AUTOINCREMENT, timestamp REAL NOT NULL, author TEXT, context TEXT);
        CREATE TABLE IF NOT EXISTS \(changes) (
            token INTEGER NOT NULL, seq INTEGER NOT NULL, entity TEXT NOT NULL, kind INTEGER NOT NULL,
            first_id INTEGER NOT NULL, last_id INTEGER NOT NULL, fields TEXT,
            PRIMARY KEY (token, seq)) WITHOUT ROWID;
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

    /// Records a commit's changes inside its transaction and returns its token.
    static func record(
        _ changeSet: ChangeSet, author: String?, context: String?, date: Date, on connection: Connection
    ) throws(StrataError) -> Int64 {
        let head = try connection.cachedStatement(
            "INSERT INTO \(transactions) (timestamp, author, context) VALUES (?, ?, ?)")
        try head.bind(.real(date.timeIntervalSince1970), at: 1)
        try head.bind(author.map(DatabaseValue.text) ?? .null, at: 2)
        try head.bind(context.map(DatabaseValue.text) ?? .null, at: 3)
        while try head.step() {}
        let token = connection.lastInsertRowID
        let change = try connection.cachedStatement(
            "INSERT INTO \(changes) (token, seq, entity, kind, first_id, last_id, fields) VALUES (?, ?, ?, ?, ?, ?, ?)")
        var seq: Int64 = 0
        func row(_ entity: String, _ kind: Kind, _ first: Int64, _ last: Int64, _ fields: String?) throws(StrataError) {
            seq += 1
            change.reset()
            try change.bind(.integer(token), at: 1)
            try change.bind(.integer(seq), at: 2)
            try change.bind(.text(entity), at: 3)
            try change.bind(.integer(kind.rawValue), at: 4)
            try change.bind(.integer(first), at: 5)
            try change.bind(.integer(last), at: 6)
            try change.bind(fields.map(DatabaseValue.text) ?? .null, at: 7)
            while try change.step() {}
        }
        var preserved: [(entity: String, id: Int64, values: [String: DatabaseValue])] = []
        for entity in changeSet.entities.keys.sorted() {
            guard let entityChanges = changeSet.entities[entity], !entityChanges.isEmpty else { continue }
            for run in entityChanges.insertedRanges.ranges {
                try row(entity, .insert, run.lowerBound, run.upperBound - 1, nil)
            }
            for id in entityChanges.updated.keys.sorted() {
                let fields = entityChanges.updated[id, default: []].sorted().joined(separator: ",")
                try row(entity, .update, id, id, fields)
            }
            for run in runs(of: entityChanges.deleted) {
                try row(entity, .delete, run.lowerBound, run.upperBound, nil)
            }
            for id in entityChanges.deletedValues.keys.sorted() {
                preserved.append((entity, id, entityChanges.deletedValues[id, default: [:]]))
            }
        }
        if !preserved.isEmpty {
            let insert = try connection.cachedStatement(
                "INSERT INTO \(values) (token, seq, entity, id, field, value) VALUES (?, ?, ?, ?, ?, ?)")
            seq = 0
            for object in preserved {
                for field in object.values.keys.sorted() {
                    seq += 1
                    insert.reset()
                    try insert.bind([
                        .integer(token), .integer(seq), .text(object.entity), .integer(object.id), .text(field),
                        object.values[field, default: .null],
                    ])
                    while try insert.step() {}
                }
            }
        }
        return token
    }

    /// Sorted IDs as runs of consecutive IDs.
    private static func runs(of ids: Set<Int64>) -> [ClosedRange<Int64>] {
        var result: [ClosedRange<Int64>] = []
        for id in ids.sorted() {
            if let last = result.last, last.upperBound + 1 == id {
                result[result.count - 1] = last.lowerBound...id
            } else {
                result.append(id...id)
            }
        }
        return result
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
        let statement = try connection.cachedStatement("SELECT seq FROM sqlite_sequence WHERE name = '\(transactions)'")
        guard try statement.step(), case .integer(let token) = statement.value(at: 0) else { return nil }
        return token
    }

    /// The highest token a purge may have removed (0 when none ran).
    static func purgedThrough(_ connection: Connection) throws(StrataError) -> Int64 {
        let statement = try connection.cachedStatement(
            "SELECT value FROM \(SchemaSQL.metadataTable) WHERE key = '\(purgedKey)'")
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
        var sql = "SELECT token, timestamp, author, context FROM \(transactions) WHERE token > ?"
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
            sql += " AND EXISTS (SELECT 1 FROM \(changes) c WHERE c.token = \(transactions).token"
                + " AND c.entity IN (\(placeholders(entities.count))))"
            bindings += entities.sorted().map(DatabaseValue.text)
        }
        sql += " ORDER BY token"
        if let limit = filter.limit {
            sql += " LIMIT ?"
            bindings.append(.integer(Int64(max(0, limit))))
        }
        let heads = try connection.cachedStatement(sql)
        try heads.bind(bindings)
        var found: [(token: Int64, date: Date, author: String?, context: String?)] = []
        while try heads.step() {
            guard case .integer(let token) = heads.value(at: 0) else { continue }
            let timestamp: Double
            switch heads.value(at: 1) {
            case .real(let value): timestamp = value
            case .integer(let value): timestamp = Double(value)
            default: timestamp = 0
            }
            found.append((token, Date(timeIntervalSince1970: timestamp), heads.value(at: 2).text, heads.value(at: 3).text))
        }
        guard let first = found.first?.token, let last = found.last?.token else { return [] }
        var changeSets = try readChanges(from: first, through: last, entities: filter.entities, on: connection)
        try readValues(from: first, through: last, into: &changeSets, on: connection)
        return found.map { head in
            HistoryTransaction(
                token: HistoryToken(rawValue: head.token), date: head.date, author: head.author,
                contextName: head.context, changes: changeSets[head.token] ?? ChangeSet())
        }
    }

    private static func readChanges(
        from first: Int64, through last: Int64, entities: Set<String>?, on connection: Connection
    ) throws(StrataError) -> [Int64: ChangeSet] {
        let statement = try connection.cachedStatement(
            "SELECT token, entity, kind, first_id, last_id, fields FROM \(changes) WHERE token BETWEEN ? AND ? ORDER BY token, seq")
        try statement.bind([.integer(first), .integer(last)])
        var result: [Int64: ChangeSet] = [:]
        while try statement.step() {
            guard case .integer(let token) = statement.value(at: 0), let entity = statement.value(at: 1).text,
                case .integer(let kindValue) = statement.value(at: 2), let kind = Kind(rawValue: kindValue),
                case .integer(let firstID) = statement.value(at: 3), case .integer(let lastID) = statement.value(at: 4),
                firstID <= lastID
            else { continue }
            if let entities, !entities.contains(entity) { continue }
            switch kind {
            case .insert:
                result[token, default: ChangeSet()].recordInserts(entity: entity, ids: firstID...lastID)
            case .update:
                let fields = Set((statement.value(at: 5).text ?? "").split(separator: ",").map(String.init))
                result[token, default: ChangeSet()].recordUpdate(entity: entity, id: firstID, fields: fields)
            case .delete:
                for id in firstID...lastID { result[token, default: ChangeSet()].recordDelete(entity: entity, id: id) }
            }
        }
        return result
    }

    private static func readValues(
        from first: Int64, through last: Int64, into changeSets: inout [Int64: ChangeSet], on connection: Connection
    ) throws(StrataError) {
        let statement = try connection.cachedStatement(
            "SELECT token, entity, id, field, value FROM \(values) WHERE token BETWEEN ? AND ? ORDER BY token, seq")
        try statement.bind([.integer(first), .integer(last)])
        while try statement.step() {
            guard case .integer(let token) = statement.value(at: 0), let entity = statement.value(at: 1).text,
                case .integer(let id) = statement.value(at: 2), let field = statement.value(at: 3).text,
                changeSets[token]?.entities[entity]?.deleted.contains(id) == true
            else { continue }
            changeSets[token]?.entities[entity]?.deletedValues[id, default: [:]][field] = statement.value(at: 4)
        }
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    // MARK: Purging

    /// Deletes the transactions before `token` and returns how many were deleted.
    static func purge(before token: Int64, on connection: Connection) throws(StrataError) -> Int {
        try connection.execute("DELETE FROM \(values) WHERE token < ?", [.integer(token)])
        try connection.execute("DELETE FROM \(changes) WHERE token < ?", [.integer(token)])
        try connection.execute("DELETE FROM \(transactions) WHERE token < ?", [.integer(token)])
        let deleted = connection.changes
        let purged = max(try purgedThrough(connection), token - 1)
        try connection.execute(
            "INSERT OR REPLACE INTO \(SchemaSQL.metadataTable) (key, value) VALUES ('\(purgedKey)', ?)", [.text(String(purged))])
        return deleted
    }

    /// The first token after the transactions committed before `date` (what ``purge(before:on:)`` takes
    /// to remove them), or `nil` when none was.
    static func firstToken(notBefore date: Date, on connection: Connection) throws(StrataError) -> Int64? {
        let statement = try connection.cachedStatement("SELECT max(token) FROM \(transactions) WHERE timestamp < ?")
        try statement.bind([.real(date.timeIntervalSince1970)])
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
