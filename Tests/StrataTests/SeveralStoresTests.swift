import Foundation
import Testing
@testable import Strata

// Entities of the several-stores suites: notes and folders with documents live in the default and the
// "Shared" configuration; thumbnails in the "Cache" one only.

@Entity(name: "Note")
struct StoreNote {
    var title: String = ""
    var rank: Int = 0
}

@Entity(name: "Thumbnail")
struct StoreThumbnail {
    var url: String = ""
    var bytes: Int = 0
}

@Entity(name: "Folder")
struct StoreFolder {
    var name: String = ""
    @Relationship(deleteRule: .cascade, inverse: \StoreDoc.folder) var docs: Set<StoreDoc.ID> = []
}

@Entity(name: "Doc")
struct StoreDoc {
    var name: String = ""
    @Relationship var folder: StoreFolder.ID?
}

@Entity(name: "Tag")
struct StoreTag {
    @Field(.unique) var name: String = ""
    var uses: Int = 0
}

let severalStoresSchema = Schema("V1", StoreNote.self, StoreThumbnail.self, StoreFolder.self, StoreDoc.self)
    .configuration("Cache", StoreThumbnail.self)
    .configuration("Shared", StoreNote.self, StoreFolder.self, StoreDoc.self)
    .configuration(nil, StoreNote.self, StoreFolder.self, StoreDoc.self)

/// A stack of three file stores in a temporary directory: default (main.sqlite), "Shared" and "Cache".
func makeSeveralStoresStack(_ directory: TemporaryDirectory, configuration: DataStack.Configuration = .init()) async throws -> DataStack {
    try await DataStack(
        severalStoresSchema,
        storages: [
            SQLiteStore(path: directory.path("main.sqlite")),
            SQLiteStore(path: directory.path("shared.sqlite")).configuration("Shared"),
            SQLiteStore(path: directory.path("cache.sqlite")).configuration("Cache"),
        ],
        configuration: configuration)
}

/// A temporary store at a known path (an in-memory store's path is its own), for tests of its files.
struct KnownTemporaryStore: Storage {
    let path: String
    func location() throws(StrataError) -> StorageLocation {
        StorageLocation(path: path, isTemporary: true, defaultSynchronous: .off)
    }
}

