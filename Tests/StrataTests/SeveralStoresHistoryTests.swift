import Foundation
import Testing
@testable import Strata

/// The persistent history of a stack of several stores: each store records its own changes.
@Suite("Several stores: history", .timeLimit(.minutes(1)))
struct SeveralStoresHistoryTests {
    static var recording: DataStack.Configuration {
        var configuration = DataStack.Configuration()
        configuration.history = HistoryOptions(contextName: "app")
        return configuration
    }

    @Test("each store records its own part of a commit in its own file; tokens hold a position per store")
    func perStoreRecords() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory, configuration: Self.recording)
        try await stack.perform(author: "ada") { tx in
            try tx.create(Into<StoreNote>(nil)) { $0.title = "main" }
            try tx.create(Into<StoreNote>("Shared")) { $0.title = "shared" }
            try tx.create(Into<StoreThumbnail>()) { $0.url = "a.png" }
        }
        try await stack.perform(author: "bob") { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "b.png" } }
        for (file, count) in [("main.sqlite", "1"), ("shared.sqlite", "1"), ("cache.sqlite", "2")] {
            #expect(try storeValue(directory.path(file), "SELECT count(*) FROM strata_history") == count, "\(file)")
        }

        let history = try await stack.history()
        #expect(history.map(\.configuration) == [nil, "Shared", "Cache", "Cache"])
        #expect(history.map(\.author) == ["ada", "ada", "ada", "bob"])
        // Each transaction holds its store's changes only.
        #expect(history[0].changes.changedEntityNames == ["Note"] && history[1].changes.changedEntityNames == ["Note"])
        #expect(history[2].changes.changedEntityNames == ["Thumbnail"])
        let notes = try await stack.fetchAll(From<StoreNote>().orderBy(.ascending(\.title)))
        #expect(history[0].changes.insertedIDs(StoreNote.self) == [notes[0].id])
        #expect(history[1].changes.insertedIDs(StoreNote.self) == [notes[1].id])
        // Tokens: the positions reached in every store once the transaction is read.
        #expect(history.map(\.token) == [
            HistoryToken(positions: ["": 1]), HistoryToken(positions: ["": 1, "Shared": 1]),
            HistoryToken(positions: ["": 1, "Shared": 1, "Cache": 1]), HistoryToken(positions: ["": 1, "Shared": 1, "Cache": 2]),
        ])
        #expect(try await stack.currentHistoryToken() == history[3].token)
        // A transaction's identity is its store's position alone, the same whichever read found it.
        #expect(history.map(\.id) == [
            HistoryToken(positions: ["": 1]), HistoryToken(positions: ["Shared": 1]),
            HistoryToken(positions: ["Cache": 1]), HistoryToken(positions: ["Cache": 2]),
        ])
        #expect(try await stack.history(after: history[2].token).map(\.id) == [history[3].id])
        #expect(try await stack.history(after: history[1].token).map(\.configuration) == ["Cache", "Cache"])
        #expect(try await stack.history(after: history[1].token, limit: 1).map(\.token) == [history[2].token])
        #expect(try await stack.history(entities: [StoreThumbnail.self]).map(\.author) == ["ada", "bob"])
        var updates = stack.historyUpdates(after: history[2].token).makeAsyncIterator()
        #expect(try await updates.next()?.token == history[3].token)

        // Purging before a token purges each store it names before its position.
        #expect(try await stack.purgeHistory(before: HistoryToken(positions: ["Cache": 2])) == 1)
        #expect(try storeValue(directory.path("cache.sqlite"), "SELECT count(*) FROM strata_history") == "1")
        #expect(try await stack.history().map(\.configuration) == [nil, "Shared", "Cache"])
        await expectStrataError(.historyExpired) {
            try await stack.history(after: HistoryToken(positions: ["": 1, "Shared": 1]))
        }
        #expect(try await stack.history(after: history[2].token).map(\.token) == [history[3].token])
        await stack.close()
    }

    @Test("tokens read from the start after a purge name the purged store: resuming from one is not refused as expired")
    func tokensFromStartAfterPurge() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory, configuration: Self.recording)
        try await stack.perform { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "old" } }
        #expect(try await stack.purgeHistory(before: HistoryToken(positions: ["Cache": 2])) == 1)
        try await stack.perform { tx in try tx.create(Into<StoreNote>(nil)) { $0.title = "a" } }
        // Before, the token named the main store alone, and the Cache store was read from 0 (below its
        // purge mark) when resuming from it.
        let first = try #require(try await stack.history().first)
        #expect(first.token == HistoryToken(positions: ["": 1, "Cache": 1]))
        try await stack.perform { tx in try tx.create(Into<StoreNote>(nil)) { $0.title = "b" } }
        #expect(try await stack.history(after: first.token).map(\.token) == [HistoryToken(positions: ["": 2, "Cache": 1])])
        var updates = stack.historyUpdates().makeAsyncIterator()
        #expect(try await updates.next()?.token == first.token)
        #expect(try await updates.next()?.configuration == nil)
        await stack.close()
    }

    @Test("a token that names no store of the stack is refused, not read as the start of every store")
    func tokenOfAnotherStack() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory, configuration: Self.recording)
        try await stack.perform { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "a.png" } }
        let misspelt = HistoryToken(positions: ["Cahce": 1])
        await expectStrataError(.invalidArgument) { try await stack.history(after: misspelt) }
        await expectStrataError(.invalidArgument) { try await stack.purgeHistory(before: misspelt) }
        var updates = stack.historyUpdates(after: misspelt).makeAsyncIterator()
        await expectStrataError(.invalidArgument) { _ = try await updates.next() }
        // One known configuration is enough: the others are read from their start.
        #expect(try await stack.history(after: HistoryToken(positions: ["Cahce": 1, "Cache": 0])).count == 1)
        #expect(try await stack.history(after: HistoryToken(positions: [:])).count == 1)

        // A one-store stack keys its store "": a token keyed by another configuration names nothing there.
        let alone = try await DataStack(
            Schema("V1", StoreThumbnail.self), storage: SQLiteStore(path: directory.path("alone.sqlite")), configuration: Self.recording)
        try await alone.perform { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "b.png" } }
        await expectStrataError(.invalidArgument) { try await alone.history(after: HistoryToken(positions: ["Cache": 1])) }
        #expect(try await alone.history(after: HistoryToken(rawValue: 0)).count == 1)
        await alone.close()
        await stack.close()
    }

    @Test("a stack that opens one store alone records its commits there; the stack of all stores reads them and its observers get the exact changes")
    func storeOpenedAlone() async throws {
        let directory = try TemporaryDirectory()
        var watched = Self.recording
        watched.externalChangePollInterval = .seconds(3600)
        let stack = try await makeSeveralStoresStack(directory, configuration: watched)
        var changes = stack.changes().makeAsyncIterator()
        let monitor = try #require(stack.observation.monitor, "no external-change monitor runs")
        await monitor.settled()
        // The cache file alone, by a stack that did not turn history on: the file keeps one, so it records.
        let cache = try await DataStack(Schema("V1", StoreThumbnail.self), storage: SQLiteStore(path: directory.path("cache.sqlite")))
        #expect(cache.recordsHistory)
        let thumbnail = try await cache.perform(author: "cache") { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "c.png" } }
        var external = try #require(await changes.next())
        while !external.isExternal { external = try #require(await changes.next()) }
        #expect(!external.isUnknown, "the history of the store tells what changed")
        #expect(external.insertedIDs(StoreThumbnail.self).map(\.rawValue) == [thumbnail.id.rawValue])
        let history = try await stack.history()
        #expect(history.map(\.configuration) == ["Cache"] && history.map(\.author) == ["cache"])
        // The stack of the cache alone names its only store by the default configuration.
        #expect(try await cache.history().map(\.token) == [HistoryToken(rawValue: 1)])
        #expect(try await cache.history(after: HistoryToken(rawValue: 0)).map(\.token) == [HistoryToken(rawValue: 1)])
        #expect(try await cache.history(after: HistoryToken(rawValue: 1)).isEmpty)
        // A token keeps the file of each position: the full stack's token applies to the stack of the
        // cache alone (and back), through JSON too, whatever key each stack gives the file.
        try await stack.perform { tx in try tx.create(Into<StoreNote>(nil)) { $0.title = "main" } }
        let full = try JSONDecoder().decode(HistoryToken.self, from: JSONEncoder().encode(try #require(try await stack.currentHistoryToken())))
        #expect(full == HistoryToken(positions: ["": 1, "Cache": 1]))
        #expect(try await cache.history(after: full).isEmpty)
        try await cache.perform(author: "cache") { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "d.png" } }
        let fromCache = try await cache.history(after: full)
        #expect(fromCache.map(\.token) == [HistoryToken(rawValue: 2)])
        // The cache's token names the cache file alone: the full stack reads its other stores from their start.
        let fromStart = try await stack.history(after: fromCache[0].token)
        #expect(fromStart.map(\.configuration) == [nil])
        // Moving on in the main store keeps the cache file's position, which the token held under the
        // main store's key: before, the main store's position took its place, and the next read after
        // that transaction's token delivered the cache's two transactions again.
        #expect(fromStart.last?.token["Cache"] == 2)
        #expect(try await stack.history(after: try #require(fromStart.last).token).isEmpty)
        #expect(try await stack.history(after: full).map(\.configuration) == ["Cache"])
        await cache.close()
        await stack.close()
    }

    @Test("a store added to a recording stack keeps its own history from its first commit")
    func addedStoreRecords() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await DataStack(
            severalStoresSchema, storages: [SQLiteStore(path: directory.path("main.sqlite"))], configuration: Self.recording)
        try await stack.perform { tx in try tx.create(Into<StoreNote>()) { $0.title = "before" } }
        try await stack.addStorage(SQLiteStore(path: directory.path("cache.sqlite")).configuration("Cache"))
        try await stack.perform { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "after.png" } }
        #expect(try storeValue(directory.path("cache.sqlite"), "SELECT count(*) FROM strata_history") == "1")
        #expect(try storeValue(directory.path("main.sqlite"), "SELECT count(*) FROM strata_history") == "1")
        #expect(try await stack.history().map(\.configuration) == [nil, "Cache"])
        await stack.close()
    }

    @Test("a stack without history that adds a store keeping one records that store's commits")
    func addedStoreKeepingHistory() async throws {
        let directory = try TemporaryDirectory()
        let cachePath = directory.path("cache.sqlite")
        let alone = try await DataStack(Schema("V1", StoreThumbnail.self), storage: SQLiteStore(path: cachePath), configuration: Self.recording)
        try await alone.perform { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "first.png" } }
        await alone.close()
        let stack = try await DataStack(severalStoresSchema, storages: [SQLiteStore(path: directory.path("main.sqlite"))])
        #expect(!stack.recordsHistory)
        try await stack.addStorage(SQLiteStore(path: cachePath).configuration("Cache"))
        #expect(stack.recordsHistory)
        try await stack.perform(author: "added") { tx in
            try tx.create(Into<StoreThumbnail>()) { $0.url = "second.png" }
            try tx.create(Into<StoreNote>()) { $0.title = "main keeps none" }
        }
        #expect(try await stack.history().map(\.author) == [nil, "added"])
        #expect(try await stack.history().map(\.configuration) == ["Cache", "Cache"])
        #expect(try storeValue(cachePath, "SELECT count(*) FROM strata_history") == "2")
        await stack.close()
    }

    @Test("two addStorage calls at once both add their store, one after the other; one after close throws stackClosed")
    func concurrentAddStorage() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await DataStack(severalStoresSchema, storages: [SQLiteStore(path: directory.path("main.sqlite"))])
        async let shared: Void = stack.addStorage(SQLiteStore(path: directory.path("shared.sqlite")).configuration("Shared"))
        async let cache: Void = stack.addStorage(SQLiteStore(path: directory.path("cache.sqlite")).configuration("Cache"))
        _ = try await (shared, cache)
        try await stack.perform { tx in
            try tx.create(Into<StoreThumbnail>()) { $0.url = "a.png" }
            try tx.create(Into<StoreNote>("Shared")) { $0.title = "shared" }
        }
        #expect(try await stack.fetchCount(From<StoreThumbnail>()) == 1)
        #expect(try await stack.fetchCount(From<StoreNote>("Shared")) == 1)
        await stack.close()
        await expectStrataError(.stackClosed) {
            try await stack.addStorage(InMemoryStore().configuration("Cache"))
        }
    }

    @Test("an addStorage the writer refuses leaves the stack unchanged: the same file can be added afterwards")
    func refusedAddStorageLeavesStack() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await DataStack(severalStoresSchema, storages: [SQLiteStore(path: directory.path("main.sqlite"))])
        let cachePath = directory.path("cache.sqlite")
        // Inside an unsafe transaction the writer refuses (it would wait for itself); before, the stack
        // had taken the file already, and every later call failed with "includes the file already".
        await expectStrataError(.reentrantTransaction) {
            try await stack.withUnsafeTransaction { _ in
                try await stack.addStorage(SQLiteStore(path: cachePath).configuration("Cache"))
            }
        }
        // Cancelled before the writer's turn.
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await stack.addStorage(SQLiteStore(path: cachePath).configuration("Cache"))
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        try await stack.addStorage(SQLiteStore(path: cachePath).configuration("Cache"))
        try await stack.perform { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "a.png" } }
        #expect(try await stack.fetchCount(From<StoreThumbnail>()) == 1)
        await stack.close()
    }

    @Test("a check for other connections' commits between an unsafe transaction's blocks reads no store, so a later write to one succeeds")
    func externalCheckDuringUnsafeTransaction() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory, configuration: Self.recording)
        let other = try await makeSeveralStoresStack(directory, configuration: Self.recording)
        let unsafe = try await stack.beginUnsafe()
        try await unsafe.perform { tx in _ = try tx.create(Into<StoreNote>(nil)) { $0.title = "main" } }
        // What the monitor runs, between two blocks: before, it read every store's data_version inside
        // the open transaction, which started the cache store's snapshot.
        #expect(try await stack.writer.externalChanges() == nil)
        try await other.perform { tx in _ = try tx.create(Into<StoreThumbnail>()) { $0.url = "other.png" } }
        // Before, SQLITE_BUSY_SNAPSHOT: the snapshot predates the other stack's commit.
        try await unsafe.perform { tx in _ = try tx.create(Into<StoreThumbnail>()) { $0.url = "mine.png" } }
        _ = try await unsafe.commit()
        await unsafe.end()
        // The other stack's commit is reported once the transaction has ended.
        let changes = try #require(try await stack.writer.externalChanges())
        #expect(changes.insertedIDs(StoreThumbnail.self).count == 1)
        #expect(try await stack.fetchCount(From<StoreThumbnail>()) == 2)
        await other.close()
        await stack.close()
    }

    @Test("a transaction that writes to one store only does not lock or record in the others")
    func oneStoreTransaction() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory, configuration: Self.recording)
        let mainFree = try await stack.perform { tx in
            try tx.create(Into<StoreThumbnail>()) { $0.url = "a.png" }
            return try canTakeWriteLock(directory.path("main.sqlite"))
        }
        #expect(mainFree, "the main store stays unlocked while only the cache store is written")
        #expect(try storeValue(directory.path("main.sqlite"), "SELECT count(*) FROM strata_history") == "0")
        await stack.close()
    }

    @Test("a stack of several stores already open when another stack turns one store's history on records its next writes there")
    func historyTurnedOnWhileOpen() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory)
        try await stack.perform(author: "app") { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "before.png" } }
        #expect(!stack.recordsHistory)
        // Another stack opens the cache file alone and turns its history on.
        let cachePath = directory.path("cache.sqlite")
        let cache = try await DataStack(Schema("V1", StoreThumbnail.self), storage: SQLiteStore(path: cachePath), configuration: Self.recording)
        try await cache.perform(author: "cache") { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "cache.png" } }
        // Before, the stack of all stores went on writing to the cache without recording its commits.
        try await stack.perform(author: "app") { tx in
            try tx.create(Into<StoreNote>(nil)) { $0.title = "main, which keeps no history" }
            try tx.create(Into<StoreThumbnail>()) { $0.url = "after.png" }
        }
        #expect(stack.recordsHistory)
        try await stack.perform(author: "app") { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "later.png" } }
        let recorded = try await cache.history()
        #expect(recorded.map(\.author) == ["cache", "app", "app"])
        #expect(recorded.map { $0.changes.insertedIDs(StoreThumbnail.self).count } == [1, 1, 1])
        #expect(try await stack.history().map(\.configuration) == ["Cache", "Cache", "Cache"])
        await cache.close()
        await stack.close()
    }
}

