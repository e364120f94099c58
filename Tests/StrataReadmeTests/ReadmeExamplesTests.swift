// The README's snippets, kept here so that they compile and run. Keep the two in step.
import Foundation
import Metrics
import Strata
import Testing
import Tracing

enum Request { @TaskLocal static var author: String? }

@Entity
struct Person {
    var name: String = ""
    @Field(.indexed) var age: Int = 0
    @Field(.unique) var email: String?
}

@Entity(name: "Article")
struct Post {
    @Field(column: "headline") var title: String = ""
    @Field(.unique) var slug: String = ""
    @Field(.indexed) var views: Int = 0
    @Field(dynamicInitialValue: { UUID() }) var token: UUID = UUID()
    @Field(dynamicInitialValue: { Date() }) var created: Date = .distantPast
    var status: Status = .draft
    var body: String?
}

enum Status: String, DatabaseValueConvertible { case draft, published }

@Entity struct Owner {
    var name: String = ""
    @Relationship(deleteRule: .cascade, inverse: \Pet.owner) var pets: Set<Pet.ID> = []  // to-many
    @Relationship var favorites: [Book.ID] = []                                           // ordered
    @Derived(count: \Owner.pets) var petCount: Int = 0                                   // derived
    @Derived(maximum: \Pet.age, over: \Owner.pets) var oldestPet: Int?
    @Coded var tags: [String] = []                                                        // JSON
    var summary: String { "\(name): \(petCount)" }                                        // virtual
}
@Entity struct Pet {
    var name: String = ""
    var age: Int = 0
    @Relationship var owner: Owner.ID?                                                    // to-one
}
@Entity struct Book {
    var title: String = ""
}

@Entity struct Member {
    #Unique<Member>([\.firstName, \.lastName], [\.club, \.nickname])
    #Index<Member>([\.lastName, \.firstName])
    var firstName: String = ""
    var lastName: String = ""
    var nickname: String?
    @Relationship var club: Club.ID?
}
@Entity struct Club {
    var name: String = ""
}

/// A new directory for one test's store files; the test removes it.
func readmeDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-readme-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