@Suite("Several stores")
struct SeveralStoresTests {
    @Test("a stack whose opening fails at a later store removes the temporary store it made before")
    func failedOpenRemovesTemporaryFiles() async throws {
        let directory = try TemporaryDirectory()
        let temporary = directory.path("memory.sqlite")
        let broken = directory.path("cache.sqlite")
        try Data("not a database, not at all".utf8).write(to: URL(fileURLWithPath: broken))
        await expectStrataError(.notADatabase) {
            _ = try await DataStack(
                severalStoresSchema,
                storages: [
                    KnownTemporaryStore(path: temporary),
                    SQLiteStore(path: directory.path("shared.sqlite")).configuration("Shared"),
                    SQLiteStore(path: broken).configuration("Cache"),
                ])
        }
        // Before, the in-memory store's files stayed until the process ended.
        for suffix in ["", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: temporary + suffix), "\(suffix)")
        }
        #expect(FileManager.default.fileExists(atPath: broken), "a store that is not a database is left as it is")
    }

    @Test("each entity goes to its store, and each file holds only its configuration's tables")
    func routingAndFiles() async throws {
        let directory = try TemporaryDirectory()
        do {
            let stack = try await makeSeveralStoresStack(directory)
            try await stack.perform { tx in
                try tx.create(Into<StoreThumbnail>()) { $0.url = "a.png"; $0.bytes = 10 }
                try tx.create(Into<StoreNote>(nil)) { $0.title = "main note" }
                try tx.create(Into<StoreNote>("Shared")) { $0.title = "shared note" }
            }
            #expect(try await stack.fetchAll(From<StoreThumbnail>()).map(\.url) == ["a.png"])
            #expect(try await stack.fetchAll(From<StoreNote>(nil)).map(\.title) == ["main note"])
            #expect(try await stack.fetchAll(From<StoreNote>("Shared")).map(\.title) == ["shared note"])
            #expect(try await stack.fetchAll(From<StoreNote>().orderBy(.ascending(\.title))).map(\.title) == ["main note", "shared note"])
            await stack.close()
        }
        // Each file is a store of its own, which a stack of its configuration's entities opens alone.
        let cache = try await DataStack(Schema("V1", StoreThumbnail.self), storage: SQLiteStore(path: directory.path("cache.sqlite")))
        #expect(try await cache.fetchAll(From<StoreThumbnail>()).map(\.url) == ["a.png"])
        let shared = try await DataStack(
            Schema("V1", StoreNote.self, StoreFolder.self, StoreDoc.self), storage: SQLiteStore(path: directory.path("shared.sqlite")))
        #expect(try await shared.fetchAll(From<StoreNote>()).map(\.title) == ["shared note"])
        let tables = try await shared.perform { tx in
            try tx.strings("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'strata%' ORDER BY name")
        }
        #expect(tables == ["Doc", "Folder", "Note"])
        // And the stack of several reopens them with their data.
        await cache.close()
        await shared.close()
        let reopened = try await makeSeveralStoresStack(directory)
        #expect(try await reopened.fetchCount(From<StoreNote>()) == 2)
        #expect(try await reopened.fetchCount(From<StoreThumbnail>("Cache")) == 1)
    }

    @Test("code run inside a write routed to one store (a create's or insertAll's closure) reads and writes every store")
    func nestedWritesInOtherStores() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory, configuration: SeveralStoresHistoryTests.recording)
        try await stack.perform { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "before.png" } }
        let (seen, made) = try await stack.perform { tx in
            var seen: [Int] = []
            var made: [StoreThumbnail.ID] = []
            try tx.insertAll(Into<StoreNote>(nil), from: ["a"]) { title, note in
                note.title = title
                seen.append(try tx.fetchCount(From<StoreThumbnail>()))
                seen.append(try tx.fetchCount(From<StoreNote>("Shared")))
                made.append(try tx.create(Into<StoreThumbnail>()) { $0.url = "\(title).png" }.id)
            }
            let shared = try tx.create(Into<StoreNote>("Shared")) { note in
                note.title = "s"
                seen.append(try tx.fetchCount(From<StoreThumbnail>()))
                made.append(try tx.create(Into<StoreThumbnail>()) { $0.url = "s.png" }.id)
                try tx.create(Into<StoreNote>(nil)) { $0.title = "nested main" }
            }
            try tx.edit(shared) { note in
                note.rank = 1
                made.append(try tx.create(Into<StoreThumbnail>()) { $0.url = "e.png" }.id)
            }
            return (seen, made)
        }
        #expect(seen == [1, 0, 2])
        #expect(made.count == 3)
        for (id, url) in zip(made, ["a.png", "s.png", "e.png"]) { #expect(try await stack.fetchExisting(id)?.url == url) }
        #expect(try await stack.fetchAll(From<StoreNote>(nil).orderBy(.ascending(\.title))).map(\.title) == ["a", "nested main"])
        #expect(try await stack.fetchAll(From<StoreNote>("Shared")).map(\.title) == ["s"])
        await stack.close()
        #expect(try storeValue(directory.path("cache.sqlite"), "SELECT count(*) FROM Thumbnail") == "4")
        #expect(try storeValue(directory.path("main.sqlite"), "SELECT count(*) FROM Note") == "2")
        // Each store's history records its own part of the transaction.
        let recorded = "SELECT count(*) FROM strata_history WHERE entities LIKE '%Thumbnail%'"
        #expect(try storeValue(directory.path("cache.sqlite"), recorded) == "2")
        #expect(try storeValue(directory.path("main.sqlite"), recorded) == "0")
        #expect(try storeValue(directory.path("shared.sqlite"), recorded) == "0")
    }

    @Test("an entity in several stores: creating must name one, and reads merge them in order, with limits and counts")
    func sharedEntity() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory)
        let error = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.create(Into<StoreNote>()) { $0.title = "where?" } }
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("\"Shared\"") == true)
        try await stack.perform { tx in
            for (title, rank) in [("b", 2), ("d", 4), ("f", 6)] { try tx.create(Into<StoreNote>(nil)) { $0.title = title; $0.rank = rank } }
            for (title, rank) in [("a", 1), ("c", 3), ("e", 5)] { try tx.create(Into<StoreNote>("Shared")) { $0.title = title; $0.rank = rank } }
        }
        let all = From<StoreNote>().orderBy(.ascending(\.rank))
        #expect(try await stack.fetchAll(all).map(\.title) == ["a", "b", "c", "d", "e", "f"])
        #expect(try await stack.fetchAll(all.offset(1).limit(3)).map(\.title) == ["b", "c", "d"])
        #expect(try await stack.fetchAll(From<StoreNote>().orderBy(.descending(\.title)).limit(2)).map(\.title) == ["f", "e"])
        #expect(try await stack.fetchOne(From<StoreNote>().where(\.rank > 4).orderBy(.ascending(\.rank)))?.title == "e")
        #expect(try await stack.fetchCount(From<StoreNote>()) == 6)
        #expect(try await stack.fetchCount(From<StoreNote>().where(\.rank >= 3)) == 4)
        #expect(try await stack.fetchCount(all.limit(4).offset(3)) == 3)
        #expect(try await stack.fetchCount(From<StoreNote>(nil, "Shared")) == 6)
        #expect(try await stack.fetchCount(From<StoreNote>("Shared")) == 3)
        #expect(try await stack.queryValue(From<StoreNote>().select(Int.self, .sum(\.rank))) == 21)
        #expect(try await stack.queryValue(From<StoreNote>("Shared").select(Int.self, .maximum(\.rank))) == 5)
        #expect(try await stack.queryValue(From<StoreNote>().where(\.rank < 3).select(Int.self, .count(\.rank))) == 2)
        // A limit and an offset choose the rows an aggregate reads, across the stores.
        #expect(try await stack.queryValue(all.limit(4).offset(1).select(Int.self, .sum(\.rank))) == 2 + 3 + 4 + 5)
        #expect(try await stack.queryValue(all.offset(4).select(Int.self, .count(\.id))) == 2)
        let ids = try await stack.fetchIDs(all)
        #expect(ids.count == 6)
        #expect(Set(ids.map(\.rawValue)).count == 6, "an entity's IDs are unique across the stack's stores")
        // An ID names its store: editing and deleting reach the right file.
        try await stack.perform { tx in
            try tx.edit(ids[0]) { $0.title = "A" }   // "a", in Shared
            try tx.delete(ids[1])                     // "b", in the default store
        }
        #expect(try await stack.fetchAll(From<StoreNote>("Shared").orderBy(.ascending(\.rank))).map(\.title) == ["A", "c", "e"])
        #expect(try await stack.fetchAll(From<StoreNote>(nil).orderBy(.ascending(\.rank))).map(\.title) == ["d", "f"])
        // A bare row ID finds its store too.
        let bare = EntityID<StoreNote>(rawValue: ids[2].rawValue)
        #expect(try await stack.fetchExisting(bare)?.title == "c")
        try await stack.perform { tx in try tx.edit(bare) { $0.title = "C" } }
        #expect(try await stack.fetchAll(From<StoreNote>("Shared").orderBy(.ascending(\.rank))).map(\.title) == ["A", "C", "e"])
        // deleteAll over both stores.
        let deleted = try await stack.perform { tx in try tx.deleteAll(From<StoreNote>().where(\.rank >= 5)) }
        #expect(deleted == 2)
        #expect(try await stack.fetchAll(all).map(\.title) == ["A", "C", "d"])
    }

    @Test("relationships stay within their store, and related objects load from it")
    func relationships() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory)
        try await stack.perform { tx in
            let shared = try tx.create(Into<StoreFolder>("Shared")) { $0.name = "shared folder" }
            try tx.create(Into<StoreDoc>("Shared")) { $0.name = "s1"; $0.folder = shared.id }
            let main = try tx.create(Into<StoreFolder>(nil)) { $0.name = "main folder" }
            try tx.create(Into<StoreDoc>(nil)) { $0.name = "m1"; $0.folder = main.id }
            try tx.create(Into<StoreDoc>(nil)) { $0.name = "m2"; $0.folder = main.id }
        }
        let folders = try await stack.fetchAll(From<StoreFolder>().orderBy(.ascending(\.name)))
        #expect(folders.map(\.docs.count) == [2, 1])
        let docs = try await stack.fetchAll(From<StoreDoc>().prefetching(\.folder).orderBy(.ascending(\.name)))
        #expect(docs.map { $0.folder?.name ?? "-" } == ["main folder", "main folder", "shared folder"])
        #expect(try await stack.fetchCount(From<StoreDoc>().where(\.folder?.name == "main folder")) == 2)
        // A to-one relationship to an object of another store is refused.
        let error = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in
                try tx.create(Into<StoreDoc>("Shared")) { $0.name = "wrong"; $0.folder = folders[0].id }
            }
        }
        #expect(error?.code == .invalidArgument)
        // Cascading deletes stay in the store.
        try await stack.perform { tx in try tx.delete(folders[0]) }
        #expect(try await stack.fetchAll(From<StoreDoc>()).map(\.name) == ["s1"])
    }

    @Test("configurations a fetch or creation names must exist, have a store and hold the entity")
    func configurationErrors() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory)
        for from in [From<StoreNote>("Nope"), From<StoreNote>("Cache")] {
            let error = await #expect(throws: StrataError.self) { try await stack.fetchAll(from) }
            #expect(error?.code == .storeNotFound)
        }
        let unknown = await #expect(throws: StrataError.self) { try await stack.fetchCount(From<StoreNote>("Nope")) }
        #expect(unknown?.message.contains("\"Cache\"") == true, "the message lists the configurations: \(unknown?.message ?? "")")
        let lacking = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.create(Into<StoreThumbnail>(nil)) }
        }
        #expect(lacking?.code == .storeNotFound)
        // A stack without a store for "Cache".
        let partial = try await DataStack(
            severalStoresSchema, storages: [InMemoryStore(), InMemoryStore().configuration("Shared")])
        let missing = await #expect(throws: StrataError.self) { try await partial.fetchAll(From<StoreThumbnail>()) }
        #expect(missing?.code == .storeNotFound)
        // A stack of one store of a configuration.
        let cacheOnly = try await DataStack(severalStoresSchema, storages: [InMemoryStore().configuration("Cache")])
        try await cacheOnly.perform { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "x" } }
        #expect(try await cacheOnly.fetchCount(From<StoreThumbnail>()) == 1)
        let none = await #expect(throws: StrataError.self) { try await cacheOnly.fetchCount(From<StoreNote>()) }
        #expect(none?.code == .storeNotFound, "\(none.map { String(describing: $0) } ?? "")")
    }

    @Test("From(\"\") and Into(\"\") are refused, as Schema.configuration(\"\") is: the default configuration is nil")
    func emptyConfigurationNames() async throws {
        let directory = try TemporaryDirectory()
        let several = try await makeSeveralStoresStack(directory)
        let single = try await DataStack(Schema("V1", StoreNote.self))
        for stack in [several, single] {
            // Before, "" quietly meant the default configuration.
            let fetch = await expectStrataError(.invalidArgument) { try await stack.fetchAll(From<StoreNote>("")) }
            #expect(fetch?.message.contains("From(nil)") == true, "\(fetch?.message ?? "")")
            #expect(fetch?.entity == "Note")
            await expectStrataError(.invalidArgument) { try await stack.fetchCount(From<StoreNote>(nil, "")) }
            await expectStrataError(.invalidArgument) {
                try await stack.perform { tx in try tx.deleteAll(From<StoreNote>("")) }
            }
            let create = await expectStrataError(.invalidArgument) {
                try await stack.perform { tx in try tx.create(Into<StoreNote>("")) }
            }
            #expect(create?.message.contains("Into(nil)") == true, "\(create?.message ?? "")")
            try await stack.perform { tx in try tx.create(Into<StoreNote>(nil)) { $0.title = "kept" } }
            #expect(try await stack.fetchAll(From<StoreNote>(nil)).map(\.title) == ["kept"])
            await stack.close()
        }
    }

    @Test("opening refuses storages of unknown or repeated configurations, and relationships across stores")
    func openingErrors() async throws {
        let unknown = await #expect(throws: StrataError.self) {
            _ = try await DataStack(severalStoresSchema, storages: [InMemoryStore(), InMemoryStore().configuration("Cahce")])
        }
        #expect(unknown?.code == .invalidArgument)
        #expect(unknown?.message.contains("\"Cache\"") == true)
        // An empty name is no name: neither a schema's configuration nor a storage's may be "".
        let emptyInSchema = await #expect(throws: StrataError.self) {
            _ = try await DataStack(
                Schema("V1", StoreNote.self, StoreThumbnail.self).configuration("", StoreThumbnail.self),
                storages: [InMemoryStore()])
        }
        #expect(emptyInSchema?.code == .invalidArgument && emptyInSchema?.message.contains("\"\"") == true)
        let emptyStorage = await #expect(throws: StrataError.self) {
            _ = try await DataStack(severalStoresSchema, storages: [InMemoryStore(), InMemoryStore().configuration("")])
        }
        #expect(emptyStorage?.code == .invalidArgument && emptyStorage?.message.contains("nil") == true)
        let directory = try TemporaryDirectory()
        let single = try await DataStack(severalStoresSchema, storages: [SQLiteStore(path: directory.path("one.sqlite"))])
        let emptyAdded = await #expect(throws: StrataError.self) { try await single.addStorage(InMemoryStore().configuration("")) }
        #expect(emptyAdded?.code == .invalidArgument)
        let twice = await #expect(throws: StrataError.self) {
            _ = try await DataStack(severalStoresSchema, storages: [InMemoryStore(), InMemoryStore()])
        }
        #expect(twice?.code == .invalidArgument)
        let crossing = Schema("V1", StoreFolder.self, StoreDoc.self).configuration("Other", StoreDoc.self)
        let error = await #expect(throws: StrataError.self) {
            _ = try await DataStack(crossing, storages: [InMemoryStore(), InMemoryStore().configuration("Other")])
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("cannot cross stores") == true)
        let none = await #expect(throws: StrataError.self) { _ = try await DataStack(severalStoresSchema, storages: []) }
        #expect(none?.code == .invalidArgument)
    }

    @Test("a list publisher of an entity in several stores sees commits to each")
    func observation() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory)
        var iterator = stack.listPublisher(From<StoreNote>().orderBy(.ascending(\.rank))).makeAsyncIterator()
        #expect(try await iterator.next()?.items.isEmpty == true)
        try await stack.perform { tx in try tx.create(Into<StoreNote>("Shared")) { $0.title = "s"; $0.rank = 2 } }
        #expect(try await iterator.next()?.items.map(\.title) == ["s"])
        try await stack.perform { tx in try tx.create(Into<StoreNote>(nil)) { $0.title = "m"; $0.rank = 1 } }
        let snapshot = try #require(try await iterator.next())
        #expect(snapshot.items.map(\.title) == ["m", "s"])
        let scoped = stack.listPublisher(From<StoreNote>("Shared"))
        var scopedIterator = scoped.makeAsyncIterator()
        #expect(try await scopedIterator.next()?.items.map(\.title) == ["s"])
        // An object publisher follows its object in its store.
        let shared = try #require(snapshot.items.last)
        var object = stack.objectPublisher(shared.id).makeAsyncIterator()
        #expect(try await object.next()??.title == "s")
        try await stack.perform { tx in try tx.edit(shared.id) { $0.title = "s2" } }
        #expect(try await object.next()??.title == "s2")
        try await stack.perform { tx in try tx.delete(shared.id) }
        let deleted = try await object.next()
        #expect(deleted != nil && deleted! == nil)
        #expect(try await stack.fetchAll(From<StoreNote>()).map(\.title) == ["m"])
    }

    @Test("batches and read generations read every store, and their IDs act on their own store")
    func batchesAndGenerations() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory)
        try await stack.perform { tx in
            for rank in 1...10 { try tx.create(Into<StoreNote>(rank % 2 == 0 ? nil : "Shared")) { $0.title = "n\(rank)"; $0.rank = rank } }
        }
        var ranks: [Int] = []
        var ids: [StoreNote.ID] = []
        for try await batch in stack.fetchBatches(From<StoreNote>().orderBy(.ascending(\.rank)).tweak(.batchSize(3))) {
            ranks += batch.map(\.rank)
            ids += batch.map(\.id)
        }
        #expect(ranks == Array(1...10))
        let fetched = ids
        try await stack.perform { tx in for id in fetched { try tx.edit(id) { $0.title += "!" } } }
        #expect(try await stack.fetchCount(From<StoreNote>("Shared").where(.hasSuffix(\.title, "!"))) == 5)
        #expect(try await stack.fetchCount(From<StoreNote>(nil).where(.hasSuffix(\.title, "!"))) == 5)
        let generation = try await stack.readGeneration()
        try await stack.perform { tx in try tx.create(Into<StoreNote>("Shared")) { $0.title = "later"; $0.rank = 11 } }
        #expect(try await generation.fetchCount(From<StoreNote>()) == 10)
        #expect(try await generation.fetchAll(From<StoreNote>("Shared")).count == 5)
        #expect(try await stack.fetchCount(From<StoreNote>()) == 11)
    }

    @Test("another stack's commit to an attached store reaches publishers, and IDs stay unique", .timeLimit(.minutes(1)))
    func externalCommitToAttachedStore() async throws {
        let directory = try TemporaryDirectory()
        var polling = DataStack.Configuration()
        polling.externalChangePollInterval = .milliseconds(5)
        let observed = try await makeSeveralStoresStack(directory, configuration: polling)
        let other = try await makeSeveralStoresStack(directory)
        try await observed.perform { tx in try tx.create(Into<StoreNote>("Shared")) { $0.title = "mine" } }
        var counts = observed.countPublisher(From<StoreNote>("Shared")).makeAsyncIterator()
        #expect(try await counts.next() == 1)
        try await other.perform { tx in try tx.create(Into<StoreNote>("Shared")) { $0.title = "theirs" } }
        var count = try #require(try await counts.next())
        while count < 2 { count = try #require(try await counts.next()) }
        #expect(count == 2)
        // The observed stack's ID counters noticed the other commit: its next ID is a new one.
        try await observed.perform { tx in try tx.create(Into<StoreNote>(nil)) { $0.title = "after" } }
        let ids = try await observed.fetchIDs(From<StoreNote>())
        #expect(Set(ids.map(\.rawValue)).count == 3)
    }

    @Test("the file watch covers every store: another stack's commit to an attached store is seen without a poll",
          .timeLimit(.minutes(1)))
    func watchedAttachedStore() async throws {
        let directory = try TemporaryDirectory()
        var watchOnly = DataStack.Configuration()
        watchOnly.externalChangePollInterval = .seconds(3600)
        let observed = try await makeSeveralStoresStack(directory, configuration: watchOnly)
        let other = try await makeSeveralStoresStack(directory)
        var counts = observed.countPublisher(From<StoreThumbnail>()).makeAsyncIterator()
        #expect(try await counts.next() == 0)
        let monitor = try #require(observed.observation.monitor, "no external-change monitor runs")
        await monitor.settled()
        #expect(monitor.watcher?.isRunning == true)
        try await other.perform { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "theirs.png" } }
        var count = try #require(try await counts.next())
        while count < 1 { count = try #require(try await counts.next()) }
        #expect(count == 1)
    }

    @Test("a store added to a watched stack: other stacks' commits to the old stores are still noticed, and the watch covers the new one",
          .timeLimit(.minutes(1)))
    func storeAddedWhileWatched() async throws {
        let directory = try TemporaryDirectory()
        let other = try await makeSeveralStoresStack(directory)
        var watchOnly = DataStack.Configuration()
        watchOnly.externalChangePollInterval = .seconds(3600)
        let observed = try await DataStack(
            severalStoresSchema, storages: [SQLiteStore(path: directory.path("main.sqlite"))], configuration: watchOnly)
        // The writer's check, called directly (nothing observes yet): the versions it saw are its baseline.
        #expect(try await observed.writer.externalChanges() == nil)
        try await observed.addStorage(SQLiteStore(path: directory.path("shared.sqlite")).configuration("Shared"))
        try await other.perform { tx in try tx.create(Into<StoreNote>(nil)) { $0.title = "theirs" } }
        // Before, adding the store made the writer forget the versions it had checked: this check took
        // the main store's new version as a first baseline, and the commit was never reported.
        #expect(try await observed.writer.externalChanges() != nil)
        try await other.perform { tx in try tx.create(Into<StoreNote>("Shared")) { $0.title = "shared" } }
        #expect(try await observed.writer.externalChanges() != nil, "a commit to the added store is noticed")
        // A monitor that runs when a store is added starts again, watching the new store's files too
        // (before, it kept watching the files it started with: commits to the added store were seen at
        // the next poll only, here in an hour).
        var notes = observed.countPublisher(From<StoreNote>(nil)).makeAsyncIterator()
        #expect(try await notes.next() == 1)
        let monitor = try #require(observed.observation.monitor, "no external-change monitor runs")
        await monitor.settled()
        let cachePath = directory.path("cache.sqlite")
        #expect(monitor.watcher?.paths.contains(cachePath) == false)
        try await observed.addStorage(SQLiteStore(path: cachePath).configuration("Cache"))
        let restarted = try #require(observed.observation.monitor)
        #expect(restarted !== monitor)
        await restarted.settled()
        #expect(restarted.watcher?.paths.contains(cachePath) == true)
        var thumbnails = observed.countPublisher(From<StoreThumbnail>()).makeAsyncIterator()
        #expect(try await thumbnails.next() == 0)
        try await other.perform { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "theirs.png" } }
        var count = try #require(try await thumbnails.next())
        while count < 1 { count = try #require(try await thumbnails.next()) }
        #expect(count == 1)
    }

    @Test("a transaction locks only the stores it writes to")
    func locksOnlyWrittenStores() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory)
        let cachePath = directory.path("cache.sqlite")
        let mainPath = directory.path("main.sqlite")
        let seen = try await stack.perform { (tx: Transaction) throws -> [Bool] in
            _ = try tx.create(Into<StoreNote>(nil)) { (note: inout StoreNote) in note.title = "main" }
            let cacheFree = try canTakeWriteLock(cachePath)
            let mainFree = try canTakeWriteLock(mainPath)
            _ = try tx.create(Into<StoreThumbnail>()) { (thumbnail: inout StoreThumbnail) in thumbnail.url = "cache" }
            return [cacheFree, mainFree, try canTakeWriteLock(cachePath)]
        }
        #expect(seen == [true, false, false], "cache free while only main was written; then main, then cache locked")
        #expect(try await stack.fetchCount(From<StoreThumbnail>()) == 1)
    }

    @Test("stores filled apart that share an entity's IDs are refused")
    func sharedIDsRefused() async throws {
        let directory = try TemporaryDirectory()
        let single = Schema("V1", StoreNote.self, StoreFolder.self, StoreDoc.self)
        for name in ["main.sqlite", "shared.sqlite"] {
            let stack = try await DataStack(single, storage: SQLiteStore(path: directory.path(name)))
            try await stack.perform { tx in try tx.create(Into<StoreNote>()) { $0.title = name } }
            await stack.close()
        }
        let error = await #expect(throws: StrataError.self) {
            _ = try await DataStack(
                severalStoresSchema,
                storages: [
                    SQLiteStore(path: directory.path("main.sqlite")),
                    SQLiteStore(path: directory.path("shared.sqlite")).configuration("Shared"),
                ])
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("Note 1") == true, "\(error?.message ?? "")")
    }
}

