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