@Suite("README examples")
struct ReadmeExamplesTests {
    @Test("the README's snippets compile and do what the README says")
    func readme() async throws {
        let directory = try readmeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("app.sqlite").path

        #expect(readmeDescription() == #"From<Person> where age >= 18 AND name CONTAINS[c] "ad" order by name ascending"#)

        // Quick start
        let stack = try await DataStack(Schema("V1", Person.self, Post.self), storage: SQLiteStore(path: path))

        let id = try await stack.perform { tx in
            try tx.create(Into<Person>()) { $0.name = "John"; $0.age = 42 }.id
        }
        let adults = try await stack.fetchAll(From<Person>().where(\.age >= 18).orderBy(.ascending(\.name)))
        #expect(adults.map(\.id) == [id])

        // Entities
        let post = try await stack.perform { tx in try tx.create(Into<Post>()) { $0.slug = "hello" } }
        #expect(post.status == .draft)
        #expect(Post.entityDescription.name == "Article")
        #expect(Post.entityDescription.fields.first?.column == "headline")

        // Transactions
        let ada = try await stack.perform { tx in
            let ada = try tx.create(Into<Person>()) { $0.name = "Ada"; $0.age = 36 }
            try tx.edit(ada) { $0.age += 1 }              // writes only the fields that changed
            try tx.deleteAll(From<Person>().where(\.age < 18))
            let count = try tx.fetchCount(From<Person>())  // fetches see the transaction's own changes
            if count > 1_000 { try tx.cancel() }           // throws StrataError.transactionCancelled
            return ada
        }

        try await Request.$author.withValue("ada@example.com") {
            try await stack.perform { tx in
                try tx.create(Into<Person>()) { $0.name = Request.author ?? "anonymous" }
            }
        }
        #expect(try await stack.fetchCount(From<Person>().where(\.name == "ada@example.com")) == 1)
        try await stack.perform { tx in try tx.deleteAll(From<Person>().where(\.name == "ada@example.com")) }

        try await stack.withUnsafeTransaction { importer in
            for chunk in [["Ada", "Grace"], ["Linus"]] {
                try await importer.perform { tx in
                    for name in chunk { try tx.create(Into<Person>()) { $0.name = name } }
                }
                try await importer.commit()
            }
        }

        // Fetching and querying
        let all = try await stack.fetchAll(From<Person>())
        let first = try await stack.fetchOne(From<Person>().orderBy(.descending(\.age)))
        let count = try await stack.fetchCount(From<Person>().where(\.email == nil))
        let ids = try await stack.fetchIDs(From<Person>().where(\.age >= 18 && \.name != ""))
        let oldestID = try await stack.fetchID(From<Person>().orderBy(.descending(\.age)))
        let same = try await stack.fetchExisting(ada.id)

        let (people, adultCount) = try await stack.read { r in
            (try r.fetchAll(From<Person>()), try r.fetchCount(From<Person>().where(\.age >= 18)))
        }
        #expect(all.count == 5)
        #expect(first?.name == "John")
        #expect(count == 5)
        #expect(ids.count == 2)
        #expect(oldestID == id)
        #expect(same?.age == 37)
        #expect(people.count == 5)
        #expect(adultCount == 2)

        let filters: [From<Person>] = [
            From<Person>().where(.in(\.age, [18, 21, 30]) || .between(\.age, 60...70)),
            From<Person>().where(.contains(\.name, "ad", caseInsensitive: true) && !.hasSuffix(\.name, "x")),
            From<Person>().where(.like(\.name, "A?a*")),
            From<Person>().where(#Predicate<Person> { $0.age >= 18 && $0.name.contains("a") }),
            From<Person>().where("age BETWEEN {%d, %d} AND name BEGINSWITH[c] %@", 18, 65, "a"),
            From<Person>().where(.anyOf(["Ada", "Grace"].map { \.name == $0 })),
        ]
        var matches: [Int] = []
        for filter in filters { matches.append(try await stack.fetchCount(filter)) }
        #expect(matches == [0, 2, 2, 1, 1, 3])

        let orders: [From<Person>] = [
            From<Person>().orderBy(.ascending(\.name) + .descending(\.age)),
            From<Person>().orderBy(.ascending("name")),
            From<Person>().orderBy(OrderBy([SortDescriptor(\Person.age, order: .reverse)])),
            From<Person>().orderBy(.ascending(\.name, comparing: .localizedStandard)),
            From<Person>().tweak(.limit(20), .offset(40)),
        ]
        for order in orders { _ = try await stack.fetchAll(order) }

        var batches = 0
        for try await batch in stack.fetchBatches(From<Person>().tweak(.batchSize(500))) {
            print(batch.count)                       // chunks of 500, all from one consistent read
            batches += 1
        }
        #expect(batches == 1)

        let oldest = try await stack.queryValue(From<Person>().select(Int.self, .maximum(\.age)))
        let rows = try await stack.queryAttributes(
            From<Person>().select(.attribute(\.age), .count(\.id), .average(\.age, as: "mean")).groupBy(\.age))
        let perAge = rows.map { ($0["age", as: Int.self]!, $0["count(id)", as: Int.self]!) }
        #expect(oldest == 42)
        #expect(perAge.first! == (0, 3))

        let grown = try await stack.fetchRows(
            sql: "SELECT age, count(*) AS people FROM Person WHERE age >= ? GROUP BY age ORDER BY age", arguments: [18])
        let byAge = grown.map { ($0["age", as: Int.self]!, $0["people", as: Int.self]!) }
        let named = try await stack.read { r in
            try r.fetchValue(Int.self, sql: "SELECT count(*) FROM Person WHERE name LIKE ?", arguments: ["A%"])
        }
        #expect(byAge.last! == (42, 1))
        #expect(named != nil)

        // Errors
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.email = "taken@example.com" } }
        var reported: (String, String)?
        do {
            try await stack.perform { tx in try tx.create(Into<Person>()) { $0.email = "taken@example.com" } }
        } catch let error as StrataError where error.code == .uniqueConstraint {
            reported = (error.entity!, error.field!)
        }
        #expect(reported?.0 == "Person")
        #expect(reported?.1 == "email")
        await stack.close()
    }

    @Test("an edit reads the stored object, not the copy it is given; assigning the copy writes it whole")
    func editCopy() async throws {
        let stack = try await DataStack(Schema("V1", Person.self, Owner.self, Pet.self, Book.self))
        let ada = try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Ada"; $0.age = 36 } }
        var copy = ada
        copy.name = "Ada Lovelace"                  // changes nothing in the store
        try await stack.perform { [copy] tx in
            try tx.edit(copy) { $0.age += 1 }       // writes the age; the copy's name is not read
            let edited = try tx.fetchExisting(copy.id)
            #expect(edited?.name == "Ada" && edited?.age == 37)
            try tx.edit(copy) { $0 = copy }         // writes the copy whole: its name, and its age back
        }
        let stored = try await stack.fetchExisting(ada.id)
        #expect(stored?.name == "Ada Lovelace" && stored?.age == 36)

        // A copy whose derived values are out of date cannot be assigned.
        let owner = try await stack.perform { tx in try tx.create(Into<Owner>()) { $0.name = "Ada" } }
        try await stack.perform { tx in _ = try tx.create(Into<Pet>()) { $0.owner = owner.id } }
        let error = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.edit(owner) { $0 = owner } }
        }
        #expect(error?.code == .invalidEdit && error?.field == "petCount")
        #expect(try await stack.fetchExisting(owner.id)?.petCount == 1)
    }

    @Test("the README's relationship example works as described")
    func relationships() async throws {
        let stack = try await DataStack(Schema("V1", Owner.self, Pet.self, Book.self))
        let owner = try await stack.perform { tx in
            let owner = try tx.create(Into<Owner>()) { $0.name = "Ada"; $0.tags = ["cats"] }
            for (name, age) in [("Rex", 3), ("Tom", 7)] {
                try tx.create(Into<Pet>()) { $0.name = name; $0.age = age; $0.owner = owner.id }
            }
            return try tx.fetchExisting(owner.id)!
        }
        #expect(owner.petCount == 2 && owner.oldestPet == 7 && owner.summary == "Ada: 2")
        let pets: [Pet] = try await stack.fetchExisting(owner.pets)
        #expect(Set(pets.map(\.name)) == ["Rex", "Tom"])
        #expect(try await stack.fetchCount(From<Pet>().where(.related(\.owner, \.name == "Ada"))) == 2)
        #expect(try await stack.fetchCount(From<Pet>().where(\.owner ~ \.name == "Ada")) == 2)
        let prefetched = try await stack.fetchAll(From<Pet>().prefetching(\.owner))
        #expect(prefetched.map { $0.owner?.name } == ["Ada", "Ada"] && prefetched[0].owner?.object?.petCount == 2)
        #expect(try await stack.fetchAll(From<Pet>()).allSatisfy { $0.owner?.name == nil })
        let byOwner = try await stack.fetchAll(
            From<Pet>().where(\.owner?.name == "Ada").orderBy(.ascending(\.owner?.name) + .ascending(\.age)))
        #expect(byOwner.map(\.age) == [3, 7])
        #expect(try await stack.fetchCount(From<Pet>().where(#Predicate<Pet> { $0.owner?.name == "Ada" && $0.age > 2 })) == 2)
        #expect(try await stack.fetchCount(From<Owner>().where(.any(\.pets, \.age > 5))) == 1)
        #expect(try await stack.fetchCount(From<Owner>().where(.all(\.pets, \.age > 5))) == 0)
        #expect(try await stack.fetchCount(From<Owner>().where(\.pets.count > 1)) == 1)
        try await stack.perform { tx in try tx.delete(owner) }
        #expect(try await stack.fetchCount(From<Pet>()) == 0)
    }
}