@Suite("Several stores: consistency")
struct SeveralStoresConsistencyTests {
    @Test("a read never sees a commit that wrote to two stores in one store only", .timeLimit(.minutes(1)))
    func noTornCommits() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory)
        let ids = try await stack.perform { tx in
            [try tx.create(Into<StoreNote>(nil)) { $0.title = "main" }.id, try tx.create(Into<StoreNote>("Shared")) { $0.title = "shared" }.id]
        }
        let commits = 300
        let done = Locked(false)
        async let writes: Void = {
            for value in 1...commits {
                try await stack.perform { tx in
                    for id in ids { try tx.edit(id) { $0.rank = value } }
                }
            }
            done.withLock { $0 = true }
        }()
        var reads = 0
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    var seen = 0
                    while !done.withLock({ $0 }) {
                        let ranks = try await stack.fetchAll(From<StoreNote>()).map(\.rank)
                        #expect(ranks.count == 2 && ranks[0] == ranks[1], "a read saw \(ranks)")
                        let both = try await stack.read { context in
                            (try context.fetchAll(From<StoreNote>(nil)).map(\.rank), try context.fetchAll(From<StoreNote>("Shared")).map(\.rank))
                        }
                        #expect(both.0 == both.1, "a read context saw \(both)")
                        seen += 1
                    }
                    return seen
                }
            }
            for try await count in group { reads += count }
        }
        try await writes
        #expect(reads > 0)
        #expect(try await stack.fetchAll(From<StoreNote>()).map(\.rank) == [commits, commits])
    }
}

