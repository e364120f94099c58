import Foundation
import Testing
@testable import Strata

// Entities that import, and the sources they import from.

struct AuthorSource: Sendable {
    let key: String
    let name: String
}

struct BookSource: Sendable {
    let isbn: String
    let title: String
    let authorKey: String?
}

struct NoteSource: Sendable {
    let text: String
    var skip = false
}

struct ImportFailure: Error, Equatable {
    let reason: String
}

@Entity struct ImportedAuthor {
    @Field(.unique) var key: String = ""
    var name: String = ""
    var revisions: Int = 0
}

@Entity struct ImportedBook {
    @Field(.unique) var isbn: String = ""
    var title: String = ""
    @Relationship var author: ImportedAuthor.ID?
}

@Entity struct ImportedNote {
    var text: String = ""
    var created: Int = 0
}

@Entity struct Rate {
    @Field(.unique) var code: String = ""
    var value: Double = 0
    var note: String = ""
}

extension ImportedAuthor: ImportableUniqueObject {
    static var uniqueIDKeyPath: WritableKeyPath<ImportedAuthor, String> { \.key }

    static func uniqueID(from source: AuthorSource, in transaction: Transaction) -> String? {
        source.key.isEmpty ? nil : source.key
    }

    func shouldUpdate(from source: AuthorSource, in transaction: Transaction) -> Bool {
        source.name != "(keep)"
    }

    mutating func update(from source: AuthorSource, in transaction: Transaction) throws {
        if source.name == "(fail)" { throw ImportFailure(reason: "bad name") }
        if name != source.name { revisions += 1 }
        name = source.name
    }
}

extension ImportedBook: ImportableUniqueObject {
    static var uniqueIDKeyPath: WritableKeyPath<ImportedBook, String> { \.isbn }

    static func uniqueID(from source: BookSource, in transaction: Transaction) -> String? { source.isbn }

    mutating func update(from source: BookSource, in transaction: Transaction) throws {
        title = source.title
        if let key = source.authorKey {
            author = try transaction.uniqueIDs(ImportedAuthor.self, \.key, for: [key])[key]
        }
    }
}

extension ImportedNote: ImportableObject {
    static func shouldInsert(from source: NoteSource, in transaction: Transaction) -> Bool { !source.skip }

    mutating func didInsert(from source: NoteSource, in transaction: Transaction) throws {
        if source.text == "boom" { throw ImportFailure(reason: "boom") }
        text = source.text
        created = try transaction.fetchCount(From<ImportedNote>())
    }
}

/// A unique importable with its own shouldInsert and didInsert.
@Entity struct ImportedTag {
    @Field(.unique) var name: String = ""
    var origin: String = ""
    var uses: Int = 0
}

extension ImportedTag: ImportableUniqueObject {
    static var uniqueIDKeyPath: WritableKeyPath<ImportedTag, String> { \.name }

    static func uniqueID(from source: String, in transaction: Transaction) -> String? { source.lowercased() }

    static func shouldInsert(from source: String, in transaction: Transaction) -> Bool { !source.hasPrefix("~") }

    mutating func didInsert(from source: String, in transaction: Transaction) {
        origin = source
        uses = 1
    }

    mutating func update(from source: String, in transaction: Transaction) { uses += 1 }
}

let importSchema = Schema("V1", ImportedAuthor.self, ImportedBook.self, ImportedNote.self, Rate.self, ImportedTag.self)

@Suite("Importing", .timeLimit(.minutes(1)))
struct ImportTests {
    @Test("plain imports create an object per source in order, skip what shouldInsert refuses, and hand back the change set")
    func plainImports() async throws {
        let stack = try await DataStack(importSchema)
        let sources = [NoteSource(text: "a"), NoteSource(text: "b", skip: true), NoteSource(text: "c")]
        let (result, changes) = try await stack.perform { tx in
            let result = try tx.importObjects(Into<ImportedNote>(), from: sources)
            return (result, tx.changeSet)
        }
        #expect(result.objects.map(\.text) == ["a", "c"])
        #expect(result.objects.map(\.created) == [0, 1])
        #expect(result.insertedIDs == result.objects.map(\.id) && result.skipped == 1)
        #expect(changes.insertedIDs(ImportedNote.self) == Set(result.insertedIDs))
        let one = try await stack.perform { tx in try tx.importObject(Into<ImportedNote>(), from: NoteSource(text: "d")) }
        #expect(one?.text == "d")
        let skipped = try await stack.perform { tx in try tx.importObject(Into<ImportedNote>(), from: NoteSource(text: "e", skip: true)) }
        #expect(skipped == nil)
        #expect(try await stack.fetchCount(From<ImportedNote>()) == 3)
    }