// MARK: - Observation snippets
//
// These loops run until their task is cancelled, so they are compiled here (keeping the README's code
// true) and their behaviour is tested in Tests/StrataTests/ObservationTests.swift.

/// A stand-in for a server's client connection in the README's forwarding example.
protocol ClientConnection: Sendable {
    func send(_ names: [String]) async throws
}

func readmeObservationSnippets(stack: DataStack, ada: Person) async throws {
    // One object: nil once it is deleted, then the sequence ends.
    for try await person in stack.objectPublisher(ada.id) {
        guard let person else { break }
        print(person.name)
    }

    // Only when chosen fields change, with the fields that did.
    for try await change in stack.objectPublisher(ada.id, fields: \.age, \.email) {
        print(change.changedFields)                   // [] (the current state), then e.g. ["age"]
    }

    // A sectioned list, each snapshot with its diff from the previous one.
    for try await list in stack.listPublisher(From<Person>().sectionBy(\.age) { "Age \($0)" }.orderBy(.ascending(\.name))) {
        for section in list.sections { print(section.name ?? "", section.items.map(\.name)) }
        if let diff = list.diff {
            print(diff.insertedIDs, diff.deletedIDs, diff.updatedIDs)
            for move in diff.moves { print(move.id, move.from, "→", move.to) }   // positions: section and item
        }
    }

    // A count.
    for try await adults in stack.countPublisher(From<Person>().where(\.age >= 18)) { print(adults) }
}