/// Two versions of a cache entity, to migrate one store of several.
enum StoreCacheV1 {
    @Entity(name: "Thumbnail")
    struct Thumbnail {
        var url: String = ""
    }
}

@Suite("Several stores: adding stores and migrating each")
struct SeveralStoresLifecycleTests {
    @Test("upsertAll into an entity of two stores keeps its IDs unique across both, and updates in the store named")
    func upsertAcrossStores() async throws {
        let directory = try TemporaryDirectory()
        let schema = Schema("V1", StoreTag.self).configuration("Shared", StoreTag.self).configuration(nil, StoreTag.self)
        let stack = try await DataStack(
            schema, storages: [SQLiteStore(path: directory.path("main.sqlite")), SQLiteStore(path: directory.path("shared.sqlite")).configuration("Shared")])
        let main = try await stack.perform { tx in
            try tx.upsertAll(Into<StoreTag>(nil), from: ["a", "b"], uniqueBy: \.name) { name, tag in tag.name = name }
        }
        let shared = try await stack.perform { tx in
            try tx.upsertAll(Into<StoreTag>("Shared"), from: ["b", "c"], uniqueBy: \.name) { name, tag in tag.name = name; tag.uses = 1 }
        }
        #expect(main.insertedIDs.count == 2 && shared.insertedIDs.count == 2 && shared.updated.isEmpty)
        #expect(Set((main.insertedIDs + shared.insertedIDs).map(\.rawValue)).count == 4)
        let again = try await stack.perform { tx in
            try tx.upsertAll(Into<StoreTag>("Shared"), from: ["c"], uniqueBy: \.name) { name, tag in tag.name = name; tag.uses = 2 }
        }
        #expect(again.updatedIDs == [shared.insertedIDs[1]] && again.insertedIDs.isEmpty)
        #expect(try await stack.fetchAll(From<StoreTag>("Shared").orderBy(.ascending(\.name))).map(\.uses) == [1, 2])
        #expect(try await stack.fetchAll(From<StoreTag>(nil).orderBy(.ascending(\.name))).map(\.uses) == [0, 0])
    }