@Entity(name: "Label")
struct StoreLabel {
    @Field(.unique) var key: String = ""
}

@Suite("Several stores: unique keys", .timeLimit(.minutes(1)))
struct SeveralStoresUniqueKeyTests {
    @Test("uniqueIDs looks in the stores it is told to; a key found in two stores throws instead of picking one")
    func uniqueIDsScoped() async throws {
        let schema = Schema("V1", StoreLabel.self).configuration("A", StoreLabel.self).configuration("B", StoreLabel.self)
        let stack = try await DataStack(schema, storages: [InMemoryStore().configuration("A"), InMemoryStore().configuration("B")])
        let (inA, inB) = try await stack.perform { tx in
            (try tx.create(Into<StoreLabel>("A")) { $0.key = "x" }.id, try tx.create(Into<StoreLabel>("B")) { $0.key = "x" }.id)
        }
        try await stack.perform { tx in _ = try tx.create(Into<StoreLabel>("B")) { $0.key = "y" } }
        #expect(try await stack.perform { tx in try tx.uniqueIDs(StoreLabel.self, \.key, for: ["x"], in: From<StoreLabel>("A")) } == ["x": inA])
        #expect(try await stack.perform { tx in try tx.uniqueIDs(StoreLabel.self, \.key, for: ["x"], in: From<StoreLabel>("B")) } == ["x": inB])
        #expect(try await stack.perform { tx in try tx.uniqueIDs(StoreLabel.self, \.key, for: ["y", "z"]) }.keys.sorted() == ["y"])
        let error = await expectStrataError(.invalidArgument) {
            try await stack.perform { tx in try tx.uniqueIDs(StoreLabel.self, \.key, for: ["x"]) }
        }
        #expect(error?.message.contains("two stores") == true)
        await expectStrataError(.storeNotFound) {
            try await stack.perform { tx in try tx.uniqueIDs(StoreLabel.self, \.key, for: ["x"], in: From<StoreLabel>("C")) }
        }
    }
}