func readmeConfiguration(schema: Schema, path: String) async throws -> DataStack {
    var configuration = DataStack.Configuration(maximumReaderCount: 8)   // and `logger:`, a swift-log Logger
    configuration.longWaitThreshold = .milliseconds(100)   // log waits for the writer or a reader past 100 ms
    let stack = try await DataStack(schema, storage: SQLiteStore(path: path), configuration: configuration)
    return stack
}

func readmeDescription() -> String {
    let text = "\(From<Person>().where(\.age >= 18 && .contains(\.name, "ad", caseInsensitive: true)).orderBy(.ascending(\.name)))"
    // From<Person> where age >= 18 AND name CONTAINS[c] "ad" order by name ascending
    return text
}

func streamPeople(to client: some ClientConnection, stack: DataStack) async throws {
    for try await list in stack.listPublisher(From<Person>().orderBy(.ascending(\.name))) {
        try await client.send(list.items.map(\.name))   // each client gets the newest list, never a backlog
    }
}

@MainActor
func readmeListState(stack: DataStack) -> ListState<Person> {
    ListState(stack.listPublisher(From<Person>().orderBy(.ascending(\.name))))
}

// Migrations: the version an app shipped first, kept as it was, in a namespace of its own.
enum V0 {
    @Entity(name: "Person")
    struct Person {
        var fullName: String = ""
        var age: Int = 0
    }
}

func readmeMigration(path: String) async throws -> DataStack {
    let history = SchemaHistory(
        Schema("V0", V0.Person.self),
        Schema("V1", Person.self, Post.self),   // the current version
        steps: [MigrationStep(from: "V0", to: "V1", .renameField("Person", from: "fullName", to: "name"))])
    let forecast = try await DataStack.forecast(history, storage: SQLiteStore(path: path))
    print(forecast)   // V0 → V1: Person rebuild (2 rows; adds Person.email, renames Person.fullName to Person.name), Article create (0 rows)
    let progress = MigrationProgress()
    Task { for await event in progress { print(event.entity ?? "", event.fractionCompleted) } }
    return try await DataStack(history, storage: SQLiteStore(path: path), progress: progress)
}

