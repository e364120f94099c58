import Foundation
import Logging
import Testing
@testable import Strata

/// RFV1 with `done` removed and a field of another type added.
enum RFOtherType {
    @Entity(name: "Todo")
    struct Todo {
        var title: String = ""
        var note: String = ""
        @Relationship var tags: Set<Tag.ID> = []
        @Relationship var owner: Person.ID?
    }

    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Person") struct Person { var name: String = "" }
}

@Suite("Migrations: a field dropped beside a new one of the same type is logged", .timeLimit(.minutes(1)))
struct MigrationDroppedFieldWarningTests {
    /// Migrates a V1 to-do store to `version` with `steps`, logging to `logs`; returns the to-dos' titles
    /// by whether they are done, read with `isDone`.
    func migrate(_ version: Schema, steps: [MigrationStep] = [], logs: CapturedLogs) async throws -> [Logger.Level: [String]] {
        let directory = try TemporaryDirectory()
        let path = directory.path("todos.sqlite")
        try await makeTodoStore(at: path)
        var configuration = DataStack.Configuration()
        configuration.logger = logs.logger()
        let stack = try await DataStack(
            SchemaHistory(renamedFromV1, version, steps: steps), storage: SQLiteStore(path: path), configuration: configuration)
        await stack.close()
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V2")
        return Dictionary(grouping: logs.all.filter { $0.message.contains("renamedFrom") }, by: \.level).mapValues { $0.map(\.message) }
    }

    @Test("a forgotten rename migrates, and the stack logs a warning naming both fields and the renamedFrom: to declare")
    func forgottenRenameWarned() async throws {
        let logs = CapturedLogs()
        let warned = try await migrate(renamedFromForgot, logs: logs)
        let message = try #require(warned[.warning]?.first, "\(logs.all.map(\.message))")
        #expect(warned[.warning]?.count == 1)
        #expect(message.contains("Migration V1 → V2 removes Todo.done and adds Todo.isDone of the same type"), "\(message)")
        #expect(message.contains(#"declare @Field(renamedFrom: "done") on it"#), "\(message)")
        #expect(message.contains(#".renameField("Todo", from: "done", to: "isDone")"#), "\(message)")
        let record = try #require(logs.all.first { $0.message == message })
        #expect(record.metadata["strata.entity"]?.description == "Todo" && record.metadata["strata.field"]?.description == "done")
        #expect(record.metadata["strata.added"]?.description == "isDone" && record.metadata["strata.step"]?.description == "V1 → V2")
    }

    @Test("a to-many relationship dropped beside a new one to the same entity is logged, suggesting @Relationship(renamedFrom:)")
    func forgottenRelationshipRenameWarned() async throws {
        let logs = CapturedLogs()
        let warned = try await migrate(renamedFromForgotRelationship, logs: logs)
        let message = try #require(warned[.warning]?.first, "\(logs.all.map(\.message))")
        #expect(message.contains("removes Todo.tags and adds Todo.labels"), "\(message)")
        #expect(message.contains(#"declare @Relationship(renamedFrom: "tags") on it"#), "\(message)")
    }

    @Test("no warning for a declared rename, a field of another type, or a step whose custom change can carry the values")
    func noWarning() async throws {
        let renamed = CapturedLogs()
        #expect(try await migrate(Schema("V2", RFV2.Todo.self, RFV2.Tag.self, RFV2.Person.self), logs: renamed).isEmpty)
        let otherType = CapturedLogs()
        #expect(try await migrate(Schema("V2", RFOtherType.Todo.self, RFOtherType.Tag.self, RFOtherType.Person.self), logs: otherType).isEmpty)
        let custom = CapturedLogs()
        let step = MigrationStep(from: "V1", to: "V2", .custom { migration in
            for todo in try migration.sourceObjects("Todo") {
                guard try todo.value("done", as: Bool.self) else { continue }
                try migration.transaction.edit(RFForgot.Todo.ID(rawValue: todo.id)) { $0.isDone = true }
            }
        })
        #expect(try await migrate(renamedFromForgot, steps: [step], logs: custom).isEmpty)
    }
}