    @Test("addStorage adds a store to a running stack; readers opened before see it, and it survives reopening")
    func addStorage() async throws {
        let directory = try TemporaryDirectory()
        let main = directory.path("main.sqlite")
        let stack = try await DataStack(severalStoresSchema, storages: [SQLiteStore(path: main)])
        try await stack.perform { tx in try tx.create(Into<StoreNote>()) { $0.title = "m"; $0.rank = 1 } }
        // Every reader of the pool opened before the store is added.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await stack.fetchCount(From<StoreNote>()) } }
            for try await count in group { #expect(count == 1) }
        }
        let missing = await #expect(throws: StrataError.self) { try await stack.fetchAll(From<StoreThumbnail>()) }
        #expect(missing?.code == .storeNotFound)
        var notes = stack.listPublisher(From<StoreNote>().orderBy(.ascending(\.rank))).makeAsyncIterator()
        #expect(try await notes.next()?.items.map(\.title) == ["m"])
        try await stack.addStorage(SQLiteStore(path: directory.path("cache.sqlite")).configuration("Cache"))
        try await stack.addStorage(SQLiteStore(path: directory.path("shared.sqlite")).configuration("Shared"))
        // The writer remembers where Note's unscoped creations went, for the stack as it was: with "Shared"
        // added, Note lives in two stores, and an unscoped creation must name one.
        let several = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.create(Into<StoreNote>()) { $0.title = "where?" } }
        }
        #expect(several?.code == .invalidArgument)
        try await stack.perform { tx in
            try tx.create(Into<StoreThumbnail>()) { $0.url = "a.png" }
            try tx.create(Into<StoreNote>("Shared")) { $0.title = "s"; $0.rank = 2 }
        }
        try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<8 { group.addTask { try await stack.fetchAll(From<StoreNote>().orderBy(.ascending(\.rank))).map(\.title) } }
            for try await titles in group { #expect(titles == ["m", "s"]) }
        }
        #expect(try await stack.fetchAll(From<StoreThumbnail>()).map(\.url) == ["a.png"])
        #expect(try await notes.next()?.items.map(\.title) == ["m", "s"], "a publisher made before sees the added store")
        let ids = try await stack.fetchIDs(From<StoreNote>())
        #expect(Set(ids.map(\.rawValue)).count == 2, "IDs stay unique across a store added later")
        // Refused: a configuration with a store, an undeclared one, a file of the stack.
        for storage in [
            SQLiteStore(path: directory.path("other.sqlite")).configuration("Cache"),
            SQLiteStore(path: directory.path("other.sqlite")).configuration("Nope"),
            SQLiteStore(path: main).configuration(nil),
        ] {
            let error = await #expect(throws: StrataError.self) { try await stack.addStorage(storage) }
            #expect(error?.code == .invalidArgument)
        }
        let single = try await DataStack(testSchema)
        let noConfigurations = await #expect(throws: StrataError.self) {
            try await single.addStorage(InMemoryStore().configuration("Cache"))
        }
        #expect(noConfigurations?.code == .invalidArgument)
        await stack.close()
        let reopened = try await makeSeveralStoresStack(directory)
        #expect(try await reopened.fetchCount(From<StoreNote>()) == 2)
        #expect(try await reopened.fetchCount(From<StoreThumbnail>()) == 1)
    }

    @Test("each store migrates along its own configuration's versions")
    func perStoreMigration() async throws {
        let directory = try TemporaryDirectory()
        let main = directory.path("main.sqlite")
        let cache = directory.path("cache.sqlite")
        let v1 = Schema("V1", StoreNote.self, StoreCacheV1.Thumbnail.self).configuration("Cache", StoreCacheV1.Thumbnail.self)
        let v2 = Schema("V2", StoreNote.self, StoreThumbnail.self).configuration("Cache", StoreThumbnail.self)
        do {
            let stack = try await DataStack(v1, storages: [SQLiteStore(path: main), SQLiteStore(path: cache).configuration("Cache")])
            try await stack.perform { tx in
                try tx.create(Into<StoreNote>()) { $0.title = "kept" }
                try tx.create(Into<StoreCacheV1.Thumbnail>()) { $0.url = "a.png" }
            }
            await stack.close()
        }
        let history = SchemaHistory(v1, v2, steps: [MigrationStep(from: "V1", to: "V2", .fill("Thumbnail", "bytes", with: 7))])
        let forecasts = try await DataStack.forecast(
            history, storages: [SQLiteStore(path: main), SQLiteStore(path: cache).configuration("Cache")])
        #expect(forecasts.map(\.storeVersion) == ["V1", "V1"])
        #expect(forecasts[0].steps.flatMap(\.entities).map(\.entity) == ["Note"], "each store's forecast names its own entities")
        #expect(forecasts[1].steps.flatMap(\.entities).map(\.entity) == ["Thumbnail"])
        let progress = MigrationProgress()
        let events = Task { var events: [MigrationProgress.Event] = []; for await event in progress { events.append(event) }; return events }
        let stack = try await DataStack(
            history, storages: [SQLiteStore(path: main), SQLiteStore(path: cache).configuration("Cache")], progress: progress)
        #expect(try await stack.fetchAll(From<StoreNote>()).map(\.title) == ["kept"])
        #expect(try await stack.fetchAll(From<StoreThumbnail>()).map(\.bytes) == [7])
        // Each store's migration reports in turn, named by its configuration, and ends with its own
        // finished event.
        let reported = await events.value
        #expect(reported.last?.configuration == "Cache" && reported.last?.isFinished == true, "\(reported)")
        #expect(reported.allSatisfy { $0.configuration == nil || $0.configuration == "Cache" })
        #expect(reported.map(\.configuration).firstIndex(of: "Cache").map { reported[..<$0].allSatisfy { $0.configuration == nil } } == true)
        await stack.close()
        // Each file records its own version, and its lock covers its own entities only.
        for path in [main, cache] {
            #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V2")
        }
        let alone = try await DataStack(Schema("V2", StoreThumbnail.self), storage: SQLiteStore(path: cache))
        #expect(try await alone.fetchCount(From<StoreThumbnail>()) == 1)
    }
}

