import Foundation
import Testing
@testable import Strata

// A to-do app's versions: `done` becomes `isDone`, declared on the type, misspelled, or kept on the type
// in later versions; relationships renamed the same way.

enum RFV1 {
    @Entity(name: "Todo")
    struct Todo {
        var title: String = ""
        var done: Bool = false
        @Relationship var tags: Set<Tag.ID> = []
        @Relationship var owner: Person.ID?
    }

    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Person") struct Person { var name: String = "" }
}

/// `done` renamed to `isDone`, with the old name misspelled.
enum RFMisspelled {
    @Entity(name: "Todo")
    struct Todo {
        var title: String = ""
        @Field(renamedFrom: "don") var isDone: Bool = false
        @Relationship var tags: Set<Tag.ID> = []
        @Relationship var owner: Person.ID?
    }

    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Person") struct Person { var name: String = "" }
}

/// The to-many `tags` renamed to `labels` and the to-one `owner` to `keeper`, each with a misspelled old name.
enum RFMisspelledRelationships {
    @Entity(name: "Todo")
    struct Todo {
        var title: String = ""
        var done: Bool = false
        @Relationship(renamedFrom: "tag") var labels: Set<Tag.ID> = []
        @Relationship(renamedFrom: "ownr") var keeper: Person.ID?
    }

    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Person") struct Person { var name: String = "" }
}

/// The to-many `tags` renamed to `labels`, its old name given as a stored field's.
enum RFToManyNamingAField {
    @Entity(name: "Todo")
    struct Todo {
        var title: String = ""
        var done: Bool = false
        @Relationship(renamedFrom: "title") var labels: Set<Tag.ID> = []
        @Relationship var owner: Person.ID?
    }

    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Person") struct Person { var name: String = "" }
}

/// `done` renamed to `isDone`, spelled right.
enum RFV2 {
    @Entity(name: "Todo")
    struct Todo {
        var title: String = ""
        @Field(renamedFrom: "done") var isDone: Bool = false
        @Relationship var tags: Set<Tag.ID> = []
        @Relationship var owner: Person.ID?
    }

    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Person") struct Person { var name: String = "" }
}

/// V2 with a new field; `renamedFrom: "done"` stays on `isDone` (stale: V2 has `isDone` already).
enum RFV3 {
    @Entity(name: "Todo")
    struct Todo {
        var title: String = ""
        @Field(renamedFrom: "done") var isDone: Bool = false
        var notes: String = ""
        @Relationship var tags: Set<Tag.ID> = []
        @Relationship var owner: Person.ID?
    }

    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Person") struct Person { var name: String = "" }
}

/// Todo renamed to Task on the type, and its `done` renamed with a misspelled old name.
enum RFRenamedEntity {
    @Entity(name: "Task", renamedFrom: "Todo")
    struct Task {
        var title: String = ""
        @Field(renamedFrom: "dnoe") var isDone: Bool = false
        @Relationship var tags: Set<Tag.ID> = []
        @Relationship var owner: Person.ID?
    }

    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Person") struct Person { var name: String = "" }
}

/// Todo renamed to Task with a misspelled old name.
enum RFMisspelledEntity {
    @Entity(name: "Task", renamedFrom: "Todoo")
    struct Task {
        var title: String = ""
        var done: Bool = false
        @Relationship var tags: Set<Tag.ID> = []
        @Relationship var owner: Person.ID?
    }

    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Person") struct Person { var name: String = "" }
}

/// A version of a branch that never had `done` (nor `isDone`), for a tree chain into RFV2.
enum RFBranch {
    @Entity(name: "Todo")
    struct Todo {
        var title: String = ""
        @Relationship var tags: Set<Tag.ID> = []
        @Relationship var owner: Person.ID?
    }

    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Person") struct Person { var name: String = "" }
}

let renamedFromV1 = Schema("V1", RFV1.Todo.self, RFV1.Tag.self, RFV1.Person.self)

/// A V1 store at `path` with two to-dos, "ship" done and "test" not, the first tagged and owned; closed.
func makeTodoStore(at path: String) async throws {
    let stack = try await DataStack(renamedFromV1, storage: SQLiteStore(path: path))
    try await stack.perform { tx in
        let tag = try tx.create(Into<RFV1.Tag>()) { $0.label = "work" }
        let owner = try tx.create(Into<RFV1.Person>()) { $0.name = "Ada" }
        try tx.create(Into<RFV1.Todo>()) { $0.title = "ship"; $0.done = true; $0.tags = [tag.id]; $0.owner = owner.id }
        try tx.create(Into<RFV1.Todo>()) { $0.title = "test" }
    }
    await stack.close()
}

