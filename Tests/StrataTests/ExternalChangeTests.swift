import Foundation
import Logging
@testable import Strata
import Testing

/// The entity `strata-probe write` commits (its `ProbeItem`, declared alike so the schemas match).
@Entity
struct ProbeItem {
    var name: String = ""
    var age: Int = 0
}

/// Commits of other connections (another `DataStack` on the same file, another process) reach
/// publishers and ``DataStack/changes()`` through the store watcher. Every observed stack polls once an
/// hour, and each test waits for the monitor's first checks to end before the other side commits: what
/// reaches the observer then came through the watch.
@Suite("External changes", .timeLimit(.minutes(1)))
struct ExternalChangeTests {
    static let probeSchema = Schema("V1", ProbeItem.self)

    /// A configuration whose poll never runs within a test.
    static var watchOnly: DataStack.Configuration {
        var configuration = DataStack.Configuration()
        configuration.externalChangePollInterval = .seconds(3600)
        return configuration
    }

    /// The running monitor of a stack, once its first checks are over.
    func settledMonitor(_ stack: DataStack) async throws -> ExternalChangeMonitor {
        let monitor = try #require(stack.observation.monitor, "no external-change monitor runs")
        await monitor.settled()
        return monitor
    }

    @Test("a commit of a second stack on the same file reaches a publisher and the changes stream")
    func secondStack() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let observed = try await DataStack(testSchema, storage: SQLiteStore(path: path), configuration: Self.watchOnly)
        let other = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        var counts = observed.countPublisher(From<Person>()).makeAsyncIterator()
        var changes = observed.changes().makeAsyncIterator()
        #expect(try await counts.next() == 0)
        let monitor = try await settledMonitor(observed)
        #expect(monitor.watcher?.isRunning == true)

        try await observed.perform { tx in try tx.create(Into<Person>()) { $0.name = "local" } }
        let local = try #require(await changes.next())
        #expect(!local.isExternal && !local.isUnknown)
        #expect(local.insertedIDs(Person.self).count == 1)

