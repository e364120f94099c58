public import Foundation

extension DataStack {
    /// Runs a transaction (see ``perform(_:)``) recorded in the persistent history with this author,
    /// whatever ``TransactionAuthor/current`` says.
    ///
    /// ```swift
    /// try await stack.perform(author: "importer") { tx in try tx.create(Into<Person>()) { $0.name = "Ada" } }
    /// ```
    @discardableResult
    public func perform<T: Sendable>(author: String?, _ body: @Sendable (Transaction) throws -> T) async throws -> T {
        try await TransactionAuthor.$current.withValue(author) {
            try await writer.perform(body)
        }
    }

    /// Whether the store keeps a persistent history: this stack turned it on
    /// (``Configuration/history``), or another stack did for the same file.
    public var recordsHistory: Bool { writer.recordsHistory }

    /// The recorded transactions after `token` (from the oldest kept when `nil`), in token order; in a
    /// stack of several stores, merged across stores by date.
    ///
    /// ```swift
    /// let changes = try await stack.history(after: savedToken, excludingAuthors: ["sync"])
    /// ```
    /// - Parameters:
    ///   - token: The last transaction already processed; `nil` for the whole history still kept.
    ///   - authors: Only transactions by these authors; `nil` for any author.
    ///   - excludingAuthors: No transactions by these authors (a transaction without author is kept).
    ///   - entities: Only transactions that changed one of these entities, and only their changes to
    ///     them; `nil` for every entity.
    ///   - limit: At most this many transactions (the oldest first); `nil` for all.
    /// - Throws: ``StrataError/Code/historyUnavailable`` when the store keeps no history;
    ///   ``StrataError/Code/historyExpired`` when history after `token` was purged (the changes since it
    ///   can no longer be read in full); ``StrataError/Code/invalidArgument`` when no position of `token`
    ///   is keyed by a store of this stack (one keyed by a configuration this stack does not have), or
    ///   `limit` is negative. A token of another file under a key of this stack reads that store from
    ///   its start, as one of a store made anew at the same path does (see ``HistoryToken``).
    public func history(
        after token: HistoryToken? = nil, authors: Set<String>? = nil, excludingAuthors: Set<String> = [],
        entities: [any Entity.Type]? = nil, limit: Int? = nil
    ) async throws -> [HistoryTransaction] {
        try await checkHistory()
        if let limit, limit < 0 {
            throw StrataError(.invalidArgument, "limit must not be negative (it was \(limit)); pass nil for no limit.")
        }
        let stores = store.allStores
        let writerTag = writer.storeTag
        if let token { try check(token, stores: stores, writerTag: writerTag) }
        let entityNames = entities.map { Set($0.map { $0.entityDescription.name }) }
        return try await readers.read { connection throws(StrataError) in
            var perStore: [[HistoryTransaction]] = []
            let places = try HistoryPlace.all(stores, writerTag: writerTag, on: connection)
            for place in places {
                let filter = HistoryStore.Filter(
                    // A token that names no position in this store reads it from its first transaction.
                    after: token.map { $0.position(key: place.key, tag: place.tag) ?? 0 }, authors: authors,
                    excludingAuthors: excludingAuthors, entities: entityNames, limit: limit)
                perStore.append(try place.tables.read(filter, configuration: place.key, tag: place.tag, on: connection))
            }
            var start = token?.rekeyed(for: places.map { ($0.key, $0.tag) })
            if token == nil, places.count > 1 {
                // Read from the start, a store's position starts at its purge mark: the merged tokens name
                // it, so that resuming from one does not read the store from 0 and find it expired.
                var positions: [String: Int64] = [:]
                var tags: [String: UInt32] = [:]
                for place in places {
                    let purged = try place.tables.purgedThrough(connection)
                    guard purged > 0 else { continue }
                    positions[place.key] = purged
                    tags[place.key] = place.tag
                }
                start = HistoryToken(positions: positions, storeTags: tags)
            }
            return HistoryStore.merge(perStore, after: start, limit: limit)
        }
    }

    /// The token of the last recorded transaction, or `nil` when none was recorded yet. A consumer that
    /// starts from the current state stores it and follows the history after it.
    ///
    /// - Throws: ``StrataError/Code/historyUnavailable`` when the store keeps no history.
    public func currentHistoryToken() async throws -> HistoryToken? {
        try await checkHistory()
        let stores = store.allStores
        let writerTag = writer.storeTag
        return try await readers.read { connection throws(StrataError) -> HistoryToken? in
            var positions: [String: Int64] = [:]
            var tags: [String: UInt32] = [:]
            for place in try HistoryPlace.all(stores, writerTag: writerTag, on: connection) {
                guard let position = try place.tables.currentToken(connection) else { continue }
                positions[place.key] = position
                tags[place.key] = place.tag
            }
            return positions.isEmpty ? nil : HistoryToken(positions: positions, storeTags: tags)
        }
    }

    /// Deletes the history recorded before `token` (the transaction of `token` is kept), and returns how
    /// many transactions were deleted. Tokens are never reused; reading after a purged token throws
    /// ``StrataError/Code/historyExpired``. In a stack of several stores, each store named by the token
    /// is purged before its position; the others are left alone.
    ///
    /// - Throws: ``StrataError/Code/historyUnavailable`` when the store keeps no history;
    ///   ``StrataError/Code/invalidArgument`` when no position of `token` is keyed by a store of this stack.
    @discardableResult
    public func purgeHistory(before token: HistoryToken) async throws -> Int {
        try await checkHistory()
        try check(token, stores: store.allStores, writerTag: writer.storeTag)
        return try await purgeEachStore { place, _ throws(StrataError) in
            token.position(key: place.key, tag: place.tag)
        }
    }

