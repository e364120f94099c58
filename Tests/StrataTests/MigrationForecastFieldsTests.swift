import Foundation
import Testing
@testable import Strata

/// RFV1 with `done` renamed to `isDone` and the rename forgotten: `done` is removed and `isDone` added.
enum RFForgot {
    @Entity(name: "Todo")
    struct Todo {
        var title: String = ""
        var isDone: Bool = false
        @Relationship var tags: Set<Tag.ID> = []
        @Relationship var owner: Person.ID?
    }

    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Person") struct Person { var name: String = "" }
}

/// RFV1 with the to-many `tags` renamed to `labels` and the rename forgotten.
enum RFForgotRelationship {
    @Entity(name: "Todo")
    struct Todo {
        var title: String = ""
        var done: Bool = false
        @Relationship var labels: Set<Tag.ID> = []
        @Relationship var owner: Person.ID?
    }

    @Entity(name: "Tag") struct Tag { var label: String = "" }
    @Entity(name: "Person") struct Person { var name: String = "" }
}

/// OV1 without the owner's pets, stored through each pet's `owner`, which stays.
enum RFWithoutPets {
    @Entity(name: "Owner")
    struct Owner {
        var name: String = ""
        @Relationship var favorites: Set<Toy.ID> = []
    }

    @Entity(name: "Pet")
    struct Pet {
        var name: String = ""
        @Relationship var owner: Owner.ID?
    }

    @Entity(name: "Toy") struct Toy { var name: String = "" }
}

let renamedFromForgot = Schema("V2", RFForgot.Todo.self, RFForgot.Tag.self, RFForgot.Person.self)
let renamedFromForgotRelationship = Schema(
    "V2", RFForgotRelationship.Todo.self, RFForgotRelationship.Tag.self, RFForgotRelationship.Person.self)

@Suite("Migrations: the forecast names the fields a step removes, adds and renames", .timeLimit(.minutes(1)))
struct MigrationForecastFieldsTests {
    @Test("a forgotten rename shows in the forecast as a field removed and one added")
    func forgottenRename() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("todos.sqlite")
        try await makeTodoStore(at: path)
        // Before: "V1 → V2: Todo rebuild (2 rows), ...", which said nothing of `done` being dropped.
        let forecast = try await DataStack.forecast(SchemaHistory(renamedFromV1, renamedFromForgot), storage: SQLiteStore(path: path))
        #expect(forecast.description == "V1 → V2: Todo rebuild (2 rows; removes Todo.done, adds Todo.isDone), "
            + "Tag inferred (in place, no rows copied), Person inferred (in place, no rows copied)", "\(forecast)")
        // A to-many relationship whose join table goes loses its links: removed too.
        let relationships = try await DataStack.forecast(
            SchemaHistory(renamedFromV1, renamedFromForgotRelationship), storage: SQLiteStore(path: path))
        #expect(relationships.description.hasPrefix(
            "V1 → V2: Todo inferred (in place, no rows copied; removes Todo.tags, adds Todo.labels)"), "\(relationships)")
    }

    @Test("a rename, declared on the type or in the step, shows in the forecast as a rename")
    func declaredRename() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("todos.sqlite")
        try await makeTodoStore(at: path)
        let onType = try await DataStack.forecast(
            SchemaHistory(renamedFromV1, Schema("V2", RFV2.Todo.self, RFV2.Tag.self, RFV2.Person.self)), storage: SQLiteStore(path: path))
        #expect(onType.description.hasPrefix("V1 → V2: Todo inferred (in place, no rows copied; renames Todo.done to Todo.isDone), "),
                "\(onType)")
        let inStep = try await DataStack.forecast(
            SchemaHistory(renamedFromV1, renamedFromForgotRelationship, steps: [
                MigrationStep(from: "V1", to: "V2", .renameField("Todo", from: "tags", to: "labels"))]),
            storage: SQLiteStore(path: path))
        #expect(inStep.description.hasPrefix("V1 → V2: Todo inferred (in place, no rows copied; renames Todo.tags to Todo.labels), "),
                "\(inStep)")
    }

    @Test("a forecast names the fields of a renamed entity by the version that has them; a to-many kept by its to-one is not removed")
    func renamedEntityAndToOne() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("library.sqlite")
        try await makeV1Store(at: path)
        let forecast = try await DataStack.forecast(SchemaHistory(migrationV1, migrationV2, steps: [stepV1V2]), storage: SQLiteStore(path: path))
        #expect(forecast.description == "V1 → V2: Writer rebuild (2 rows; removes Author.nickname, adds Writer.rating, Writer.bio, "
            + "renames Author.fullName to Writer.name), Book inferred (in place, no rows copied; adds Book.isbn), Shelf create (0 rows), "
            + "Draft delete (1 row)", "\(forecast)")
        // The links of `pets` stay in each pet's `owner`: nothing of Owner is lost.
        let owners = directory.path("owners.sqlite")
        await (try DataStack(Schema("V1", OV1.Owner.self, OV1.Pet.self, OV1.Toy.self), storage: SQLiteStore(path: owners))).close()
        let withoutPets = try await DataStack.forecast(
            SchemaHistory(
                Schema("V1", OV1.Owner.self, OV1.Pet.self, OV1.Toy.self),
                Schema("V2", RFWithoutPets.Owner.self, RFWithoutPets.Pet.self, RFWithoutPets.Toy.self)),
            storage: SQLiteStore(path: owners))
        #expect(withoutPets.description == "V1 → V2: Owner inferred (in place, no rows copied), Pet inferred (in place, no rows "
            + "copied), Toy inferred (in place, no rows copied)", "\(withoutPets)")
    }
}