extension SeveralStoresLifecycleTests {
    @Test("addStorage migrates the added store along the stack's history and reports the migration's progress")
    func addStorageMigrates() async throws {
        let directory = try TemporaryDirectory()
        let cache = directory.path("cache.sqlite")
        let v1 = Schema("V1", StoreNote.self, StoreCacheV1.Thumbnail.self).configuration("Cache", StoreCacheV1.Thumbnail.self)
        let v2 = Schema("V2", StoreNote.self, StoreThumbnail.self).configuration("Cache", StoreThumbnail.self)
        do {
            let old = try await DataStack(
                v1, storages: [SQLiteStore(path: directory.path("old.sqlite")), SQLiteStore(path: cache).configuration("Cache")])
            try await old.perform { tx in
                for index in 0..<3 { try tx.create(Into<StoreCacheV1.Thumbnail>()) { $0.url = "\(index).png" } }
            }
            await old.close()
        }
        let history = SchemaHistory(v1, v2, steps: [MigrationStep(from: "V1", to: "V2", .fill("Thumbnail", "bytes", with: 7))])
        let stack = try await DataStack(history, storages: [SQLiteStore(path: directory.path("main.sqlite"))])
        let progress = MigrationProgress()
        let collector = Task {
            var events: [MigrationProgress.Event] = []
            for await event in progress { events.append(event) }
            return events
        }
        try await stack.addStorage(SQLiteStore(path: cache).configuration("Cache"), progress: progress)
        let events = await collector.value  // ends: addStorage finished the sequence
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { $0.source == "V1" && $0.destination == "V2" })
        let last = try #require(events.last)
        #expect(last.overallCompletedRows == last.overallTotalRows)
        #expect(try await stack.fetchAll(From<StoreThumbnail>()).map(\.bytes) == [7, 7, 7])
        #expect(try storeValue(cache, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V2")
        await stack.close()
        // A store at the current version migrates nothing: its progress finishes without an event.
        let again = try await DataStack(history, storages: [SQLiteStore(path: directory.path("main.sqlite"))])
        let idle = MigrationProgress()
        try await again.addStorage(SQLiteStore(path: cache).configuration("Cache"), progress: idle)
        var count = 0
        for await _ in idle { count += 1 }
        #expect(count == 0)
        #expect(try await again.fetchCount(From<StoreThumbnail>()) == 3)
        await again.close()
    }

    @Test("a store made by a version with configurations opens with a history whose current version has none")
    func configurationsMergedBack() async throws {
        let directory = try TemporaryDirectory()
        let main = directory.path("main.sqlite")
        let v1 = Schema("V1", StoreNote.self, StoreThumbnail.self).configuration("Cache", StoreThumbnail.self)
        let v2 = Schema("V2", StoreNote.self, StoreThumbnail.self)
        do {
            let stack = try await DataStack(v1, storages: [SQLiteStore(path: main), SQLiteStore(path: directory.path("cache.sqlite")).configuration("Cache")])
            try await stack.perform { tx in
                try tx.create(Into<StoreNote>()) { $0.title = "kept" }
                try tx.create(Into<StoreThumbnail>()) { $0.url = "cached.png" }
            }
            await stack.close()
        }
        // The main store was made with V1's default configuration (Note only): that is what V1 is
        // compared with, not V1's whole list of entities.
        let history = SchemaHistory(v1, v2)
        let forecast = try await DataStack.forecast(history, storage: SQLiteStore(path: main))
        #expect(forecast.storeVersion == "V1")
        #expect(forecast.steps.flatMap(\.entities).map(\.entity).sorted() == ["Note", "Thumbnail"])
        let stack = try await DataStack(history, storage: SQLiteStore(path: main))
        #expect(try await stack.fetchAll(From<StoreNote>()).map(\.title) == ["kept"])
        #expect(try await stack.fetchCount(From<StoreThumbnail>()) == 0, "objects do not move between stores")
        try await stack.perform { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "main.png" } }
        await stack.close()
        #expect(try storeValue(main, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V2")
    }

    @Test("an entity a version moves to another configuration: the old store's migration names it, and .deleteEntity drops it there")
    func entityMovedToAnotherStore() async throws {
        let directory = try TemporaryDirectory()
        let main = directory.path("main.sqlite")
        let v1 = Schema("V1", StoreNote.self, StoreThumbnail.self)
        let v2 = Schema("V2", StoreNote.self, StoreThumbnail.self).configuration("Cache", StoreThumbnail.self)
        do {
            let stack = try await DataStack(v1, storage: SQLiteStore(path: main))
            try await stack.perform { tx in
                try tx.create(Into<StoreNote>()) { $0.title = "kept" }
                try tx.create(Into<StoreThumbnail>()) { $0.url = "old.png" }
            }
            await stack.close()
        }
        let storages: [any Storage] = [SQLiteStore(path: main), SQLiteStore(path: directory.path("cache.sqlite")).configuration("Cache")]
        let error = await expectStrataError(.invalidMigration) { try await DataStack(SchemaHistory(v1, v2), storages: storages) }
        #expect(error?.entity == "Thumbnail")
        #expect(error?.message.contains("keeps Thumbnail in configuration \"Cache\"") == true, "\(error?.message ?? "")")
        #expect(try storeValue(main, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
        let history = SchemaHistory(v1, v2, steps: [MigrationStep(from: "V1", to: "V2", .deleteEntity("Thumbnail"))])
        let stack = try await DataStack(history, storages: storages)
        #expect(try await stack.fetchAll(From<StoreNote>()).map(\.title) == ["kept"])
        #expect(try await stack.fetchCount(From<StoreThumbnail>()) == 0)
        try await stack.perform { tx in try tx.create(Into<StoreThumbnail>()) { $0.url = "new.png" } }
        #expect(try await stack.fetchAll(From<StoreThumbnail>("Cache")).map(\.url) == ["new.png"])
        await stack.close()
        #expect(try storeValue(main, "SELECT count(*) FROM sqlite_master WHERE name = 'Thumbnail'") == "0")
    }
}