    /// Deletes the history recorded before `date` in every store, and returns how many transactions
    /// were deleted.
    @discardableResult
    public func purgeHistory(before date: Date) async throws -> Int {
        try await checkHistory()
        return try await purgeEachStore { place, connection throws(StrataError) in
            try place.tables.firstToken(notBefore: date, on: connection)
        }
    }

    /// Purges each store's history that keeps one before the token `bound` gives for it (none: kept).
    private func purgeEachStore(
        _ bound: @escaping @Sendable (HistoryPlace, Connection) throws(StrataError) -> Int64?
    ) async throws -> Int {
        let writerTag = writer.storeTag
        return try await writer.perform { tx in
            var deleted = 0
            for place in try HistoryPlace.all(tx.stack.allStores, writerTag: writerTag, on: tx.connection) {
                guard let token = try bound(place, tx.connection) else { continue }
                try tx.connection.lockForWriting(store: tx.connection.storeIndex(place.schemaName))
                deleted += try place.tables.purge(before: token, on: tx.connection)
            }
            return deleted
        }
    }

    /// Every recorded transaction after `token`, this stack's and other processes': an endless
    /// `AsyncSequence` that ends when the stack closes, and throws `CancellationError` when the
    /// iterating task is cancelled.
    ///
    /// ```swift
    /// for try await transaction in stack.historyUpdates(after: savedToken) {
    ///     try await sync(transaction.changes)
    ///     savedToken = transaction.token          // store it: a restart resumes after it
    /// }
    /// ```
    /// It first delivers what is already recorded after `token`, then each new transaction, in token
    /// order (in a stack of several stores, merged across stores by date): this stack's once it has
    /// committed, another connection's once the stack notices its commit (see
    /// ``Configuration/externalChangePollInterval``; with `nil`, the stack does not look for such
    /// commits, and they arrive only after this stack's next commit that changes something). Resumed
    /// from a stored token after a restart, it delivers every transaction after it exactly once. It
    /// throws ``StrataError/Code/historyExpired`` when history after `token` was purged,
    /// ``StrataError/Code/historyUnavailable`` when the store keeps none, and
    /// ``StrataError/Code/stackClosed`` when the iteration begins after ``close()`` (one under way ends).
    public func historyUpdates(after token: HistoryToken? = nil) -> HistoryUpdates {
        HistoryUpdates(stack: self, after: token)
    }

    /// Throws when no position of `token` belongs to one of `stores`: a token keyed by configurations these
    /// stores lack would otherwise silently read every store from its start.
    private func check(_ token: HistoryToken, stores: [StoreContext], writerTag: UInt32) throws(StrataError) {
        let keys = stores.count == 1 ? [""] : stores.map(\.configuration)
        let tags = stores.map { stores.count == 1 || $0.tag == 0 ? writerTag : $0.tag }
        guard !token.applies(toKeys: keys, tags: tags) else { return }
        let names = keys.map { $0.isEmpty ? "\"\" (the default store)" : "\"\($0)\"" }.joined(separator: ", ")
        throw StrataError(
            .invalidArgument,
            "\(token) names no store of this stack, whose stores are keyed \(names). Use a token read from this "
                + "stack (currentHistoryToken() or a HistoryTransaction's token), or key its positions by the "
                + "configuration of a store of this stack.")
    }

    /// Throws `historyUnavailable` unless the stores keep a history: this stack's, or one another stack
    /// turned on since this one opened (looked for here when this stack has not seen it yet).
    ///
    /// Whether a store has history tables is read on a reader first: only when one has does the writer
    /// take its turn to follow it, so a read of a stack without history never waits behind the queued
    /// transactions to throw.
    func checkHistory() async throws {
        if !writer.recordsHistory {
            let stores = store.allStores
            let kept = try await readers.read { connection throws(StrataError) in
                for store in stores where try HistoryStore(schemaName: store.builder.schemaName).exists(connection) {
                    return true
                }
                return false
            }
            if kept { try await writer.lookForHistory() }
        }
        guard writer.recordsHistory else {
            throw StrataError(
                .historyUnavailable,
                "The store at \(path) keeps no persistent history. Turn it on with DataStack.Configuration.history "
                    + "(every stack that writes the store should).")
        }
    }
}

/// A store of the stack that keeps a history, as history reads and purges address it.
struct HistoryPlace: Sendable {
    /// Its history's tables.
    let tables: HistoryStore
    /// Its key in history tokens: its configuration's name (`""` for the default one); the only store of
    /// a stack of one store is always `""`, whatever its configuration.
    let key: String
    /// The tag of its file (a stack of one store keeps it on its connection: its context's is 0).
    let tag: UInt32
    /// Its SQLite schema name (`nil`: the main database).
    let schemaName: String?

    /// The stores among `stores` (the stack's, main first) whose file keeps a history on `connection`.
    static func all(_ stores: [StoreContext], writerTag: UInt32, on connection: Connection) throws(StrataError) -> [HistoryPlace] {
        var places: [HistoryPlace] = []
        for store in stores {
            let tables = HistoryStore(schemaName: store.builder.schemaName)
            guard try tables.exists(connection) else { continue }
            places.append(HistoryPlace(
                tables: tables, key: stores.count == 1 ? "" : store.configuration,
                tag: stores.count == 1 || store.tag == 0 ? writerTag : store.tag, schemaName: store.builder.schemaName))
        }
        return places
    }
}