func readmeCustomStep(path: String, cachePath: String) async throws -> (DataStack, DataStack) {
    // Once V0 shipped, its lock was printed (print(Schema("V0", V0.Person.self).versionLock)) and declared.
    let v0 = Schema("V0", V0.Person.self, versionLock: ["Person": "age=7c74fa58 fullName=47854b8c"])
    let history = SchemaHistory(v0, Schema("V1", Person.self, Post.self), steps: [
        MigrationStep(from: "V0", to: "V1",
            .renameField("Person", from: "fullName", to: "name"),
            .custom { migration in   // free-form: read the old objects, write new ones, typed
                for person in try migration.sourceObjects("Person") {
                    let name: String = try person.value("fullName")
                    try migration.transaction.create(Into<Post>()) {
                        $0.title = "Welcome, \(name)"
                        $0.slug = "welcome-\(person.id)"
                    }
                }
            })
    ])
    let stack = try await DataStack(history, storage: SQLiteStore(path: path))
    // A cache: a store at a version this app cannot open is deleted and made anew.
    let cache = try await DataStack(Schema("C1", Book.self), storage: SQLiteStore(path: cachePath).recreatingOnSchemaMismatch())
    return (stack, cache)
}

// Importing

struct PostJSON: Decodable, Sendable {
    let slug: String
    let title: String
    let views: Int
}

extension Post: ImportableUniqueObject {
    static var uniqueIDKeyPath: WritableKeyPath<Post, String> { \.slug }
    static func uniqueID(from source: PostJSON, in transaction: Transaction) -> String? { source.slug }
    mutating func update(from source: PostJSON, in transaction: Transaction) {
        title = source.title
        views = source.views
    }
}

func readmeImport(_ stack: DataStack, json: Data, feed: AsyncStream<PostJSON>) async throws -> (ImportResult<Post>, ImportSummary) {
    let posts = try JSONDecoder().decode([PostJSON].self, from: json)
    let result = try await stack.perform { tx in try tx.importUniqueObjects(Into<Post>(), from: posts) }
    print(result.insertedIDs.count, result.updatedIDs.count, result.skipped)

    // Batch upsert of plain values: INSERT … ON CONFLICT (email) DO UPDATE, observers see every row.
    let people = [("ada@example.com", "Ada", 36), ("bob@example.com", "Bob", 17)]
    try await stack.perform { tx in
        try tx.upsertAll(Into<Person>(), from: people, uniqueBy: \.email) { row, person in
            (person.email, person.name, person.age) = row
        }
    }

    // A long import from a stream, 1,000 sources per transaction, with progress.
    let progress = ImportProgress()
    Task { for await summary in progress { print("\(summary.sourcesRead) read") } }
    let summary = try await stack.importUniqueObjects(Into<Post>(), from: feed, chunkSize: 1_000, progress: progress)
    return (result, summary)
}

// Importing by an optional key.

struct ContactJSON: Decodable, Sendable {
    let email: String?
    let name: String
}

extension Person: ImportableUniqueObject {
    static var uniqueIDKeyPath: WritableKeyPath<Person, String?> { \.email }
    static func uniqueID(from source: ContactJSON, in transaction: Transaction) -> String?? { source.email }
    mutating func update(from source: ContactJSON, in transaction: Transaction) { name = source.name }
}

