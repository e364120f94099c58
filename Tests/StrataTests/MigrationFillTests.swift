import Foundation
import Testing
@testable import Strata

enum MFill1 {
    @Entity(name: "Post") struct Post {
        var title: String = ""
        var subtitle: String? = nil
    }
}
enum MFill2 {
    @Entity(name: "Post") struct Post {
        var title: String = ""
        var subtitle: String? = nil
        var code: String = ""
        var note: String? = nil
    }
}

@Suite("Migrations: fills", .timeLimit(.minutes(1)))
struct MigrationFillTests {
    private func makeStore(at path: String) async throws {
        let stack = try await DataStack(Schema("V1", MFill1.Post.self), storage: SQLiteStore(path: path))
        try await stack.perform { tx in _ = try tx.create(Into<MFill1.Post>()) { $0.title = "p" } }
        await stack.close()
    }

    @Test("a fill of nil for a required field is refused when the step is planned, by the forecast too, naming the field")
    func nilFillOfARequiredField() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("nilfill.sqlite")
        try await makeStore(at: path)
        let history = SchemaHistory(Schema("V1", MFill1.Post.self), Schema("V2", MFill2.Post.self), steps: [MigrationStep(
            from: "V1", to: "V2", .fill("Post", "code", with: String?.none))])
        let forecastError = await expectStrataError(.invalidMigration) {
            try await DataStack.forecast(history, storage: SQLiteStore(path: path))
        }
        #expect(forecastError?.entity == "Post")
        #expect(forecastError?.field == "code")
        let error = await expectStrataError(.invalidMigration) {
            try await DataStack(history, storage: SQLiteStore(path: path))
        }
        #expect(error?.entity == "Post" && error?.field == "code")
        #expect(error?.message.contains("Post.code") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("strata_new") == false, "\(error?.message ?? "")")
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
    }

    @Test("a fill of nil for an optional field, new or kept, or for a field already required, is allowed (it fills nothing)")
    func nilFillOfAnOptionalField() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("optional.sqlite")
        try await makeStore(at: path)
        let history = SchemaHistory(Schema("V1", MFill1.Post.self), Schema("V2", MFill2.Post.self), steps: [MigrationStep(
            from: "V1", to: "V2", .fill("Post", "note", with: String?.none), .fill("Post", "subtitle", with: String?.none),
            .fill("Post", "title", with: String?.none))])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let posts = try await stack.fetchAll(From<MFill2.Post>())
        #expect(posts.map(\.note) == [nil] && posts.map(\.subtitle) == [nil] && posts.map(\.code) == [""] && posts.map(\.title) == ["p"])
        await stack.close()
    }
}
