import Foundation
import Testing
@testable import Strata

enum MDE1 {
    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Post") struct Post {
        var title: String = ""
        @Relationship var tag: Tag.ID?
        @Relationship var tags: Set<Tag.ID> = []
    }
}

/// V2 keeps Post with its relationships and has no Tag.
enum MDE2 {
    @Entity(name: "Post") struct Post { var title: String = "" }
}

/// V2: Label takes the name of the deleted Tag.
enum MDE3 {
    @Entity(name: "Label") struct Label { var text: String = "" }
    @Entity(name: "Post") struct Post {
        var title: String = ""
        @Relationship var tag: Tag.ID?
        @Relationship var tags: Set<Tag.ID> = []
        @Relationship var label: Label.ID?
    }
    @Entity(name: "Tag") struct Tag { var label: String = "" }
}
enum MDE4 {
    @Entity(name: "Post") struct Post {
        var title: String = ""
        @Relationship var tag: Tag.ID?
        @Relationship var tags: Set<Tag.ID> = []
        @Relationship var label: Tag.ID?
    }
    @Entity(name: "Tag") struct Tag { var text: String = "" }
}

@Suite("Migrations: deleting an entity", .timeLimit(.minutes(1)))
struct MigrationDeleteEntityTests {
    /// A V1 store with tags 1-3 and a post pointing at tag 3; returns that tag's ID.
    private func makeStore(at path: String) async throws -> Int64 {
        let stack = try await DataStack(Schema("V1", MDE1.Tag.self, MDE1.Post.self), storage: SQLiteStore(path: path))
        let id = try await stack.perform { tx in
            _ = try tx.create(Into<MDE1.Tag>()) { $0.label = "one" }
            _ = try tx.create(Into<MDE1.Tag>()) { $0.label = "two" }
            let old = try tx.create(Into<MDE1.Tag>()) { $0.label = "old tag" }.id
            _ = try tx.create(Into<MDE1.Post>()) { $0.title = "p"; $0.tag = old; $0.tags = [old] }
            return old.rawValue
        }
        await stack.close()
        return id
    }

    @Test("an entity deleted and made anew in the same step: old links are cleared, and new objects take new IDs")
    func recreatedInTheSameStep() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("recreate.sqlite")
        let oldID = try await makeStore(at: path)
        let v1 = Schema("V1", MDE1.Tag.self, MDE1.Post.self)
        let history = SchemaHistory(v1, Schema("V2", MDE1.Tag.self, MDE1.Post.self), steps: [MigrationStep(
            from: "V1", to: "V2", .deleteEntity("Tag"),
            .custom { migration in
                for _ in 0..<3 { _ = try migration.transaction.create(Into<MDE1.Tag>()) { $0.label = "unrelated new tag" } }
            })])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let post = try #require(try await stack.fetchAll(From<MDE1.Post>()).first)
        #expect(post.tag == nil, "the post's to-one still points at a deleted tag's ID")
        #expect(post.tags.isEmpty)
        let tags = try await stack.fetchAll(From<MDE1.Tag>().orderBy(.ascending(\.id)))
        #expect(tags.count == 3)
        #expect(tags.allSatisfy { $0.id.rawValue > oldID }, "IDs of deleted objects used again: \(tags.map(\.id.rawValue))")
        // Objects created after the migration do not reuse them either.
        let later = try await stack.perform { tx in try tx.create(Into<MDE1.Tag>()) { $0.label = "later" }.id.rawValue }
        #expect(later > oldID + 3)
        await stack.close()
    }

    @Test("an entity deleted and declared again in a later version starts above the deleted IDs")
    func declaredAgainLater() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("later.sqlite")
        let oldID = try await makeStore(at: path)
        let v1 = Schema("V1", MDE1.Tag.self, MDE1.Post.self)
        let v2 = Schema("V2", MDE2.Post.self)
        let history = SchemaHistory(
            v1, v2, Schema("V3", MDE1.Tag.self, MDE1.Post.self),
            steps: [MigrationStep(from: "V1", to: "V2", .deleteEntity("Tag"))])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let id = try await stack.perform { tx in try tx.create(Into<MDE1.Tag>()) { $0.label = "new" }.id.rawValue }
        #expect(id > oldID)
        await stack.close()
    }

    @Test("an entity deleted while a kept entity keeps its to-one to it: the to-one is cleared")
    func keptToOneCleared() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("cleared.sqlite")
        _ = try await makeStore(at: path)
        let v1 = Schema("V1", MDE1.Tag.self, MDE1.Post.self)
        let history = SchemaHistory(v1, Schema("V2", MDE1.Tag.self, MDE1.Post.self), steps: [MigrationStep(
            from: "V1", to: "V2", .deleteEntity("Tag"))])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let posts = try await stack.fetchAll(From<MDE1.Post>())
        #expect(posts.map(\.title) == ["p"])
        #expect(posts.first?.tag == nil)
        #expect(try await stack.fetchCount(From<MDE1.Tag>()) == 0)
        await stack.close()
    }

    @Test("an entity deleted while another takes its name: the other's objects and links are kept, new IDs start above both")
    func deletedNameTakenByARename() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("taken.sqlite")
        let v1 = Schema("V1", MDE3.Label.self, MDE3.Post.self, MDE3.Tag.self)
        let old = try await DataStack(v1, storage: SQLiteStore(path: path))
        let labelID = try await old.perform { tx in
            for index in 0..<5 { _ = try tx.create(Into<MDE3.Tag>()) { $0.label = "tag \(index)" } }
            let label = try tx.create(Into<MDE3.Label>()) { $0.text = "kept" }.id
            _ = try tx.create(Into<MDE3.Post>()) { $0.title = "p"; $0.tag = MDE3.Tag.ID(rawValue: 5); $0.label = label }
            try tx.delete(try tx.create(Into<MDE3.Label>()) { $0.text = "gone" }.id)
            return label.rawValue
        }
        await old.close()
        let history = SchemaHistory(v1, Schema("V2", MDE4.Post.self, MDE4.Tag.self), steps: [MigrationStep(
            from: "V1", to: "V2", .deleteEntity("Tag"), .renameEntity(from: "Label", to: "Tag"))])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let post = try #require(try await stack.fetchAll(From<MDE4.Post>()).first)
        #expect(post.tag == nil)
        #expect(post.label?.rawValue == labelID)
        #expect(try await stack.fetchAll(From<MDE4.Tag>()).map(\.text) == ["kept"])
        let id = try await stack.perform { tx in try tx.create(Into<MDE4.Tag>()) { $0.text = "new" }.id.rawValue }
        #expect(id > 5)
        await stack.close()
    }
}