@Suite("Migrations: renames declared with renamedFrom: are checked", .timeLimit(.minutes(1)))
struct MigrationRenamedFromTests {
    /// The store's schema version and its to-dos done, read with plain SQLite.
    func storeState(_ path: String) throws -> (version: String?, done: String?) {
        (try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'"),
         try storeValue(path, "SELECT group_concat(title) FROM Todo WHERE done = 1"))
    }

    @Test("a misspelled @Field(renamedFrom:) of a new field is refused, naming the entity, the field, the old name and the fields there are; nothing changes")
    func misspelledFieldRefused() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("todos.sqlite")
        try await makeTodoStore(at: path)
        let history = SchemaHistory(
            renamedFromV1, Schema("V2", RFMisspelled.Todo.self, RFMisspelled.Tag.self, RFMisspelled.Person.self))
        // Before, `done` was dropped with its values and `isDone` started false, without a word.
        let error = await expectStrataError(.invalidMigration) { try await DataStack(history, storage: SQLiteStore(path: path)) }
        #expect(error?.entity == "Todo" && error?.field == "isDone", "\(String(describing: error))")
        let message = error?.message ?? ""
        #expect(message.contains("Migration V1 → V2"), "\(message)")
        #expect(message.contains(#"Todo.isDone is declared @Field(renamedFrom: "don")"#), "\(message)")
        #expect(message.contains("has no field don; it has title, done, owner, tags"), "\(message)")
        #expect(try storeState(path) == ("V1", "ship"))
        // The forecast, which plans the same steps, says so too.
        _ = await expectStrataError(.invalidMigration) { try await DataStack.forecast(history, storage: SQLiteStore(path: path)) }
    }

    @Test("a misspelled @Relationship(renamedFrom:) of a new to-many or to-one relationship is refused")
    func misspelledRelationshipsRefused() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("todos.sqlite")
        try await makeTodoStore(at: path)
        let history = SchemaHistory(renamedFromV1, Schema(
            "V2", RFMisspelledRelationships.Todo.self, RFMisspelledRelationships.Tag.self, RFMisspelledRelationships.Person.self))
        // Before, both relationships started empty and the old links were dropped.
        let error = await expectStrataError(.invalidMigration) { try await DataStack(history, storage: SQLiteStore(path: path)) }
        let message = error?.message ?? ""
        // The fields come first: the to-one `keeper` is refused.
        #expect(error?.entity == "Todo" && error?.field == "keeper", "\(message)")
        #expect(message.contains(#"Todo.keeper is declared @Relationship(renamedFrom: "ownr")"#), "\(message)")
        #expect(message.contains("has no field ownr"), "\(message)")
        #expect(try storeValue(path, "SELECT count(*) FROM Todo_tags") == "1")

        // The to-many alone, its old name a field's.
        typealias Only = RFToManyNamingAField
        let toMany = await expectStrataError(.invalidMigration) {
            try await DataStack(
                SchemaHistory(renamedFromV1, Schema("V2", Only.Todo.self, Only.Tag.self, Only.Person.self)),
                storage: SQLiteStore(path: path))
        }
        #expect(toMany?.field == "labels", "\(String(describing: toMany))")
        #expect(toMany?.message.contains("has no to-many relationship title (title is a stored field there)") == true,
                "\(toMany?.message ?? "")")
        #expect(try storeState(path) == ("V1", "ship"))
    }

    @Test("renamedFrom: spelled right moves the values, and stays accepted on later versions where it is stale (V1 → V2 → V3, V2 → V3)")
    func staleRenamedFromAccepted() async throws {
        let directory = try TemporaryDirectory()
        let v2 = Schema("V2", RFV2.Todo.self, RFV2.Tag.self, RFV2.Person.self)
        let v3 = Schema("V3", RFV3.Todo.self, RFV3.Tag.self, RFV3.Person.self)
        let history = SchemaHistory(renamedFromV1, v2, v3)
        // From V1, through the rename and the step after it.
        let fromV1 = directory.path("v1.sqlite")
        try await makeTodoStore(at: fromV1)
        let stack = try await DataStack(history, storage: SQLiteStore(path: fromV1))
        let todos = try await stack.fetchAll(From<RFV3.Todo>().orderBy(.ascending(\.title)))
        #expect(todos.map(\.title) == ["ship", "test"] && todos.map(\.isDone) == [true, false])
        await stack.close()
        // From V2, where `isDone` exists already.
        let fromV2 = directory.path("v2.sqlite")
        let old = try await DataStack(v2, storage: SQLiteStore(path: fromV2))
        try await old.perform { tx in _ = try tx.create(Into<RFV2.Todo>()) { $0.title = "done"; $0.isDone = true } }
        await old.close()
        let later = try await DataStack(history, storage: SQLiteStore(path: fromV2))
        #expect(try await later.fetchAll(From<RFV3.Todo>()).map(\.isDone) == [true])
        await later.close()
    }

    @Test("a field renamedFrom: of an entity renamed with @Entity(renamedFrom:) is checked against the old entity")
    func renamedEntity() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("todos.sqlite")
        try await makeTodoStore(at: path)
        let history = SchemaHistory(
            renamedFromV1, Schema("V2", RFRenamedEntity.Task.self, RFRenamedEntity.Tag.self, RFRenamedEntity.Person.self))
        let error = await expectStrataError(.invalidMigration) { try await DataStack(history, storage: SQLiteStore(path: path)) }
        #expect(error?.entity == "Task" && error?.field == "isDone", "\(String(describing: error))")
        #expect(error?.message.contains("but Todo (Task's name there) in version V1 has no field dnoe; it has title, done") == true,
                "\(error?.message ?? "")")
        #expect(try storeState(path) == ("V1", "ship"))
    }

    @Test("a misspelled @Entity(renamedFrom:) is named in the refusal of the entity it leaves behind")
    func misspelledEntity() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("todos.sqlite")
        try await makeTodoStore(at: path)
        let history = SchemaHistory(
            renamedFromV1, Schema("V2", RFMisspelledEntity.Task.self, RFMisspelledEntity.Tag.self, RFMisspelledEntity.Person.self))
        let error = await expectStrataError(.invalidMigration) { try await DataStack(history, storage: SQLiteStore(path: path)) }
        #expect(error?.entity == "Todo", "\(String(describing: error))")
        #expect(error?.message.contains(
            #"has no entity Todo (Task declares @Entity(renamedFrom: "Todoo"), a name version V1 does not have)"#) == true,
            "\(error?.message ?? "")")
    }

    @Test("a rename declared in the step wins over a misspelled renamedFrom:, and a field of a new entity is not checked")
    func stepRenameWins() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("todos.sqlite")
        try await makeTodoStore(at: path)
        let misspelled = Schema("V2", RFMisspelled.Todo.self, RFMisspelled.Tag.self, RFMisspelled.Person.self)
        let stack = try await DataStack(
            SchemaHistory(renamedFromV1, misspelled, steps: [
                MigrationStep(from: "V1", to: "V2", .renameField("Todo", from: "done", to: "isDone"))]),
            storage: SQLiteStore(path: path))
        #expect(try await stack.fetchAll(From<RFMisspelled.Todo>().where(\.isDone == true)).map(\.title) == ["ship"])
        await stack.close()
        // Todo deleted and made anew: its fields are all new, whatever they say they were.
        let again = directory.path("again.sqlite")
        try await makeTodoStore(at: again)
        let recreated = try await DataStack(
            SchemaHistory(renamedFromV1, misspelled, steps: [MigrationStep(from: "V1", to: "V2", .deleteEntity("Todo"))]),
            storage: SQLiteStore(path: again))
        #expect(try await recreated.fetchCount(From<RFMisspelled.Todo>()) == 0)
        await recreated.close()
    }

    @Test("in a tree chain, a renamedFrom: that names a field of the other branch is accepted from the branch without it")
    func treeChain() async throws {
        let directory = try TemporaryDirectory()
        let branch = Schema("B1", RFBranch.Todo.self, RFBranch.Tag.self, RFBranch.Person.self)
        let history = SchemaHistory(
            renamedFromV1, branch, Schema("V2", RFV2.Todo.self, RFV2.Tag.self, RFV2.Person.self),
            chain: MigrationChain(["V1": "V2", "B1": "V2"]))
        let fromBranch = directory.path("branch.sqlite")
        let old = try await DataStack(branch, storage: SQLiteStore(path: fromBranch))
        try await old.perform { tx in _ = try tx.create(Into<RFBranch.Todo>()) { $0.title = "branch" } }
        await old.close()
        let stack = try await DataStack(history, storage: SQLiteStore(path: fromBranch))
        #expect(try await stack.fetchAll(From<RFV2.Todo>()).map(\.isDone) == [false])
        await stack.close()
        let fromV1 = directory.path("v1.sqlite")
        try await makeTodoStore(at: fromV1)
        let main = try await DataStack(history, storage: SQLiteStore(path: fromV1))
        #expect(try await main.fetchAll(From<RFV2.Todo>().where(\.isDone == true)).map(\.title) == ["ship"])
        await main.close()
    }
}