    @Test("unique imports update existing objects, create the rest, skip, keep unchanged ones, and let the last duplicate win")
    func uniqueImports() async throws {
        let stack = try await DataStack(importSchema)
        let (ada, bob) = try await stack.perform { tx in
            (try tx.create(Into<ImportedAuthor>()) { $0.key = "ada"; $0.name = "Ada" }.id,
             try tx.create(Into<ImportedAuthor>()) { $0.key = "bob"; $0.name = "Bob" }.id)
        }
        let sources = [
            AuthorSource(key: "cy", name: "Cy (first)"),   // superseded by the last "cy"
            AuthorSource(key: "ada", name: "Ada Lovelace"),   // updated
            AuthorSource(key: "", name: "nobody"),   // no key: skipped
            AuthorSource(key: "bob", name: "Bob"),   // unchanged
            AuthorSource(key: "dee", name: "(keep)"),   // new: shouldUpdate does not apply, created
            AuthorSource(key: "cy", name: "Cy"),   // created
        ]
        let (result, changes) = try await stack.perform { tx in
            let result = try tx.importUniqueObjects(Into<ImportedAuthor>(), from: sources)
            return (result, tx.changeSet)
        }
        #expect(result.objects.map(\.key) == ["ada", "bob", "dee", "cy"])
        #expect(result.objects.map(\.name) == ["Ada Lovelace", "Bob", "(keep)", "Cy"])
        #expect(result.updatedIDs == [ada] && result.updated.first?.fields == ["name", "revisions"])
        #expect(result.insertedIDs.count == 2 && result.unchanged == 1 && result.skipped == 1 && result.superseded == 1)
        #expect(changes.updatedIDs(ImportedAuthor.self) == [ada] && changes.insertedIDs(ImportedAuthor.self) == Set(result.insertedIDs))
        #expect(!changes.updatedIDs(ImportedAuthor.self).contains(bob))
        // shouldUpdate refuses: the object stays as it was and the source counts as skipped.
        let kept = try await stack.perform { tx in
            try tx.importUniqueObjects(Into<ImportedAuthor>(), from: [AuthorSource(key: "ada", name: "(keep)")])
        }
        #expect(kept.skipped == 1 && kept.objects.isEmpty)
        let stored = try await stack.fetchAll(From<ImportedAuthor>().orderBy(.ascending(\.key)))
        #expect(stored.map(\.name) == ["Ada Lovelace", "Bob", "Cy", "(keep)"])
        #expect(stored.map(\.revisions) == [1, 0, 1, 1])
    }

    @Test("unique imports look existing objects up a few hundred keys per query, not one query per source")
    func chunkedLookups() async throws {
        let lines = Locked<[String]>([])
        var configuration = DataStack.Configuration()
        configuration.statementTrace = { sql in lines.withLock { $0.append(sql) } }
        let stack = try await DataStack(importSchema, configuration: configuration)
        try await stack.perform { tx in
            for index in stride(from: 0, to: 1_200, by: 2) {
                try tx.create(Into<ImportedAuthor>()) { $0.key = "k\(index)"; $0.name = "old" }
            }
        }
        lines.withLock { $0.removeAll() }
        let sources = (0..<1_200).map { AuthorSource(key: "k\($0)", name: "new") }
        let result = try await stack.perform { tx in try tx.importUniqueObjects(Into<ImportedAuthor>(), from: sources) }
        #expect(result.insertedIDs.count == 600 && result.updated.count == 600)
        let lookups = lines.withLock { $0 }.filter { $0.hasPrefix("SELECT") && $0.contains("IN (") }
        #expect(lookups.count == 3, "\(lookups.count) lookups")
        #expect(try await stack.fetchCount(From<ImportedAuthor>().where(\.name == "new")) == 1_200)
    }

