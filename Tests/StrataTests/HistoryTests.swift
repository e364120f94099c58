import CSQLite
import Foundation
import Testing
@testable import Strata

/// Two stacks that record history on the same file, `two.sqlite` in `directory`, and its path.
func twoHistoryStacks(_ directory: TemporaryDirectory) async throws -> (first: DataStack, second: DataStack, path: String) {
    let path = directory.path("two.sqlite")
    return (try await makeHistoryStack(path: path).0, try await makeHistoryStack(path: path).0, path)
}

/// A stack that records its history, on a file or in memory.
func makeHistoryStack(
    _ kind: StoreKind = .inMemory, options: HistoryOptions = HistoryOptions(), schema: Schema = testSchema,
    path: String? = nil
) async throws -> (DataStack, TemporaryDirectory?) {
    var configuration = DataStack.Configuration()
    configuration.history = options
    if let path {
        return (try await DataStack(schema, storage: SQLiteStore(path: path), configuration: configuration), nil)
    }
    return try await makeStack(kind, schema: schema, configuration: configuration)
}

@Suite("Persistent history", .timeLimit(.minutes(1)))
struct HistoryTests {
    @Test("every commit is recorded with its token, date, author, context and changes", arguments: StoreKind.allCases)
    func recordsCommits(kind: StoreKind) async throws {
        let (stack, directory) = try await makeHistoryStack(kind, options: HistoryOptions(contextName: "app"))
        defer { withExtendedLifetime(directory) {} }
        let before = Date()
        let ada = try await stack.perform(author: "importer") { tx in
            try tx.create(Into<Person>()) { $0.name = "Ada"; $0.age = 36 }
        }
        try await stack.perform(author: "editor") { tx in _ = try tx.edit(ada) { $0.age = 37 } }
        try await stack.perform { tx in try tx.delete(ada) }
        let history = try await stack.history()
        try #require(history.count == 3)
        #expect(history.map(\.token.rawValue) == [1, 2, 3])
        #expect(history.map(\.author) == ["importer", "editor", nil])
        #expect(history.allSatisfy { $0.contextName == "app" })
        #expect(history.allSatisfy { $0.date >= before.addingTimeInterval(-1) && $0.date <= Date().addingTimeInterval(1) })
        #expect(history[0].changes.insertedIDs(Person.self) == [ada.id])
        #expect(history[1].changes.updatedIDs(Person.self) == [ada.id])
        #expect(history[1].changes.changedFields(of: ada.id) == ["age"])
        #expect(history[2].changes.deletedIDs(Person.self) == [ada.id])
        #expect(history[2].changes.preservedValues(of: ada.id) == nil)
        #expect(try await stack.currentHistoryToken() == HistoryToken(rawValue: 3))
    }

