// The DocC articles' snippets (Sources/Strata/Strata.docc), kept here so that they compile, and run
// where they need no file of a fixed name. `.ci/check-snippets` checks that every line of a snippet
// appears in a Swift file under Examples/ (this file is linked there), so an article cannot drift.
// Each article's types live in a namespace of their own: the README's snippets use the same names.
import Foundation
import Strata
import Testing

// MARK: GettingStarted.md

enum DocCGettingStarted {
    @Entity struct Person {
        var name: String = ""
        @Field(.indexed) var age: Int = 0
        @Field(.unique) var email: String?
    }

    /// Compiled only: it writes app.sqlite in the working directory.
    static func openStack() async throws -> DataStack {
        let stack = try await DataStack(Schema("V1", Person.self), storage: SQLiteStore(path: "app.sqlite"))
        return stack
    }

    static func writeAndRead(_ stack: DataStack) async throws -> (Person, [Person]) {
        let ada = try await stack.perform { tx in
            try tx.create(Into<Person>()) { $0.name = "Ada"; $0.age = 36 }
        }
        let adults = try await stack.fetchAll(From<Person>().where(\.age >= 18).orderBy(.ascending(\.name)))
        return (ada, adults)
    }

    static func describe() -> [String] {
        var printed: [String] = []
        func print(_ value: some CustomStringConvertible) { printed.append(value.description) }
        print(From<Person>().where(\.age >= 18).orderBy(.ascending(\.name)))
        print(Person.entityDescription)
        return printed
    }
}

// MARK: DefiningEntities.md

enum DocCDefiningEntities {
    enum Status: String, DatabaseValueConvertible { case draft, published }

    @Entity(name: "Article")
    struct Post {
        @Field(column: "headline") var title: String = ""
        @Field(.unique) var slug: String = ""
        @Field(.indexed) var views: Int = 0
        @Field(dynamicInitialValue: { Date() }) var created: Date = .distantPast
    }

    @Entity struct Owner {
        @Relationship(deleteRule: .cascade, inverse: \Pet.owner) var pets: Set<Pet.ID> = []
        @Relationship var favorites: [Book.ID] = []
    }
    @Entity struct Pet {
        @Relationship var owner: Owner.ID?
    }
    @Entity struct Book {
        var title: String = ""
    }
}

// MARK: FetchingAndQuerying.md

enum DocCFetching {
    @Entity struct Company {
        var city: String = ""
    }
    @Entity struct Owner {
        var name: String = ""
        @Relationship var company: Company.ID?
    }
    @Entity struct Pet {
        var name: String = ""
        @Relationship var owner: Owner.ID?
    }

    static func relationshipPaths() -> (From<Pet>, Where<Pet>) {
        let pets =
        From<Pet>().where(\.owner?.name == "Ada").orderBy(.ascending(\.owner?.name))
        let parisian =
        Where<Pet>(#Predicate { $0.owner?.company?.city == "Paris" })
        return (pets, parisian)
    }
}

// MARK: History.md

enum DocCHistory {
    /// Compiled only: it follows the history until the task is cancelled.
    static func follow(_ stack: DataStack, from token: HistoryToken?, upload: (ChangeSet) async throws -> Void)
        async throws
    {
        var savedToken = token
        for try await transaction in stack.historyUpdates(after: savedToken) {
            try await upload(transaction.changes)
            savedToken = transaction.token
        }
        _ = savedToken
    }
}

// MARK: Importing.md

enum DocCImporting {
    @Entity struct Post {
        @Field(.unique) var slug: String = ""
        var title: String = ""
    }

    struct PostJSON: Decodable, Sendable {
        let slug: String
        let title: String
    }

    static func importPosts(_ stack: DataStack, _ posts: [PostJSON]) async throws -> ImportResult<Post> {
        let result = try await stack.perform { tx in try tx.importUniqueObjects(Into<Post>(), from: posts) }
        return result
    }
}

extension DocCImporting.Post: ImportableUniqueObject {
    typealias Post = DocCImporting.Post
    typealias PostJSON = DocCImporting.PostJSON
    static var uniqueIDKeyPath: WritableKeyPath<Post, String> { \.slug }
    static func uniqueID(from source: PostJSON, in transaction: Transaction) -> String? { source.slug }
    mutating func update(from source: PostJSON, in transaction: Transaction) { title = source.title }
}

// MARK: Migrations.md

enum DocCMigrations {
    enum V1 {
        @Entity(name: "Author") struct Author {
            var fullName: String = ""
            var born: Int = 0
            var email: String?
        }
    }

    @Entity(name: "Writer") struct Writer {
        @Field(.indexed) var name: String = ""
        var born: Double = 0
        var email: String = ""
        var initials: String = ""
    }

    static func open(path: String) async throws -> DataStack {
        let history = SchemaHistory(
            Schema("V1", V1.Author.self),
            Schema("V2", Writer.self),
            steps: [
                MigrationStep(from: "V1", to: "V2",
                    .renameEntity(from: "Author", to: "Writer"),
                    .renameField("Writer", from: "fullName", to: "name"),
                    .fill("Writer", "email", with: "unknown@example.com"),
                    .transform(Writer.self) { old, writer in
                        let name: String = try old.value("fullName")
                        writer.initials = String(name.split(separator: " ").compactMap(\.first))
                    })
            ])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        return stack
    }