    @Test("books import after their authors and resolve each author's key; uniqueIDs resolves many keys at once")
    func relationshipsBetweenImports() async throws {
        let stack = try await DataStack(importSchema)
        let books = try await stack.perform { tx in
            try tx.importUniqueObjects(Into<ImportedAuthor>(), from: [AuthorSource(key: "ada", name: "Ada"), AuthorSource(key: "bob", name: "Bob")])
            return try tx.importUniqueObjects(Into<ImportedBook>(), from: [
                BookSource(isbn: "1", title: "Notes", authorKey: "ada"),
                BookSource(isbn: "2", title: "Engines", authorKey: "bob"),
                BookSource(isbn: "3", title: "Anonymous", authorKey: nil),
            ])
        }
        let ids = try await stack.perform { tx in try tx.uniqueIDs(ImportedAuthor.self, \.key, for: ["ada", "bob", "zed"]) }
        #expect(ids.count == 2)
        #expect(books.objects.map(\.author) == [ids["ada"], ids["bob"], nil])
        await expectStrataError(.invalidArgument) {
            try await stack.perform { tx in try tx.uniqueIDs(ImportedAuthor.self, \.name, for: ["Ada"]) }
        }
    }

    @Test("an error from the import code names the source's index and rolls the whole transaction back")
    func errorsNameTheSource() async throws {
        let stack = try await DataStack(importSchema)
        let failure = await #expect(throws: ImportError.self) {
            try await stack.perform { tx in
                try tx.importObjects(Into<ImportedNote>(), from: [NoteSource(text: "a"), NoteSource(text: "b"), NoteSource(text: "boom")])
            }
        }
        #expect(failure?.sourceIndex == 2 && failure?.entity == "ImportedNote")
        #expect(failure?.underlying as? ImportFailure == ImportFailure(reason: "boom"))
        #expect(failure?.description.contains("source 2 into ImportedNote") == true)
        #expect(try await stack.fetchCount(From<ImportedNote>()) == 0)
        // A unique-constraint error of Strata's is wrapped the same way, with its source.
        try await stack.perform { tx in _ = try tx.create(Into<ImportedAuthor>()) { $0.key = "taken" } }
        let unique = await #expect(throws: ImportError.self) {
            try await stack.perform { tx in
                try tx.importUniqueObjects(Into<ImportedAuthor>(), from: [AuthorSource(key: "new", name: "N"), AuthorSource(key: "x", name: "(fail)")])
            }
        }
        #expect(unique?.sourceIndex == 1)
        #expect(try await stack.fetchCount(From<ImportedAuthor>()) == 1)
    }

    @Test("insertAll inserts a value per source and returns the IDs in order; observers see every insert")
    func batchInsert() async throws {
        let stack = try await DataStack(importSchema)
        let counts = stack.countPublisher(From<ImportedNote>())
        var iterator = counts.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        let result = try await stack.perform { tx in
            try tx.insertAll(Into<ImportedNote>(), from: 0..<500) { index, note in note.text = "n\(index)" }
        }
        #expect(result.insertedIDs.count == 500)
        #expect(try await iterator.next() == 500)
        let notes = try await stack.fetchAll(From<ImportedNote>().orderBy(.ascending(\.id)))
        #expect(notes.map(\.id) == result.insertedIDs && notes.first?.text == "n0" && notes.last?.text == "n499")
    }

    @Test("upsertAll inserts new keys and updates existing ones as the policy says; the change set holds both")
    func batchUpsert() async throws {
        let stack = try await DataStack(importSchema)
        let (usd, eur) = try await stack.perform { tx in
            (try tx.create(Into<Rate>()) { $0.code = "USD"; $0.value = 1; $0.note = "base" }.id,
             try tx.create(Into<Rate>()) { $0.code = "EUR"; $0.value = 0.9; $0.note = "old" }.id)
        }
        let feed = [("USD", 1.0, "base"), ("EUR", 0.95, "new"), ("GBP", 0.8, "added")]
        let (all, changes) = try await stack.perform { tx in
            let result = try tx.upsertAll(Into<Rate>(), from: feed, uniqueBy: \.code) { row, rate in
                (rate.code, rate.value, rate.note) = row
            }
            return (result, tx.changeSet)
        }
        // USD changed nothing: it is unchanged, not skipped.
        #expect(all.insertedIDs.count == 1 && all.updatedIDs == [eur] && all.unchanged == 1 && all.skipped == 0)
        #expect(all.updated.first?.fields == ["value", "note"])
        #expect(changes.updatedIDs(Rate.self) == [eur] && changes.insertedIDs(Rate.self) == Set(all.insertedIDs))
        // Chosen fields only.
        let chosen = try await stack.perform { tx in
            try tx.upsertAll(Into<Rate>(), from: [("EUR", 0.99, "ignored")], uniqueBy: \.code, policy: .update(\Rate.value)) { row, rate in
                (rate.code, rate.value, rate.note) = row
            }
        }
        #expect(chosen.updated.first?.fields == ["value"])
        // Keep what exists.
        let keep = try await stack.perform { tx in
            try tx.upsertAll(Into<Rate>(), from: [("USD", 2.0, "x"), ("JPY", 150.0, "added")], uniqueBy: \.code, policy: .keepExisting) { row, rate in
                (rate.code, rate.value, rate.note) = row
            }
        }
        #expect(keep.skipped == 1 && keep.insertedIDs.count == 1)
        let rates = try await stack.fetchAll(From<Rate>().orderBy(.ascending(\.code)))
        #expect(rates.map(\.code) == ["EUR", "GBP", "JPY", "USD"])
        #expect(rates.map(\.value) == [0.99, 0.8, 150, 1])
        #expect(rates.map(\.note) == ["new", "added", "added", "base"])
        #expect(rates.last?.id == usd)
        // What upsertAll refuses.
        await expectStrataError(.invalidArgument) {
            try await stack.perform { tx in try tx.upsertAll(Into<Rate>(), from: [1], uniqueBy: \.note) { _, _ in } }
        }
        await expectStrataError(.invalidArgument) {
            try await stack.perform { tx in try tx.upsertAll(Into<ImportedBook>(), from: [1], uniqueBy: \.isbn) { _, _ in } }
        }
    }

    @Test("upsertAll applies a key given twice in order: inserted, then updated as the policy says; each source counts once")
    func upsertSameKeyTwice() async throws {
        let stack = try await DataStack(importSchema)
        let feed = [("NEW", 1.0, "first"), ("NEW", 2.0, "second")]
        let (chosen, changes) = try await stack.perform { tx in
            let result = try tx.upsertAll(Into<Rate>(), from: feed, uniqueBy: \.code, policy: .update(\Rate.value)) { row, rate in
                (rate.code, rate.value, rate.note) = row
            }
            return (result, tx.changeSet)
        }
        #expect(chosen.insertedIDs.count == 1 && chosen.updatedIDs == chosen.insertedIDs && chosen.skipped == 0 && chosen.superseded == 0)
        #expect(changes.insertedIDs(Rate.self) == Set(chosen.insertedIDs) && changes.updatedIDs(Rate.self).isEmpty)
        let rate = try #require(try await stack.fetchOne(From<Rate>().where(\.code == "NEW")))
        #expect(rate.value == 2 && rate.note == "first")
        let kept = try await stack.perform { tx in
            try tx.upsertAll(Into<Rate>(), from: [("ONE", 1.0, "first"), ("ONE", 2.0, "second")], uniqueBy: \.code, policy: .keepExisting) { row, rate in
                (rate.code, rate.value, rate.note) = row
            }
        }
        #expect(kept.insertedIDs.count == 1 && kept.skipped == 1)
        #expect(try await stack.fetchOne(From<Rate>().where(\.code == "ONE"))?.note == "first")
    }

    @Test("upsertAll tells an update from an insert whatever row an earlier insert of another table left behind")
    func upsertAfterOtherInserts() async throws {
        let stack = try await DataStack(importSchema)
        let eur = try await stack.perform { tx in try tx.create(Into<Rate>()) { $0.code = "EUR"; $0.value = 0.9 }.id }
        // Another table's inserts leave SQLite's last insert row ID at 2: the ID the upsert allocates next.
        try await stack.perform { tx in for index in 0..<2 { try tx.create(Into<ImportedNote>()) { $0.text = "n\(index)" } } }
        let (result, changes) = try await stack.perform { tx in
            let result = try tx.upsertAll(Into<Rate>(), from: [("EUR", 0.95)], uniqueBy: \.code) { row, rate in
                (rate.code, rate.value) = row
            }
            return (result, tx.changeSet)
        }
        #expect(result.insertedIDs.isEmpty && result.updatedIDs == [eur])
        #expect(changes.insertedIDs(Rate.self).isEmpty && changes.updatedIDs(Rate.self) == [eur])
        #expect(try await stack.fetchCount(From<Rate>()) == 1)
    }

    @Test("upsertAll tells inserts from updates when a trigger another program added changes other rows too")
    func upsertWithForeignTrigger() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("rates.sqlite")
        let eur = try await {
            let stack = try await DataStack(importSchema, storage: SQLiteStore(path: path))
            let eur = try await stack.perform { tx in
                let eur = try tx.create(Into<Rate>()) { $0.code = "EUR"; $0.value = 0.9 }.id
                for _ in 0..<3 { try tx.create(Into<ImportedNote>()) { $0.text = "audit" } }
                return eur
            }
            await stack.close()
            return eur
        }()
        // Each insert or update of a rate also updates the notes: the update hook sees four rows changed,
        // the last of them a note's.
        do {
            let connection = try Connection(path: path, options: Connection.Options())
            try connection.execute("CREATE TRIGGER rate_inserted AFTER INSERT ON Rate BEGIN UPDATE ImportedNote SET text = NEW.code; END")
            try connection.execute("CREATE TRIGGER rate_updated AFTER UPDATE ON Rate BEGIN UPDATE ImportedNote SET text = NEW.code; END")
        }
        let stack = try await DataStack(importSchema, storage: SQLiteStore(path: path))
        let (result, changes) = try await stack.perform { tx in
            let result = try tx.upsertAll(Into<Rate>(), from: [("EUR", 0.95), ("GBP", 0.8)], uniqueBy: \.code) { row, rate in
                (rate.code, rate.value) = row
            }
            return (result, tx.changeSet)
        }
        #expect(result.updatedIDs == [eur] && result.insertedIDs.count == 1 && result.skipped == 0)
        #expect(changes.updatedIDs(Rate.self) == [eur] && changes.insertedIDs(Rate.self) == Set(result.insertedIDs))
        let gbp = try await stack.fetchOne(From<Rate>().where(\.code == "GBP"))
        #expect(gbp?.id == result.insertedIDs.first && gbp?.value == 0.8)
        #expect(try await stack.fetchAll(From<ImportedNote>()).map(\.text) == ["GBP", "GBP", "GBP"])
    }

    @Test("upsertAll beside a trigger that writes one row of another table even when the upsert changes nothing: no phantom insert, no row moved")
    func upsertWithBeforeTrigger() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("rates.sqlite")
        let (eur, usd) = try await {
            let stack = try await DataStack(importSchema, storage: SQLiteStore(path: path))
            let ids = try await stack.perform { tx in
                (try tx.create(Into<Rate>()) { $0.code = "EUR"; $0.value = 0.9 }.id,
                 try tx.create(Into<Rate>()) { $0.code = "USD"; $0.value = 1 }.id)
            }
            await stack.close()
            return ids
        }()
        // A BEFORE INSERT trigger fires even when the upsert then keeps the existing row: the update
        // hook sees one row changed, a note whose row ID (1) is a rate's ID too.
        do {
            let connection = try Connection(path: path, options: Connection.Options())
            try connection.execute(
                "CREATE TRIGGER audit BEFORE INSERT ON Rate BEGIN INSERT INTO ImportedNote(id, text, created) VALUES (NULL, NEW.code, 0); END")
        }
        let stack = try await DataStack(importSchema, storage: SQLiteStore(path: path))
        let result = try await stack.perform { tx in
            try tx.upsertAll(Into<Rate>(), from: [("EUR", 0.5)], uniqueBy: \.code, policy: .keepExisting) { row, rate in
                (rate.code, rate.value) = row
            }
        }
        #expect(result.skipped == 1 && result.insertedIDs.isEmpty && result.updatedIDs.isEmpty)
        #expect(try await stack.fetchExisting(eur)?.value == 0.9)
        #expect(try await stack.fetchExisting(usd)?.code == "USD")
        #expect(try await stack.fetchCount(From<Rate>()) == 2)
    }

    @Test("upsertAll never gives a new row the ID of a deleted object, whether it was deleted before or in the same transaction")
    func upsertAfterDeletes() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("rates.sqlite")
        var used: [Int64] = []
        let made: [Rate.ID], first: ImportResult<Rate>
        do {
            let stack = try await DataStack(importSchema, storage: SQLiteStore(path: path))
            made = try await stack.perform { tx in
                try ["A", "B", "C"].map { code in try tx.create(Into<Rate>()) { $0.code = code }.id }
            }
            used += made.map(\.rawValue)
            try await stack.perform { tx in try tx.delete(made[2]) }
            // SQLite alone would give the next row C's ID again (one more than the largest left).
            first = try await stack.perform { tx in
                try tx.upsertAll(Into<Rate>(), from: ["A", "D", "E"], uniqueBy: \.code) { code, rate in rate.code = code; rate.value = 1 }
            }
            #expect(first.updatedIDs == [made[0]] && first.insertedIDs.count == 2)
            #expect(Set(first.insertedIDs.map(\.rawValue)).isDisjoint(with: used))
            used += first.insertedIDs.map(\.rawValue)
            // Deleted in the same transaction, just before.
            let second = try await stack.perform { tx in
                try tx.delete(first.insertedIDs[1])
                return try tx.upsertAll(Into<Rate>(), from: ["F"], uniqueBy: \.code) { code, rate in rate.code = code }
            }
            #expect(Set(second.insertedIDs.map(\.rawValue)).isDisjoint(with: used))
            used += second.insertedIDs.map(\.rawValue)
            try await stack.perform { tx in try tx.delete(second.insertedIDs[0]) }
            await stack.close()
        }
        let reopened = try await DataStack(importSchema, storage: SQLiteStore(path: path))
        let third = try await reopened.perform { tx in
            try tx.upsertAll(Into<Rate>(), from: ["G", "H"], uniqueBy: \.code) { code, rate in rate.code = code }
        }
        #expect(Set(third.insertedIDs.map(\.rawValue)).isDisjoint(with: used) && third.insertedIDs.count == 2)
        // Every ID the results named is the stored row's.
        let rates = try await reopened.fetchAll(From<Rate>().orderBy(.ascending(\.code)))
        #expect(rates.map(\.code) == ["A", "B", "D", "G", "H"])
        #expect(rates.map(\.id) == [made[0], made[1], first.insertedIDs[0]] + third.insertedIDs)
    }

    @Test("an upsertAll nested in another's configure closure leaves the outer one's outcomes right")
    func nestedUpserts() async throws {
        let stack = try await DataStack(importSchema)
        let (outer, inner, changes) = try await stack.perform { tx in
            var inner = ImportResult<Rate>()
            let outer = try tx.upsertAll(Into<Rate>(), from: ["A", "B", "C"], uniqueBy: \.code) { code, rate in
                rate.code = code
                if code == "B" {
                    inner = try tx.upsertAll(Into<Rate>(), from: ["A", "Z"], uniqueBy: \.code) { code, rate in rate.code = code; rate.value = 1 }
                }
            }
            return (outer, inner, tx.changeSet)
        }
        #expect(inner.updated.count == 1 && inner.insertedIDs.count == 1)
        #expect(outer.insertedIDs.count == 3 && outer.updated.isEmpty, "B and C inserted after the nested call")
        #expect(inner.updatedIDs == [outer.insertedIDs[0]])
        let rates = try await stack.fetchAll(From<Rate>().orderBy(.ascending(\.code)))
        #expect(rates.map(\.code) == ["A", "B", "C", "Z"])
        #expect(Set(rates.map(\.id)) == Set(outer.insertedIDs + inner.insertedIDs))
        #expect(changes.insertedIDs(Rate.self) == Set(rates.map(\.id)))
    }

    @Test("an import or batch call whose error is caught inside the transaction leaves nothing of its sources; the rest commits")
    func caughtImportErrorsLeaveNothing() async throws {
        let stack = try await DataStack(importSchema)
        let failures = try await stack.perform { tx in
            var failures: [Int] = []
            try tx.create(Into<ImportedNote>()) { $0.text = "kept before" }
            let calls: [() throws -> Void] = [
                { try tx.importObjects(Into<ImportedNote>(), from: [NoteSource(text: "imp0"), NoteSource(text: "boom")]) },
                { try tx.importUniqueObjects(Into<ImportedAuthor>(), from: [AuthorSource(key: "a", name: "A"), AuthorSource(key: "a2", name: "(fail)")]) },
                {
                    try tx.insertAll(Into<Rate>(), from: ["ins0", "ins1", "bad"]) { code, rate in
                        if code == "bad" { throw ImportFailure(reason: "bad") }
                        rate.code = code
                    }
                },
                {
                    try tx.upsertAll(Into<Rate>(), from: ["ups0", "ups1", "ups0"], uniqueBy: \.code) { code, rate in
                        rate.code = code
                        rate.note = code
                    }
                    // Unique constraint: a second object with an existing key, by plain insert.
                    try tx.insertAll(Into<Rate>(), from: ["ups1"]) { code, rate in rate.code = code }
                },
            ]
            for call in calls {
                do {
                    try call()
                } catch let error as ImportError {
                    failures.append(error.sourceIndex)
                    #expect(error.description.contains("nothing the call wrote was kept"))
                }
            }
            try tx.create(Into<ImportedNote>()) { $0.text = "kept after" }
            #expect(tx.changeSet.insertedIDs(ImportedAuthor.self).isEmpty)
            return failures
        }
        #expect(failures == [1, 1, 2, 0])
        #expect(try await stack.fetchAll(From<ImportedNote>().orderBy(.ascending(\.id))).map(\.text) == ["kept before", "kept after"])
        #expect(try await stack.fetchCount(From<ImportedAuthor>()) == 0)
        // The last call's upsertAll succeeded on its own; the insertAll after it failed: each call is its own unit.
        #expect(try await stack.fetchAll(From<Rate>().orderBy(.ascending(\.code))).map(\.code) == ["ups0", "ups1"])
    }

    @Test("keys that differ only in Unicode normalization are two keys, as SQLite's unique index has them, in one call as in two")
    func canonicallyEquivalentKeys() async throws {
        let precomposed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(precomposed == decomposed, "Swift's String equality takes them as equal")
        let stack = try await DataStack(importSchema)
        let result = try await stack.perform { tx in
            try tx.importUniqueObjects(Into<ImportedAuthor>(), from: [AuthorSource(key: precomposed, name: "one"), AuthorSource(key: decomposed, name: "two")])
        }
        #expect(result.insertedIDs.count == 2 && result.superseded == 0)
        let ids = try await stack.perform { tx in try tx.uniqueIDs(ImportedAuthor.self, \.key, for: [decomposed]) }
        #expect(ids.count == 1 && ids.values.first == result.insertedIDs[1])
        let upserted = try await stack.perform { tx in
            try tx.upsertAll(Into<Rate>(), from: [precomposed, decomposed], uniqueBy: \.code) { code, rate in rate.code = code }
        }
        #expect(upserted.insertedIDs.count == 2)
        // An edit that changes only the normalization is written.
        let edited = try await stack.perform { tx in
            let rate = try tx.edit(upserted.insertedIDs[0]) { $0.note = precomposed }
            _ = try tx.edit(rate) { $0.note = decomposed }
            return rate.id
        }
        let note = try await stack.fetchExisting(edited)?.note
        #expect(note.map { Array($0.utf8) } == Array(decomposed.utf8))
        #expect(DatabaseValue.text(precomposed) != .text(decomposed))
        #expect(Set([DatabaseValue.text(precomposed), .text(decomposed), .text(precomposed)]).count == 2)
    }

    @Test("an import nested in another's import code fails with the outer source's index, the inner error inside")
    func nestedImportError() async throws {
        let stack = try await DataStack(importSchema)
        let error = await #expect(throws: ImportError.self) {
            try await stack.perform { tx in
                try tx.insertAll(Into<Rate>(), from: ["a", "b", "c"]) { code, rate in
                    rate.code = code
                    if code == "c" { try tx.importObjects(Into<ImportedNote>(), from: [NoteSource(text: "ok"), NoteSource(text: "boom")]) }
                }
            }
        }
        #expect(error?.sourceIndex == 2 && error?.entity == "Rate")
        let inner = error?.underlying as? ImportError
        #expect(inner?.sourceIndex == 1 && inner?.entity == "ImportedNote" && inner?.underlying as? ImportFailure == ImportFailure(reason: "boom"))
        #expect(try await stack.fetchCount(From<Rate>()) == 0)
        #expect(try await stack.fetchCount(From<ImportedNote>()) == 0)
    }

    @Test("the change set of a transaction of many import calls follows the usual rules, and reads inside a call see the whole transaction")
    func changeSetAcrossCalls() async throws {
        let stack = try await DataStack(importSchema)
        let before = try await stack.perform { tx in try tx.create(Into<Rate>()) { $0.code = "OLD" }.id }
        let (changes, seenInside, authors) = try await stack.perform { tx in
            let note = try tx.create(Into<ImportedNote>()) { $0.text = "first" }
            var authors: [ImportedAuthor.ID] = []
            for round in 0..<3 {
                // Created in the first call, updated by the next two: still only a creation.
                authors.append(try tx.importUniqueObject(Into<ImportedAuthor>(), from: AuthorSource(key: "a", name: "A\(round)"))!.id)
            }
            var seenInside: Set<ImportedNote.ID> = []
            try tx.upsertAll(Into<Rate>(), from: ["OLD", "NEW"], uniqueBy: \.code) { code, rate in
                rate.code = code
                rate.value = 2
                seenInside = tx.insertedIDs(ImportedNote.self)
            }
            try tx.delete(note)
            return (tx.changeSet, seenInside, authors)
        }
        #expect(Set(authors).count == 1)
        #expect(changes.insertedIDs(ImportedAuthor.self) == [authors[0]] && changes.updatedIDs(ImportedAuthor.self).isEmpty)
        #expect(changes.updatedIDs(Rate.self) == [before] && changes.insertedIDs(Rate.self).count == 1)
        #expect(seenInside.count == 1, "a read inside a call sees what the transaction did before it")
        #expect(changes.insertedIDs(ImportedNote.self).isEmpty && changes.deletedIDs(ImportedNote.self).isEmpty)
        #expect(try await stack.fetchOne(From<ImportedAuthor>())?.name == "A2")
    }

    @Test("a unique import calls didInsert for new keys (with the key set) and update for existing ones; shouldInsert can refuse")
    func uniqueProtocolPaths() async throws {
        let stack = try await DataStack(importSchema)
        let first = try await stack.perform { tx in try tx.importUniqueObjects(Into<ImportedTag>(), from: ["Swift", "~draft", "SQL"]) }
        #expect(first.objects.map(\.name) == ["swift", "sql"] && first.objects.map(\.origin) == ["Swift", "SQL"])
        #expect(first.skipped == 1)
        let second = try await stack.perform { tx in try tx.importUniqueObject(Into<ImportedTag>(), from: "SWIFT") }
        #expect(second?.uses == 2 && second?.origin == "Swift")
    }

    @Test("observers see the objects an upsert updates")
    func observersSeeUpserts() async throws {
        let stack = try await DataStack(importSchema)
        let eur = try await stack.perform { tx in try tx.create(Into<Rate>()) { $0.code = "EUR"; $0.value = 0.9 }.id }
        var snapshots = stack.objectPublisher(eur).makeAsyncIterator()
        #expect(try await snapshots.next()??.value == 0.9)
        try await stack.perform { tx in
            try tx.upsertAll(Into<Rate>(), from: [0.95], uniqueBy: \.code) { value, rate in rate.code = "EUR"; rate.value = value }
        }
        #expect(try await snapshots.next()??.value == 0.95)
    }
}
