import Foundation
import Testing
@testable import Strata

enum IXV1 {
    @Entity(name: "Item")
    struct Item {
        @Field(.indexed) var name: String = ""
    }

    @Entity(name: "Post")
    struct Post {
        @Field(.indexed) var title: String = ""
    }

    @Entity(name: "Left")
    struct Left {
        @Field(.indexed) var value: Int = 0
    }

    @Entity(name: "Right")
    struct Right {
        @Field(.indexed) var label: String = ""
    }
}

enum IXV2 {
    /// A new entity takes the name of one renamed in the same step, and is listed first.
    @Entity(name: "Item")
    struct Item {
        @Field(.indexed) var name: String = ""
    }

    @Entity(name: "ArchivedItem", renamedFrom: "Item")
    struct ArchivedItem {
        @Field(.indexed) var name: String = ""
    }

    /// The indexed `title` becomes `headline`, and a new indexed `title` takes its name.
    @Entity(name: "Post")
    struct Post {
        @Field(.indexed, renamedFrom: "title") var headline: String = ""
        @Field(.indexed) var title: String = "untitled"
    }

    /// `Left` and `Right` trade names.
    @Entity(name: "Right")
    struct Right {
        @Field(.indexed) var value: Int = 0
    }

    @Entity(name: "Left")
    struct Left {
        @Field(.indexed) var label: String = ""
    }
}

@Suite("Migrations: indexes of renamed tables and columns", .timeLimit(.minutes(1)))
struct MigrationIndexTests {
    static let v1 = Schema("V1", IXV1.Item.self, IXV1.Post.self, IXV1.Left.self, IXV1.Right.self)
    static let v2 = Schema("V2", IXV2.Item.self, IXV2.ArchivedItem.self, IXV2.Post.self, IXV2.Right.self, IXV2.Left.self)

    /// The columns each index of the store covers, by index name.
    func indexes(_ path: String) throws -> [String: String] {
        let connection = try Connection(path: path, options: Connection.Options())
        defer { connection.close() }
        let statement = try connection.makeStatement(
            "SELECT m.name, m.tbl_name || '(' || group_concat(i.name) || ')' FROM sqlite_schema m, pragma_index_info(m.name) i "
                + "WHERE m.type = 'index' AND m.sql IS NOT NULL AND m.tbl_name NOT LIKE 'strata%' GROUP BY m.name")
        var result: [String: String] = [:]
        while try statement.step() {
            if case .text(let name) = statement.value(at: 0), case .text(let columns) = statement.value(at: 1) { result[name] = columns }
        }
        return result
    }

    @Test("a name a renamed entity, field or swapped entity leaves behind is taken by another: every index covers its own column")
    func indexesFollowNames() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("index.sqlite")
        let (lefts, right) = try await {
            let old = try await DataStack(Self.v1, storage: SQLiteStore(path: path))
            let ids = try await old.perform { tx in
                try tx.create(Into<IXV1.Item>()) { $0.name = "kept" }
                try tx.create(Into<IXV1.Post>()) { $0.title = "Hello" }
                let lefts = try (1...3).map { value in try tx.create(Into<IXV1.Left>()) { $0.value = value }.id.rawValue }
                let right = try tx.create(Into<IXV1.Right>()) { $0.label = "r" }.id.rawValue
                return (lefts, right)
            }
            // The newest Left is deleted: its ID is never used again, under whichever name.
            try await old.perform { tx in try tx.delete(IXV1.Left.ID(rawValue: ids.0[2])) }
            await old.close()
            return ids
        }()
        #expect(try indexes(path)["Post_title_index"] == "Post(title)")
        let step = MigrationStep(
            from: "V1", to: "V2", .renameEntity(from: "Left", to: "Right"), .renameEntity(from: "Right", to: "Left"))
        let stack = try await DataStack(SchemaHistory(Self.v1, Self.v2, steps: [step]), storage: SQLiteStore(path: path))
        // Before: "index Item_name_index already exists", and Post_title_index covered headline.
        #expect(try await stack.fetchAll(From<IXV2.ArchivedItem>()).map(\.name) == ["kept"])
        #expect(try await stack.fetchCount(From<IXV2.Item>()) == 0)
        let post = try #require(try await stack.fetchAll(From<IXV2.Post>()).first)
        #expect(post.headline == "Hello" && post.title == "untitled")
        #expect(try await stack.fetchAll(From<IXV2.Right>().orderBy(.ascending(\.value))).map(\.id.rawValue) == Array(lefts.prefix(2)))
        #expect(try await stack.fetchAll(From<IXV2.Left>()).map(\.id.rawValue) == [right])
        let created = try await stack.perform { tx in try tx.create(Into<IXV2.Right>()) { $0.value = 4 }.id.rawValue }
        #expect(created > lefts[2], "the deleted Left's ID stays used under its new name")
        await stack.close()
        #expect(try indexes(path) == [
            "Item_name_index": "Item(name)", "ArchivedItem_name_index": "ArchivedItem(name)",
            "Post_title_index": "Post(title)", "Post_headline_index": "Post(headline)",
            "Right_value_index": "Right(value)", "Left_label_index": "Left(label)",
        ])
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
    }
}
