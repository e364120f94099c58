import Foundation
import Testing
@testable import Strata

// Renames that give an old name to another field, or trade names.

enum RNV1 {
    @Entity(name: "Post")
    struct Post {
        var title: String = ""
        var first: String = ""
        var second: String = ""
        @Relationship var tags: Set<Tag.ID> = []
    }

    @Entity(name: "Tag")
    struct Tag {
        var label: String = ""
    }
}

/// `title` becomes `headline` and a new `title` takes its old name; `first` and `second` trade names;
/// the relationship `tags` becomes `topics` and a new `tags` starts empty.
enum RNV2 {
    @Entity(name: "Post")
    struct Post {
        var headline: String = ""
        var title: String = "untitled"
        var first: String = ""
        var second: String = ""
        @Relationship var topics: Set<Tag.ID> = []
        @Relationship var tags: Set<Tag.ID> = []
    }

    @Entity(name: "Tag")
    struct Tag {
        var label: String = ""
    }
}

@Suite("Migrations: renames that reuse names", .timeLimit(.minutes(1)))
struct MigrationRenameTests {
    static let v1 = Schema("V1", RNV1.Post.self, RNV1.Tag.self)
    static let v2 = Schema("V2", RNV2.Post.self, RNV2.Tag.self)

    enum Case: String, CaseIterable, Sendable {
        /// `title` becomes `headline`, and a new `title` takes the old name. Before, the new `title`
        /// matched the old column too: the table was altered in place with no `title` column left, and
        /// every read of the migrated store failed with "no such column".
        case nameReused
        /// `first` and `second` trade names. Before, SQLite refused the first rename (duplicate column).
        case namesTraded
        /// The relationship `tags` becomes `topics`, and a new `tags` takes the old name. Before, both
        /// kept the one join table.
        case relationshipNameReused
    }

    @Test("renames that give an old name to a new field or relationship, or trade names, keep every value where it belongs",
          arguments: Case.allCases)
    func renamesReusingNames(_ kind: Case) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("posts.sqlite")
        let old = try await DataStack(Self.v1, storage: SQLiteStore(path: path))
        let tag = try await old.perform { tx in
            let tag = try tx.create(Into<RNV1.Tag>()) { $0.label = "swift" }
            try tx.create(Into<RNV1.Post>()) {
                $0.title = "Hello"
                $0.first = "one"
                $0.second = "two"
                $0.tags = [tag.id]
            }
            return tag.id.rawValue
        }
        await old.close()
        let changes: [MigrationChange] = switch kind {
        case .nameReused: [.renameField("Post", from: "title", to: "headline")]
        case .namesTraded: [.renameField("Post", from: "first", to: "second"), .renameField("Post", from: "second", to: "first")]
        case .relationshipNameReused: [.renameField("Post", from: "tags", to: "topics")]
        }
        let history = SchemaHistory(Self.v1, Self.v2, steps: [MigrationStep(from: "V1", to: "V2", changes: changes)])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let post = try #require(try await stack.fetchAll(From<RNV2.Post>()).first)
        #expect(post.headline == (kind == .nameReused ? "Hello" : ""))
        #expect(post.title == (kind == .nameReused ? "untitled" : "Hello"))
        #expect([post.first, post.second] == (kind == .namesTraded ? ["two", "one"] : ["one", "two"]))
        #expect(Set(post.topics.map(\.rawValue)) == (kind == .relationshipNameReused ? [tag] : []))
        #expect(Set(post.tags.map(\.rawValue)) == (kind == .relationshipNameReused ? [] : [tag]))
        await stack.close()
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
    }
}

// A field that becomes unique, its values made unique by the step's transform.

enum UQV1 {
    @Entity(name: "Member")
    struct Member {
        var email: String = ""
    }
}

enum UQV2 {
    @Entity(name: "Member")
    struct Member {
        @Field(.unique) var email: String = ""
        @Field(.unique) var handle: String = ""
    }
}

@Suite("Migrations: unique values made by a transform", .timeLimit(.minutes(1)))
struct MigrationUniqueTransformTests {
    static let v1 = Schema("V1", UQV1.Member.self)
    static let v2 = Schema("V2", UQV2.Member.self)

    func makeStore(_ path: String) async throws -> [Int64] {
        let old = try await DataStack(Self.v1, storage: SQLiteStore(path: path))
        let ids = try await old.perform { tx in
            try (0..<2).map { _ in try tx.create(Into<UQV1.Member>()) { $0.email = "a@example.com" }.id.rawValue }
        }
        await old.close()
        return ids
    }

    @Test("a field that becomes unique and a new unique field, both given unique values by a transform, migrate")
    func transformMakesValuesUnique() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("members.sqlite")
        let ids = try await makeStore(path)
        // Before, the duplicates were refused before the transform ran ("make the values unique in a
        // .transform"), and so was the new field, whose default every object shared.
        let stack = try await DataStack(
            SchemaHistory(Self.v1, Self.v2, steps: [MigrationStep(from: "V1", to: "V2", .transform(UQV2.Member.self) { old, member in
                member.email = "\(member.id.rawValue)-" + (try old.value("email", as: String.self))
                member.handle = "member-\(member.id.rawValue)"
            })]),
            storage: SQLiteStore(path: path))
        let members = try await stack.fetchAll(From<UQV2.Member>().orderBy(.ascending(\.email)))
        #expect(members.map(\.email) == ids.map { "\($0)-a@example.com" })
        #expect(members.map(\.handle) == ids.map { "member-\($0)" })
        await stack.close()
    }

    @Test("a transform that leaves two objects the same unique value is refused, naming an object; the store stays at its version")
    func transformLeavesDuplicates() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("members.sqlite")
        _ = try await makeStore(path)
        let error = await #expect(throws: StrataError.self) {
            try await DataStack(
                SchemaHistory(Self.v1, Self.v2, steps: [MigrationStep(from: "V1", to: "V2", .transform(UQV2.Member.self) { _, member in
                    member.handle = "member-\(member.id.rawValue)"
                })]),
                storage: SQLiteStore(path: path))
        }
        #expect(error?.code == .invalidMigration)
        #expect(error?.message.contains("The .transform of Member gave object") == true, "\(String(describing: error))")
        let old = try await DataStack(Self.v1, storage: SQLiteStore(path: path))
        #expect(try await old.fetchCount(From<UQV1.Member>().where(\.email == "a@example.com")) == 2)
        await old.close()
    }
}