@Suite("README import example")
struct ReadmeImportTests {
    @Test("posts import by slug, people upsert by email, a stream imports in chunks")
    func importing() async throws {
        let stack = try await DataStack(Schema("V1", Person.self, Post.self))
        try await stack.perform { tx in _ = try tx.create(Into<Post>()) { $0.slug = "hello"; $0.title = "Old" } }
        let json = Data(#"[{"slug": "hello", "title": "Hello", "views": 3}, {"slug": "new", "title": "New", "views": 0}]"#.utf8)
        let feed = AsyncStream<PostJSON> { continuation in
            for index in 0..<2_500 { continuation.yield(PostJSON(slug: "s\(index)", title: "T", views: index)) }
            continuation.finish()
        }
        let (result, summary) = try await readmeImport(stack, json: json, feed: feed)
        #expect(result.insertedIDs.count == 1 && result.updatedIDs.count == 1)
        #expect(summary.inserted == 2_500 && summary.chunksCommitted == 3)
        #expect(try await stack.fetchCount(From<Person>()) == 2)
        #expect(try await stack.fetchOne(From<Post>().where(\.slug == "hello"))?.title == "Hello")
    }

    @Test("people import by their optional email; a source without one is skipped")
    func optionalKey() async throws {
        let stack = try await DataStack(Schema("V1", Person.self))
        try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.email = "ada@example.com"; $0.name = "Old" } }
        let contacts = [
            ContactJSON(email: "ada@example.com", name: "Ada"), ContactJSON(email: nil, name: "Nobody"),
            ContactJSON(email: "bob@example.com", name: "Bob"),
        ]
        let result = try await stack.perform { tx in try tx.importUniqueObjects(Into<Person>(), from: contacts) }
        #expect(result.updatedIDs.count == 1 && result.insertedIDs.count == 1 && result.skipped == 1)
        #expect(try await stack.fetchAll(From<Person>().orderBy(.ascending(\.name))).map(\.name) == ["Ada", "Bob"])
    }
}

@Suite("README migration example")
struct ReadmeMigrationTests {
    @Test("a store made with V0 opens at V1 with its people renamed into place")
    func migration() async throws {
        let directory = try readmeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.sqlite").path
        let old = try await DataStack(Schema("V0", V0.Person.self), storage: SQLiteStore(path: path))
        try await old.perform { tx in
            try tx.create(Into<V0.Person>()) { $0.fullName = "Ada"; $0.age = 36 }
            try tx.create(Into<V0.Person>()) { $0.fullName = "Bob"; $0.age = 17 }
        }
        await old.close()
        let stack = try await readmeMigration(path: path)
        let people = try await stack.fetchAll(From<Person>().orderBy(.ascending(\.name)))
        #expect(people.map(\.name) == ["Ada", "Bob"] && people.map(\.age) == [36, 17] && people.allSatisfy { $0.email == nil })
        await stack.close()
    }

    @Test("a free-form step writes a post per person; a locked V0 validates; a cache at another version is made anew")
    func customStep() async throws {
        let directory = try readmeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.sqlite").path
        let cachePath = directory.appendingPathComponent("cache.sqlite").path
        let old = try await DataStack(Schema("V0", V0.Person.self), storage: SQLiteStore(path: path))
        try await old.perform { tx in try tx.create(Into<V0.Person>()) { $0.fullName = "Ada"; $0.age = 36 } }
        await old.close()
        let oldCache = try await DataStack(Schema("C0", Person.self), storage: SQLiteStore(path: cachePath))
        await oldCache.close()
        let (stack, cache) = try await readmeCustomStep(path: path, cachePath: cachePath)
        #expect(try await stack.fetchAll(From<Post>()).map(\.title) == ["Welcome, Ada"])
        #expect(try await stack.fetchAll(From<Person>()).map(\.name) == ["Ada"])
        #expect(try await cache.fetchCount(From<Book>()) == 0)
        await stack.close()
        await cache.close()
    }
}

/// The README's history example (the stream's loop stops after the token it is given, for the test).
func readmeHistory(path: String, stopAfter: Int64) async throws -> (DataStack, HistoryToken?, [String]) {
    var savedToken: HistoryToken? = nil
    var printed: [String] = []
    var configuration = DataStack.Configuration()
    configuration.history = HistoryOptions(contextName: "app", preservingOnDeletion: [.field(\Person.name)])
    let stack = try await DataStack(Schema("V1", Person.self), storage: SQLiteStore(path: path), configuration: configuration)

    try await stack.perform(author: "importer") { tx in _ = try tx.create(Into<Person>()) { $0.name = "Ada" } }
    try await TransactionAuthor.$current.withValue("request-42") {     // a server sets it once per request
        try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "Bob" } }
    }

    for transaction in try await stack.history(after: savedToken, excludingAuthors: ["sync"]) {
        print(transaction.token, transaction.author ?? "-", transaction.changes.insertedIDs(Person.self))
        printed.append(transaction.author ?? "-")
    }
    for try await transaction in stack.historyUpdates(after: savedToken) {   // this process's and others'
        savedToken = transaction.token                                         // Codable: store it
        if transaction.token.rawValue == stopAfter { break }
    }
    try await stack.purgeHistory(before: Date().addingTimeInterval(-7 * 86_400))
    return (stack, savedToken, printed)
}