    @Test("the author comes from the task-local value when perform does not name one, and child tasks inherit it")
    func authorFromTaskLocal() async throws {
        let (stack, _) = try await makeHistoryStack()
        try await TransactionAuthor.$current.withValue("request-42") {
            try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "A" } }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "B" } } }
                try await group.waitForAll()
            }
            // The parameter wins over the task-local value.
            try await stack.perform(author: "override") { tx in _ = try tx.create(Into<Person>()) { $0.name = "C" } }
            // An unsafe transaction's commit is recorded with the committing task's author.
            try await stack.withUnsafeTransaction { unsafe in
                try await unsafe.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "D" } }
                try await unsafe.commit()
            }
        }
        try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "E" } }
        let authors = try await stack.history().map(\.author)
        #expect(authors == ["request-42", "request-42", "override", "request-42", nil])
    }

    @Test("a bulk insert is one change row per run of IDs; a rolled-back or empty transaction records nothing")
    func bulkAndRollback() async throws {
        let (stack, directory) = try await makeHistoryStack(.file)
        defer { withExtendedLifetime(directory) {} }
        let ids = try await stack.perform { tx in
            try (0..<1_000).map { index in try tx.create(Into<Person>()) { $0.name = "P\(index)" }.id }
        }
        await #expect(throws: CancellationError.self) {
            try await stack.perform { tx in
                _ = try tx.create(Into<Person>()) { $0.name = "lost" }
                throw CancellationError()
            }
        }
        try await stack.perform { _ in }
        let history = try await stack.history()
        try #require(history.count == 1)
        #expect(history[0].changes.insertedIDs(Person.self) == Set(ids))
        // One row, whose changes are one run of IDs.
        #expect(try storeValue(stack.path, "SELECT count(*) FROM strata_history") == "1")
        let first = try #require(ids.first?.rawValue)
        #expect(try storeValue(stack.path, "SELECT changes FROM strata_history") == "e6:Person i\(first)-\(first + 999)")
    }

    @Test("deletions keep the preserved fields' last values, on every delete path")
    func preservedValues() async throws {
        let options = HistoryOptions(preservingOnDeletion: [.field(\Person.name), .field(\Person.email), .field(\Owner.name)])
        let (stack, _) = try await makeHistoryStack(
            options: options, schema: Schema("V1", Person.self, Owner.self, Critter.self, Shelf.self, Volume.self, Reader.self))
        let (ada, bob, cyd, owner, critter) = try await stack.perform { tx in
            let ada = try tx.create(Into<Person>()) { $0.name = "Ada"; $0.email = "ada@example.com" }
            let bob = try tx.create(Into<Person>()) { $0.name = "Bob"; $0.age = 99 }
            let cyd = try tx.create(Into<Person>()) { $0.name = "Cyd"; $0.age = 99 }
            let owner = try tx.create(Into<Owner>()) { $0.name = "Olga" }
            let critter = try tx.create(Into<Critter>()) { $0.name = "Rex"; $0.owner = owner.id }
            return (ada, bob, cyd, owner, critter)
        }
        try await stack.perform { tx in try tx.delete(ada) }
        try await stack.perform { tx in _ = try tx.deleteAll(From<Person>().where(\.age == 99)) }
        try await stack.perform { tx in try tx.delete(owner) }     // cascades to the critter
        let history = try await stack.history()
        try #require(history.count == 4)
        #expect(history[1].changes.preservedValues(of: ada.id) == ["name": .text("Ada"), "email": .text("ada@example.com")])
        #expect(history[2].changes.deletedIDs(Person.self) == [bob.id, cyd.id])
        #expect(history[2].changes.preservedValues(of: bob.id) == ["name": .text("Bob"), "email": .null])
        #expect(history[2].changes.preservedValues(of: cyd.id)?["name"] == .text("Cyd"))
        #expect(history[3].changes.preservedValues(of: owner.id) == ["name": .text("Olga")])
        #expect(history[3].changes.deletedIDs(Critter.self) == [critter.id])
        #expect(history[3].changes.preservedValues(of: critter.id) == nil)
        // The change set the commit published carries them too.
        let changes = try await stack.perform { tx in
            let person = try tx.create(Into<Person>()) { $0.name = "Dee" }
            try tx.delete(person)
            return tx.hasChanges
        }
        #expect(!changes, "an object created and deleted in one transaction leaves no trace")
    }

    @Test("a preserved field that is not a stored field is refused when the stack opens")
    func invalidPreservedField() async throws {
        await expectStrataError(.invalidArgument) {
            try await makeHistoryStack(
                options: HistoryOptions(preservingOnDeletion: [.field(\Owner.critters)]),
                schema: Schema("V1", Owner.self, Critter.self, Shelf.self, Volume.self, Reader.self))
        }
        await expectStrataError(.invalidArgument) {
            try await makeHistoryStack(options: HistoryOptions(preservingOnDeletion: [.field(\Owner.name)]))
        }
    }

    @Test("filters: after a token, by author, excluding authors, by entity, with a limit")
    func filters() async throws {
        let (stack, _) = try await makeHistoryStack()
        try await stack.perform(author: "a") { tx in _ = try tx.create(Into<Person>()) { $0.name = "1" } }
        try await stack.perform(author: "b") { tx in _ = try tx.create(Into<Counter>()) { $0.key = "k" } }
        try await stack.perform(author: "a") { tx in
            _ = try tx.create(Into<Person>()) { $0.name = "2" }
            _ = try tx.create(Into<Counter>()) { $0.key = "l" }
        }
        try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "3" } }
        #expect(try await stack.history(after: HistoryToken(rawValue: 2)).map(\.token.rawValue) == [3, 4])
        #expect(try await stack.history(authors: ["a"]).map(\.token.rawValue) == [1, 3])
        #expect(try await stack.history(excludingAuthors: ["a"]).map(\.token.rawValue) == [2, 4])
        let counters = try await stack.history(entities: [Counter.self])
        #expect(counters.map(\.token.rawValue) == [2, 3])
        #expect(counters[1].changes.changedEntityNames == ["Counter"], "only the filtered entities' changes")
        #expect(try await stack.history(limit: 2).map(\.token.rawValue) == [1, 2])
        #expect(try await stack.history(limit: 0).isEmpty)
        await expectStrataError(.invalidArgument) { try await stack.history(limit: -1) }
        #expect(try await stack.history(after: HistoryToken(rawValue: 4)).isEmpty)
    }

    @Test("purging before a token or a date removes older history; reading after a purged token throws; tokens are never reused")
    func purge() async throws {
        let (stack, directory) = try await makeHistoryStack(.file)
        defer { withExtendedLifetime(directory) {} }
        for index in 0..<5 {
            try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "\(index)" } }
        }
        #expect(try await stack.purgeHistory(before: HistoryToken(rawValue: 3)) == 2)
        #expect(try await stack.history().map(\.token.rawValue) == [3, 4, 5])
        #expect(try await stack.history(after: HistoryToken(rawValue: 2)).map(\.token.rawValue) == [3, 4, 5])
        await expectStrataError(.historyExpired) { try await stack.history(after: HistoryToken(rawValue: 1)) }
        #expect(try await stack.purgeHistory(before: Date().addingTimeInterval(60)) == 3)
        #expect(try await stack.history().isEmpty)
        #expect(try await stack.currentHistoryToken() == HistoryToken(rawValue: 5))
        try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "after" } }
        #expect(try await stack.history().map(\.token.rawValue) == [6])
        #expect(try await stack.purgeHistory(before: Date(timeIntervalSince1970: 0)) == 0)
        #expect(try storeValue(stack.path, "SELECT count(*) FROM strata_history") == "1")
        #expect(try storeValue(stack.path, "SELECT count(*) FROM strata_history_value") == "0")
    }

    @Test("tokens of one store are Codable as bare numbers, tokens of several as objects keyed by configuration")
    func tokenCoding() throws {
        let token = HistoryToken(rawValue: 42)
        let data = try JSONEncoder().encode(token)
        #expect(String(decoding: data, as: UTF8.self) == "42")
        #expect(try JSONDecoder().decode(HistoryToken.self, from: data) == token)
        #expect(token[nil] == 42 && token["Cache"] == nil)
        let several = HistoryToken(positions: ["": 3, "Cache": 5])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let severalData = try encoder.encode(several)
        #expect(String(decoding: severalData, as: UTF8.self) == #"{"":3,"Cache":5}"#)
        #expect(try JSONDecoder().decode(HistoryToken.self, from: severalData) == several)
        // A token of several stores has no single number: round-tripping one through rawValue would
        // apply one store's position to another.
        #expect(several.rawValue == nil && several["Cache"] == 5 && HistoryToken(positions: ["Cache": 5]).rawValue == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(HistoryToken.self, from: Data("-5".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(HistoryToken.self, from: Data(#"{"Cache":-7}"#.utf8)) }
        #expect(HistoryToken(positions: ["Cache": -7])["Cache"] == 0 && HistoryToken(rawValue: -1).rawValue == 0)
        #expect(several.description == "HistoryToken(default: 3, Cache: 5)")
    }

    @Test("a token read from one file does not apply to a file made anew at the same path: that one is read from its start")
    func tokenOfAnotherFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("remade.sqlite")
        let first = try await makeHistoryStack(path: path).0
        for name in ["a", "b", "c"] { try await first.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = name } } }
        let stored = try JSONEncoder().encode(try #require(try await first.currentHistoryToken()))
        await first.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let remade = try await makeHistoryStack(path: path).0
        try await remade.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "new" } }
        let token = try JSONDecoder().decode(HistoryToken.self, from: stored)
        #expect(token.rawValue == 3)
        // Position 3 of the old file: the new file's first transaction would be skipped by a bare number.
        #expect(try await remade.history(after: token).map(\.token.rawValue) == [1])
        #expect(try await remade.history(after: HistoryToken(rawValue: 3)).isEmpty)
    }

    @Test("a store without history throws historyUnavailable; a store with history is recorded by every stack")
    func availability() async throws {
        let (plain, _) = try await makeStack()
        #expect(!plain.recordsHistory)
        await expectStrataError(.historyUnavailable) { try await plain.history() }
        await expectStrataError(.historyUnavailable) { try await plain.currentHistoryToken() }
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let recording = try await makeHistoryStack(path: path).0
        try await recording.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "first" } }
        await recording.close()
        let later = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        #expect(later.recordsHistory)
        try await later.perform(author: "later") { tx in _ = try tx.create(Into<Person>()) { $0.name = "second" } }
        #expect(try await later.history().map(\.author) == [nil, "later"])
    }

    @Test("a stack already open when another turns the history on records its next commits too")
    func historyTurnedOnWhileOpen() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let widget = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        try await widget.perform(author: "widget") { tx in _ = try tx.create(Into<Person>()) { $0.name = "before" } }
        #expect(!widget.recordsHistory)
        let app = try await makeHistoryStack(path: path).0
        try await widget.perform(author: "widget") { tx in _ = try tx.create(Into<Person>()) { $0.name = "after" } }
        #expect(widget.recordsHistory)
        try await app.perform(author: "app") { tx in _ = try tx.create(Into<Person>()) { $0.name = "app" } }
        // The widget's commit before the history existed is not in it; every one after is.
        #expect(try await app.history().map(\.author) == ["widget", "app"])
        #expect(try await widget.history().map(\.author) == ["widget", "app"])
        await widget.close()
        await app.close()
    }

    @Test("a commit and its history are one SQLite transaction: a failing commit records neither")
    func atomicWithData() async throws {
        let (stack, directory) = try await makeHistoryStack(.file)
        defer { withExtendedLifetime(directory) {} }
        try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "a"; $0.email = "x@example.com" } }
        await expectStrataError(.uniqueConstraint) {
            try await stack.perform { tx in
                _ = try tx.create(Into<Person>()) { $0.name = "b" }
                _ = try tx.create(Into<Person>()) { $0.name = "c"; $0.email = "x@example.com" }
            }
        }
        #expect(try await stack.history().count == 1)
        #expect(try await stack.fetchCount(From<Person>()) == 1)
    }

    @Test("another stack's commits reach the writer as exact change sets read from the history, without its own")
    func externalChangesFromHistory() async throws {
        let directory = try TemporaryDirectory()
        let (first, second, _) = try await twoHistoryStacks(directory)
        #expect(try await first.writer.externalChanges() == nil)
        let own = try await first.perform { tx in try tx.create(Into<Person>()) { $0.name = "own" }.id }
        let other = try await second.perform { tx in try tx.create(Into<Person>()) { $0.name = "other" }.id }
        let edited = try await second.perform { tx in try tx.edit(other) { $0.age = 5 }.id }
        let changes = try #require(try await first.writer.externalChanges())
        #expect(changes.isExternal && !changes.isUnknown)
        #expect(changes.insertedIDs(Person.self).map(\.rawValue) == [other.rawValue])
        #expect(!changes.insertedIDs(Person.self).map(\.rawValue).contains(own.rawValue))
        #expect(edited == other)
        #expect(try await first.writer.externalChanges() == nil)
        // The first stack's own commit after another's, and then the other's: only the other's.
        try await first.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "own 2" } }
        try await second.perform { tx in try tx.delete(other) }
        let later = try #require(try await first.writer.externalChanges())
        #expect(later.deletedIDs(Person.self).map(\.rawValue) == [other.rawValue])
        #expect(later.insertedIDs(Person.self).isEmpty)
    }

    @Test("several commits of another stack read in one check keep what each did: created then edited or deleted stays edited or deleted")
    func externalCommitsKeepEveryChange() async throws {
        let directory = try TemporaryDirectory()
        let (first, second, _) = try await twoHistoryStacks(directory)
        #expect(try await first.writer.externalChanges() == nil)
        // An observer of the first stack may read the new object between the two commits: netting
        // them out ("inserted" only, or nothing) would leave it with the old state.
        let edited = try await second.perform { tx in try tx.create(Into<Person>()) { $0.name = "x" }.id }
        try await second.perform { tx in _ = try tx.edit(edited) { $0.age = 5 } }
        let removed = try await second.perform { tx in try tx.create(Into<Person>()) { $0.name = "y" }.id }
        try await second.perform { tx in try tx.delete(removed) }
        let changes = try #require(try await first.writer.externalChanges())
        #expect(!changes.isUnknown)
        let people = changes.changes(for: Person.self)
        #expect(people.inserted == [edited.rawValue, removed.rawValue])
        #expect(people.updated[edited.rawValue] == ["age"])
        #expect(people.deleted == [removed.rawValue])
    }

    @Test("a stack that commits while nothing observes it keeps a bounded set of its own tokens; the next check then reports unknown changes")
    func ownTokensBounded() async throws {
        let directory = try TemporaryDirectory()
        let (first, second, _) = try await twoHistoryStacks(directory)
        #expect(try await first.writer.externalChanges() == nil)
        try await second.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "other" } }
        // From here on, each of the first stack's tokens is one it must skip when it next reads the
        // history: before, it kept every one of them, for as long as no scan ran (no observer).
        for index in 0..<(HistoryRecorder.ownLimit + 100) {
            try await first.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "own \(index)" } }
        }
        #expect(await first.writer.ownHistoryTokenCount <= HistoryRecorder.ownLimit)
        let changes = try #require(try await first.writer.externalChanges())
        #expect(changes.isUnknown)
        // The next scan starts where that one ended: exact changes again.
        try await second.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "later" } }
        let later = try #require(try await first.writer.externalChanges())
        #expect(!later.isUnknown && later.insertedIDs(Person.self).count == 1)
    }

    @Test("a stack that only reads sees a history another stack turned on after it opened")
    func readOnlyStackSeesHistoryTurnedOnLater() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let widget = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        #expect(!widget.recordsHistory)
        let app = try await makeHistoryStack(path: path).0
        try await app.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "Ada" } }
        // Before, only a write made the widget look: its reads threw historyUnavailable, saying the
        // store kept no history.
        let transactions = try await widget.history()
        #expect(transactions.count == 1)
        #expect(widget.recordsHistory)
        #expect(try await widget.currentHistoryToken() == transactions.last?.token)
        // A stack whose store really keeps none still says so.
        let plain = try await DataStack(testSchema, storage: SQLiteStore(path: directory.path("plain.sqlite")))
        let error = await #expect(throws: StrataError.self) { try await plain.history() }
        #expect(error?.code == .historyUnavailable)
    }

    @Test("another stack's commit whose history cannot be read is reported as an unknown change, not lost")
    func unreadableHistoryOfOthers() async throws {
        let directory = try TemporaryDirectory()
        let (first, second, path) = try await twoHistoryStacks(directory)
        #expect(try await first.writer.externalChanges() == nil)
        try await second.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "other" } }
        // Another program breaks the history table before the first stack reads it.
        var raw: OpaquePointer?
        #expect(sqlite3_open(path, &raw) == SQLITE_OK)
        defer { sqlite3_close(raw) }
        #expect(sqlite3_exec(raw, "ALTER TABLE strata_history RENAME TO strata_history_moved", nil, nil, nil) == SQLITE_OK)
        // Before, the check threw (the monitor only logged it) after taking the new data_version: the
        // commit was never reported, and publishers kept their old snapshots.
        let changes = try #require(try await first.writer.externalChanges())
        #expect(changes.isUnknown)
        #expect(try await first.writer.externalChanges() == nil)
    }
}