    enum Custom {
        enum V1 {
            @Entity(name: "Address") struct Address {
                var street: String = ""
            }
            @Entity(name: "Person") struct Person {
                var name: String = ""
                @Relationship var address: Address.ID?
            }
        }
        @Entity(name: "Person") struct Person {
            var name: String = ""
            var street: String = ""
        }

        static let step =
        MigrationStep(from: "V1", to: "V2", .deleteEntity("Address"), .custom { migration in
            for person in try migration.sourceObjects("Person") {
                guard let addressID = try person.value("address", as: Int64?.self),
                    let address = try migration.sourceObject("Address", id: addressID) else { continue }
                let street: String = try address.value("street")
                try migration.transaction.edit(Person.ID(rawValue: person.id)) { $0.street = street }
            }
        })
    }
}

// MARK: SeveralStores.md

enum DocCSeveralStores {
    @Entity struct Note {
        var text: String = ""
    }
    @Entity struct Thumbnail {
        var bytes: Data = Data()
    }

    /// Compiled only: it writes its stores in the working directory.
    static func open() async throws -> DataStack {
        let schema = Schema("V1", Note.self, Thumbnail.self)
            .configuration("Cache", Thumbnail.self)
            .configuration("Shared", Note.self)
            .configuration(nil, Note.self)
        let stack = try await DataStack(schema, storages: [
            SQLiteStore(path: "app.sqlite"),
            SQLiteStore(path: "shared.sqlite").configuration("Shared"),
        ])
        try await stack.addStorage(SQLiteStore(path: "cache.sqlite").configuration("Cache"))
        return stack
    }
}

// MARK: Testing.md

enum DocCTesting {
    @Entity struct Person {
        var name: String = ""
    }
}

extension DocCTesting {
    @Suite("The Testing article's test") struct ArticleTests {
        @Test func addsAPerson() async throws {
            let stack = try await DataStack(Schema("V1", Person.self))   // InMemoryStore by default
            try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Ada" } }
            #expect(try await stack.fetchCount(From<Person>()) == 1)
        }
    }
}

// MARK: Running what needs no fixed file name

@Suite("The DocC articles' snippets")
struct DocCSnippetTests {
    @Test("Getting Started: write, read and print as the article shows")
    func gettingStarted() async throws {
        let stack = try await DataStack(Schema("V1", DocCGettingStarted.Person.self))
        let (ada, adults) = try await DocCGettingStarted.writeAndRead(stack)
        #expect(adults == [ada])
        #expect(DocCGettingStarted.describe() == [
            "From<Person> where age >= 18 order by name ascending",
            "Person { name: text = '', age: integer indexed = 0, email: text? unique }",
        ])
    }

    @Test("Defining Entities: the options and relationships open a stack")
    func definingEntities() async throws {
        let stack = try await DataStack(Schema(
            "V1", DocCDefiningEntities.Post.self, DocCDefiningEntities.Owner.self, DocCDefiningEntities.Pet.self,
            DocCDefiningEntities.Book.self))
        let post = try await stack.perform { tx in try tx.create(Into<DocCDefiningEntities.Post>()) { $0.slug = "a" } }
        #expect(post.created != .distantPast)
        #expect(DocCDefiningEntities.Post.entityDescription.name == "Article")
    }

    @Test("Fetching: relationship paths filter and sort")
    func fetching() async throws {
        let stack = try await DataStack(Schema(
            "V1", DocCFetching.Company.self, DocCFetching.Owner.self, DocCFetching.Pet.self))
        try await stack.perform { tx in
            let paris = try tx.create(Into<DocCFetching.Company>()) { $0.city = "Paris" }
            let ada = try tx.create(Into<DocCFetching.Owner>()) { $0.name = "Ada"; $0.company = paris.id }
            _ = try tx.create(Into<DocCFetching.Pet>()) { $0.name = "Rex"; $0.owner = ada.id }
            _ = try tx.create(Into<DocCFetching.Pet>()) { $0.name = "Stray" }
        }
        let (pets, parisian) = DocCFetching.relationshipPaths()
        #expect(try await stack.fetchAll(pets).map(\.name) == ["Rex"])
        #expect(try await stack.fetchAll(From<DocCFetching.Pet>().where(parisian)).map(\.name) == ["Rex"])
    }

    @Test("Importing: unique posts import by slug")
    func importing() async throws {
        let stack = try await DataStack(Schema("V1", DocCImporting.Post.self))
        let result = try await DocCImporting.importPosts(stack, [
            DocCImporting.PostJSON(slug: "a", title: "A"), DocCImporting.PostJSON(slug: "a", title: "A2"),
        ])
        #expect(result.objects.map(\.title) == ["A2"])
    }

    @Test("Migrations: the article's V1 store migrates to V2")
    func migrations() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("docc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let old = try await DataStack(Schema("V1", DocCMigrations.V1.Author.self), storage: SQLiteStore(path: path))
        try await old.perform { tx in
            try tx.create(Into<DocCMigrations.V1.Author>()) { $0.fullName = "Ada Lovelace"; $0.born = 1815 }
        }
        await old.close()
        let stack = try await DocCMigrations.open(path: path)
        let writer = try await stack.fetchOne(From<DocCMigrations.Writer>())
        #expect(writer?.name == "Ada Lovelace" && writer?.initials == "AL" && writer?.email == "unknown@example.com")
        await stack.close()
    }
}