@Suite("README history example")
struct ReadmeHistoryTests {
    @Test("commits are recorded with their authors; the stream follows them; a purge of old history keeps them")
    func history() async throws {
        let directory = try readmeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (stack, token, printed) = try await readmeHistory(path: directory.appendingPathComponent("h.sqlite").path, stopAfter: 2)
        #expect(printed == ["importer", "request-42"])
        #expect(token == HistoryToken(rawValue: 2))
        #expect(try await stack.history().count == 2)
        await stack.close()
    }
}

/// The README's pinned read generation example.
func readmeReadGenerations(_ stack: DataStack) async throws -> (pages: [[Person]], before: Int, same: Int, after: Int) {
    let byName = From<Person>().orderBy(.ascending(\.name))
    let pages = try await stack.withReadGeneration { generation in
        let total = try await generation.fetchCount(byName)
        var pages: [[Person]] = []
        for offset in stride(from: 0, to: total, by: 50) {
            // Other awaits may come between pages; commits made meanwhile are not seen.
            pages.append(try await generation.fetchAll(byName.tweak(.offset(offset), .limit(50))))
        }
        return pages                                   // never skips nor repeats anyone, adds up to total
    }

    let generation = try await stack.readGeneration()  // or hold one yourself, and release it
    let before = try await generation.fetchCount(From<Person>())
    try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Zoe" } }
    let same = try await generation.fetchCount(From<Person>())    // == before
    try await generation.moveToLatest()
    let after = try await generation.fetchCount(From<Person>())   // == before + 1
    await generation.release()
    return (pages, before, same, after)
}

/// The README's `changes()` example, stopping after `count` change sets for the test; the sequence is
/// `stack.changes()`, taken by the caller so that it is subscribed before the commits.
func readmeChanges(_ sequence: StoreChanges, count: Int) async -> [String] {
    var printed: [String] = []
    for await changes in sequence {
        if changes.isUnknown {
            print("another process committed")   // no details: anything may have changed
            printed.append("external")
        } else {
            print(changes.changedEntityNames, changes.insertedIDs(Person.self))
            printed.append(changes.changedEntityNames.sorted().joined(separator: ","))
        }
        if printed.count == count { break }
    }
    return printed
}

@Suite("README generations and changes examples")
struct ReadmeGenerationTests {
    @Test("pages of a pinned generation add up; a held generation sees a commit only after moveToLatest")
    func generations() async throws {
        let stack = try await DataStack(Schema("V1", Person.self))
        try await stack.perform { tx in for index in 0..<120 { try tx.create(Into<Person>()) { $0.name = "P\(index)" } } }
        let (pages, before, same, after) = try await readmeReadGenerations(stack)
        #expect(pages.map(\.count) == [50, 50, 20] && Set(pages.flatMap { $0 }.map(\.id)).count == 120)
        #expect(before == 120 && same == 120 && after == 121)
    }

    @Test("changes() yields this stack's change sets, and another stack's commits on the same file")
    func changes() async throws {
        let directory = try readmeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("c.sqlite").path
        let stack = try await DataStack(Schema("V1", Person.self), storage: SQLiteStore(path: path))
        let other = try await DataStack(Schema("V1", Person.self), storage: SQLiteStore(path: path))
        let subscribed = stack.changes()
        let reader = Task { await readmeChanges(subscribed, count: 2) }
        let sequence = stack.changes()
        var iterator = sequence.makeAsyncIterator()
        try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "Ada" } }
        #expect(await iterator.next()?.changedEntityNames == ["Person"])
        try await other.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "Bob" } }
        let external = await iterator.next()
        #expect(external?.isExternal == true && external?.isUnknown == true)
        #expect(await reader.value == ["Person", "external"])
    }
}