@Suite("History codec")
struct HistoryCodecTests {
    @Test("random change sets survive encoding, with any entity name, and a filter keeps only its entities")
    func roundTrip() {
        var generator = SeededGenerator(state: 14)
        let names = ["Person", "a b", "e5:x", "Ünïcode", "semi;colon", "x"]
        for _ in 0..<300 {
            // As a transaction makes them: new objects get fresh IDs (created objects may be deleted
            // again), stored objects (IDs 1–60) are edited or deleted, and a deleted one is not edited.
            var changes = ChangeSet()
            var nextID: Int64 = 100
            var deleted: Set<String> = []
            for _ in 0..<Int.random(in: 1...40, using: &generator) {
                let entity = names.randomElement(using: &generator)!
                let id = Int64.random(in: 1...60, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0:
                    nextID += Int64.random(in: 1...2, using: &generator)
                    changes.recordInsert(entity: entity, id: nextID)
                case 1:
                    changes.recordDelete(entity: entity, id: nextID)
                case 2:
                    guard !deleted.contains("\(entity)#\(id)") else { continue }
                    changes.recordUpdate(entity: entity, id: id, fields: Set(["age", "name", "x1"].shuffled(using: &generator).prefix(2)))
                default:
                    deleted.insert("\(entity)#\(id)")
                    changes.recordDelete(entity: entity, id: id)
                }
            }
            let (text, entities) = HistoryCodec.encode(changes)
            let decoded = HistoryCodec.decode(text)
            #expect(decoded.entities.filter { !$0.value.isEmpty } == changes.entities.filter { !$0.value.isEmpty }, "\(text)")
            for name in changes.changedEntityNames {
                #expect(entities.contains(HistoryCodec.needle(name)))
            }
            let only = HistoryCodec.decode(text, only: ["a b"])
            #expect(only.changedEntityNames.isSubset(of: ["a b"]))
            #expect(only.entities["a b"] == changes.entities["a b"].flatMap { $0.isEmpty ? nil : $0 })
        }
    }
}

@Suite("History and migrations", .timeLimit(.minutes(1)))
struct HistoryMigrationTests {
    @Test("a migration keeps the history; commits after it continue the tokens under the new names")
    func migrationKeepsHistory() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("migrated.sqlite")
        var configuration = DataStack.Configuration()
        configuration.history = HistoryOptions()
        let old = try await DataStack(migrationV1, storage: SQLiteStore(path: path), configuration: configuration)
        try await old.perform(author: "v1") { tx in _ = try tx.create(Into<MV1.Author>()) { $0.fullName = "Ada"; $0.email = "a@x" } }
        await old.close()
        let stack = try await DataStack(
            SchemaHistory(migrationV1, migrationV2, steps: [stepV1V2]), storage: SQLiteStore(path: path),
            configuration: configuration)
        try await stack.perform(author: "v2") { tx in _ = try tx.create(Into<MV2.Writer>()) { $0.name = "Bob" } }
        let history = try await stack.history()
        #expect(history.map(\.author) == ["v1", "v2"])
        #expect(history[0].changes.changedEntityNames == ["Author"], "the name the commit was made under")
        #expect(history[1].changes.changedEntityNames == ["Writer"])
        #expect(history.map(\.token.rawValue) == [1, 2])
        await stack.close()
    }
}