@Entity(name: "StoresRecord")
struct ProbeStoresRecord {
    var step: Int = 0
    var half: Int = 0
}

/// A kill -9 of a process whose transactions each write to two stores (`StrataProbe stores`).
@Suite("Several stores: kill -9", .timeLimit(.minutes(3)))
struct SeveralStoresKillTests {
    /// The transactions a store holds whole, after checking that it holds no part of one.
    func wholeTransactions(_ path: String) throws -> Int {
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
        let rows = try #require(Int(try storeValue(path, "SELECT count(*) FROM StoresRecord") ?? ""))
        #expect(try storeValue(path, "SELECT count(*) FROM (SELECT step FROM StoresRecord GROUP BY step HAVING count(*) <> 2)") == "0")
        let steps = try #require(Int(try storeValue(path, "SELECT count(DISTINCT step) FROM StoresRecord") ?? ""))
        #expect(rows == steps * 2)
        if steps > 0 { #expect(try storeValue(path, "SELECT max(step) FROM StoresRecord") == "\(steps - 1)") }
        // The store's history is in the same file and commits with it: one recorded transaction per
        // transaction the store holds, never one more or one less.
        #expect(try storeValue(path, "SELECT count(*) FROM strata_history") == "\(steps)")
        return steps
    }

    @Test("each store keeps every transaction whole with its history; the main store may hold one more than the other", arguments: [40, 150, 400])
    func killedDuringCommits(after commits: Int) async throws {
        let directory = try TemporaryDirectory()
        let killed = try await runProbe(["stores", directory.url.path, "100000"]) { line in line == "committed \(commits)" }
        #expect(killed.process.terminationReason == .uncaughtSignal, "the probe was not killed: \(killed.lines.suffix(3))")
        let main = try wholeTransactions(directory.path("main.sqlite"))
        let other = try wholeTransactions(directory.path("other.sqlite"))
        #expect(main >= commits && other >= commits, "an acknowledged transaction was lost: \(main), \(other)")
        // SQLite commits the main database first, then the attached one: a kill between the two leaves
        // the main store one transaction ahead, never behind.
        #expect(main - other == 0 || main - other == 1, "main \(main), other \(other)")
        // The stack opens again and goes on, with IDs above those of both stores.
        let schema = Schema("S1", ProbeStoresRecord.self).configuration("Other", ProbeStoresRecord.self)
            .configuration(nil, ProbeStoresRecord.self)
        let stack = try await DataStack(
            schema,
            storages: [
                SQLiteStore(path: directory.path("main.sqlite")),
                SQLiteStore(path: directory.path("other.sqlite")).configuration("Other"),
            ])
        try await stack.perform { tx in
            for configuration in [nil, "Other"] as [String?] { try tx.create(Into<ProbeStoresRecord>(configuration)) { $0.step = -1 } }
        }
        let ids = try await stack.fetchIDs(From<ProbeStoresRecord>())
        #expect(Set(ids.map(\.rawValue)).count == ids.count)
        #expect(ids.count == (main + other) * 2 + 2)
        // The reopened stack records the history the files keep, each store in its own.
        let token = try #require(try await stack.currentHistoryToken())
        #expect(token[nil] == Int64(main + 1) && token["Other"] == Int64(other + 1))
        await stack.close()
    }
}

/// Whether another connection can take the write lock of the database at `path` right now.
func canTakeWriteLock(_ path: String) throws -> Bool {
    var options = Connection.Options()
    options.busyTimeoutMilliseconds = 0
    let other = try Connection(path: path, options: options)
    defer { other.close() }
    let began = Result<Void, any Error> { try other.execute("BEGIN IMMEDIATE") }
    switch began {
    case .success:
        try other.execute("ROLLBACK")
        return true
    case .failure(let error):
        if (error as? StrataError)?.code == .busy { return false }
        throw error
    }
}
