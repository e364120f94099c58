// The README's snippets, kept here so that they compile and run. Keep the two in step.
import Foundation
import Strata
import Testing

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

@Suite("README examples")
struct ReadmeExamplesTests {
    @Test("the README's snippets compile and do what the README says")
    func readme() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-readme-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("app.sqlite").path

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

        let importer = try await stack.beginUnsafe()
        for chunk in [["Ada", "Grace"], ["Linus"]] {
            try await importer.perform { tx in
                for name in chunk { try tx.create(Into<Person>()) { $0.name = name } }
            }
            try await importer.commit()
        }
        await importer.end()

        // Reading
        let all = try await stack.fetchAll(From<Person>())
        let first = try await stack.fetchOne(From<Person>().orderBy(.descending(\.age)))
        let count = try await stack.fetchCount(From<Person>().where(\.email == nil))
        let ids = try await stack.fetchIDs(From<Person>().where(\.age >= 18 && \.name != ""))
        let same = try await stack.fetchExisting(ada.id)

        let (people, adultCount) = try await stack.read { r in
            (try r.fetchAll(From<Person>()), try r.fetchCount(From<Person>().where(\.age >= 18)))
        }
        #expect(all.count == 5)
        #expect(first?.name == "John")
        #expect(count == 5)
        #expect(ids.count == 2)
        #expect(same?.age == 37)
        #expect(people.count == 5)
        #expect(adultCount == 2)

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
}