        try await other.perform { tx in try tx.create(Into<Person>()) { $0.name = "outside" } }
        var count = try #require(try await counts.next())
        while count < 2 { count = try #require(try await counts.next()) }
        #expect(count == 2)
        let external = try #require(await changes.next())
        #expect(external.isExternal && external.isUnknown)
        #expect(external.changedEntityNames.isEmpty)

        // The stack's own commit after the outside one comes after it in the stream.
        try await observed.perform { tx in try tx.create(Into<Person>()) { $0.name = "after" } }
        var next = try #require(await changes.next())
        while next.isExternal { next = try #require(await changes.next()) }
        #expect(next.insertedIDs(Person.self).count == 1)
        // The monitor tells the stack's own writes by this count, which external change sets leave alone.
        #expect(observed.feed.localCommitCount == 2)
        await other.close()
        await observed.close()
    }

    @Test("commits of other processes reach a list publisher, also after the other process has closed its store")
    func otherProcess() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("probe.sqlite")
        let observed = try await DataStack(Self.probeSchema, storage: SQLiteStore(path: path), configuration: Self.watchOnly)
        var lists = observed.listPublisher(From<ProbeItem>().orderBy(.ascending(\.age))).makeAsyncIterator()
        #expect(try await lists.next()?.count == 0)
        _ = try await settledMonitor(observed)

        // Each probe opens its own connections, commits one row per transaction, and closes them all.
        for (run, expected) in [(1, 3), (2, 6)] {
            async let probe = runProbe(["write", path, "3"])
            var list = try #require(try await lists.next())
            while list.count < expected { list = try #require(try await lists.next()) }
            #expect(list.count == expected, "run \(run)")
            let finished = try await probe
            #expect(finished.process.terminationStatus == 0)
            #expect(finished.lines.last == "wrote 3")
        }
        await observed.close()
    }

    @Test("the watch follows the WAL file when it is deleted and made anew")
    func walRecreated() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("watched.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let (events, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let watcher = try #require(StoreWatcher.start(path: path, logger: Logger(label: "test")) {
            continuation.yield()
            return .zero
        })
        var iterator = events.makeAsyncIterator()
        let wal = path + "-wal"
        for round in 0..<3 {
            #expect(FileManager.default.createFile(atPath: wal, contents: Data()))
            let handle = try #require(FileHandle(forWritingAtPath: wal), "round \(round)")
            try handle.write(contentsOf: Data("frame \(round)".utf8))
            try handle.close()
            #expect(await iterator.next() != nil, "round \(round)")
            try FileManager.default.removeItem(atPath: wal)
        }
        // The database file itself is watched too (checkpoints write it).
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data("page".utf8))
        try handle.close()
        #expect(await iterator.next() != nil)
        watcher.stop()
        await watcher.stopped()
        #expect(!watcher.isRunning)
    }

    @Test("closing the stack stops the watcher's thread")
    func closeStopsWatcher() async throws {
        let directory = try TemporaryDirectory()
        let observed = try await DataStack(
            testSchema, storage: SQLiteStore(path: directory.path("closed.sqlite")), configuration: Self.watchOnly)
        var counts = observed.countPublisher(From<Person>()).makeAsyncIterator()
        #expect(try await counts.next() == 0)
        let watcher = try #require(try await settledMonitor(observed).watcher)
        #expect(watcher.isRunning)
        await observed.close()
        #expect(!watcher.isRunning)
        #expect(observed.observation.monitor == nil)
    }

    @Test("the watch runs only while an observer or a changes stream is alive")
    func watchOnlyWhileListened() async throws {
        let directory = try TemporaryDirectory()
        let observed = try await DataStack(
            testSchema, storage: SQLiteStore(path: directory.path("listened.sqlite")), configuration: Self.watchOnly)
        #expect(observed.observation.monitor == nil)
        var watcher: StoreWatcher?
        do {
            var changes = observed.changes().makeAsyncIterator()
            watcher = try await settledMonitor(observed).watcher
            try await observed.perform { tx in try tx.create(Into<Person>()) }
            #expect(await changes.next()?.isExternal == false)
        }
        // The stream and its iterator are gone: so is the monitor, and the watch's thread ends.
        #expect(observed.observation.monitor == nil)
        let stopped = try #require(watcher)
        await stopped.stopped()
        #expect(!stopped.isRunning)

        let consumer = Task {
            for try await count in observed.countPublisher(From<Person>()) where count == 1 { return }
        }
        try await consumer.value
        #expect(observed.observation.monitor == nil)
        await observed.close()
    }

    @Test("an in-memory store is polled, not watched; a nil poll interval turns noticing off")
    func inMemoryAndOff() async throws {
        let (memory, _) = try await makeStack()
        var counts = memory.countPublisher(From<Person>()).makeAsyncIterator()
        #expect(try await counts.next() == 0)
        let monitor = try await settledMonitor(memory)
        #expect(monitor.watcher == nil)
        #expect(monitor.checkCount > 0)

        var configuration = DataStack.Configuration()
        configuration.externalChangePollInterval = nil
        let directory = try TemporaryDirectory()
        let off = try await DataStack(testSchema, storage: SQLiteStore(path: directory.path("off.sqlite")), configuration: configuration)
        var offCounts = off.countPublisher(From<Person>()).makeAsyncIterator()
        #expect(try await offCounts.next() == 0)
        #expect(off.observation.monitor == nil)
        var changes = off.changes().makeAsyncIterator()
        try await off.perform { tx in try tx.create(Into<Person>()) }
        #expect(await changes.next()?.isExternal == false)
        await off.close()
    }

    @Test("a closed stack's changes stream ends")
    func streamEndsOnClose() async throws {
        let (stack, _) = try await makeStack()
        let changes = stack.changes()
        try await stack.perform { tx in try tx.create(Into<Person>()) }
        await stack.close()
        var received: [ChangeSet] = []
        for await change in changes { received.append(change) }
        #expect(received.count == 1)
        #expect(stack.observation.monitor == nil)
        var afterClose = stack.changes().makeAsyncIterator()
        #expect(await afterClose.next() == nil)
    }
}