/// The README's tracing example: a transaction inside a request's span.
func readmeTracedRequest(_ stack: DataStack, name: String) async throws {
    // In a request handler: the transaction's span is a child of the request's.
    try await withSpan("POST /people") { _ in
        try await stack.perform { tx in
            _ = try tx.create(Into<Person>()) { $0.name = name }
        }
    }
}

/// The README's configuration example with a stack's own metrics factory and tracer.
func readmeMetricsConfiguration(schema: Schema, path: String, myTracer: any Tracer) async throws -> DataStack {
    var configuration = DataStack.Configuration()
    configuration.name = "catalog"                      // the `stack` dimension
    configuration.metricsFactory = NOOPMetricsHandler.instance   // no metrics for this stack
    configuration.tracer = myTracer                     // spans to this tracer, not the global one
    let stack = try await DataStack(schema, storage: SQLiteStore(path: path),
                                    configuration: configuration)
    return stack
}

@Suite("README metrics and tracing examples")
struct ReadmeMetricsTests {
    @Test("a traced request commits; a stack opens with its own factory and tracer")
    func tracing() async throws {
        let directory = try readmeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack = try await readmeMetricsConfiguration(
            schema: Schema("V1", Person.self), path: directory.appendingPathComponent("catalog.sqlite").path,
            myTracer: NoOpTracer())
        try await readmeTracedRequest(stack, name: "Ada")
        #expect(try await stack.fetchCount(From<Person>()) == 1)
        await stack.close()
    }
}

// MARK: Several stores

@Entity struct Note { var title: String = ""; var rank: Int = 0 }
@Entity struct Thumbnail { var url: String = ""; var bytes: Int = 0 }

func readmeSeveralStores(directory: String) async throws -> (DataStack, [Note], Int) {
    let schema = Schema("V1", Note.self, Thumbnail.self)
        .configuration("Cache", Thumbnail.self)          // thumbnails live in the cache store only
        .configuration("Shared", Note.self)              // notes live in "Shared" ...
        .configuration(nil, Note.self)                   // ... and in the default store
    let stack = try await DataStack(schema, storages: [
        SQLiteStore(path: "\(directory)/app.sqlite"),                          // default: Note
        SQLiteStore(path: "\(directory)/shared.sqlite").configuration("Shared"), // Note
    ])
    try await stack.addStorage(SQLiteStore(path: "\(directory)/cache.sqlite").configuration("Cache"))

    try await stack.perform { tx in
        try tx.create(Into<Thumbnail>()) { $0.url = "a.png" }                  // the one store holding it
        try tx.create(Into<Note>("Shared")) { $0.title = "shared"; $0.rank = 1 }
        try tx.create(Into<Note>(nil)) { $0.title = "mine"; $0.rank = 2 }      // several hold Note: name one
    }
    let everyNote = try await stack.fetchAll(From<Note>().orderBy(.ascending(\.rank)))  // both stores, one read
    let shared = try await stack.fetchCount(From<Note>("Shared"))
    return (stack, everyNote, shared)
}

@Suite("README examples: several stores")
struct ReadmeSeveralStoresTests {
    @Test("notes in two stores read together; the thumbnail goes to the cache store added later")
    func severalStores() async throws {
        let directory = try readmeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (stack, notes, shared) = try await readmeSeveralStores(directory: directory.path)
        #expect(notes.map(\.title) == ["shared", "mine"])
        #expect(shared == 1)
        #expect(try await stack.fetchCount(From<Thumbnail>("Cache")) == 1)
        await stack.close()
    }
}
