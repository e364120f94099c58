// The README's recipes (logging, importing related objects, migration transforms, splitting a field
// into an entity), kept here so that they compile and run. Keep the two in step.
import Foundation
import Logging
import Strata
import Testing

func readmeQuietConfiguration() -> DataStack.Configuration {
    var configuration = DataStack.Configuration(logger: Logger(label: "myapp.strata"))
    configuration.logger.logLevel = .error   // only errors: no notices or warnings from Strata
    return configuration
}

// Importing: an owner and its pets from one source.

struct OwnerJSON: Decodable, Sendable {
    let name: String
    let pets: [String]
}

extension Owner: ImportableObject {
    mutating func didInsert(from source: OwnerJSON, in transaction: Transaction) throws {
        name = source.name
        pets = Set(try source.pets.map { name in try transaction.create(Into<Pet>()) { $0.name = name }.id })
    }
}

// Migrations: a transform, and an edit in a custom change.

func readmeTransformStep() -> MigrationStep {
    MigrationStep(from: "V0", to: "V1",
        .transform(Person.self) { old, person in   // old: the V0 object, by field name; person: the V1 object, typed
            person.name = try old.value("fullName", as: String.self).capitalized
        },
        .custom { migration in
            for old in try migration.sourceObjects("Person") {
                guard try old.value("age", as: Int.self) < 0 else { continue }
                _ = try migration.transaction.edit(Person.ID(rawValue: old.id)) { $0.age = 0 }
            }
        })
}

// Migrations: a field split into an entity (an enum's raw value becomes a to-one relationship).

enum Zoo1 {
    @Entity(name: "Animal") struct Animal {
        var name: String = ""
        var species: String = ""   // "cat", "dog": an enum's raw value
    }
}
enum Zoo2 {
    @Entity(name: "Species") struct Species {
        @Field(.unique) var name: String = ""
        @Relationship(inverse: \Animal.species) var animals: Set<Animal.ID> = []
    }
    @Entity(name: "Animal") struct Animal {
        var name: String = ""
        @Relationship var species: Species.ID?
    }
}

func readmeSplitHistory() -> SchemaHistory {
    SchemaHistory(Schema("Z1", Zoo1.Animal.self), Schema("Z2", Zoo2.Species.self, Zoo2.Animal.self), steps: [
        MigrationStep(from: "Z1", to: "Z2",
            .transform(Zoo2.Animal.self) { _, animal in animal.species = nil },   // the text is no ID: link below
            .custom { migration in
                var species: [String: Zoo2.Species.ID] = [:]
                for old in try migration.sourceObjects("Animal") {
                    let name: String = try old.value("species")
                    let id = try species[name] ?? migration.transaction.create(Into<Zoo2.Species>()) { $0.name = name }.id
                    species[name] = id
                    _ = try migration.transaction.edit(Zoo2.Animal.ID(rawValue: old.id)) { $0.species = id }
                }
            })
    ])
}

@Suite("README recipes")
struct ReadmeRecipesTests {
    @Test("a configuration with a logger of its own, quieted")
    func quietLogger() {
        #expect(readmeQuietConfiguration().logger.logLevel == .error)
        #expect(readmeQuietConfiguration().logger.label == "myapp.strata")
    }

    @Test("didInsert creates the owner's pets, and the inverse links them back")
    func importWithChildren() async throws {
        let stack = try await DataStack(Schema("V1", Owner.self, Pet.self, Book.self))
        let source = OwnerJSON(name: "Ada", pets: ["Rex", "Tom"])
        let result = try await stack.perform { tx in try tx.importObjects(Into<Owner>(), from: [source]) }
        let id = try #require(result.insertedIDs.first)
        let owner = try #require(try await stack.fetchExisting(id))
        #expect(owner.name == "Ada" && owner.petCount == 2)
        let pets = try await stack.fetchAll(From<Pet>().orderBy(.ascending(\.name)))
        #expect(pets.map(\.name) == ["Rex", "Tom"] && pets.allSatisfy { $0.owner == owner.id })
        await stack.close()
    }

    @Test("a transform fills the new field from the old one; a custom change edits objects by their old IDs")
    func transformAndEdit() async throws {
        let directory = try readmeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.sqlite").path
        let old = try await DataStack(Schema("V0", V0.Person.self), storage: SQLiteStore(path: path))
        try await old.perform { tx in
            try tx.create(Into<V0.Person>()) { $0.fullName = "ada lovelace"; $0.age = 36 }
            try tx.create(Into<V0.Person>()) { $0.fullName = "bob"; $0.age = -1 }
        }
        await old.close()
        let history = SchemaHistory(
            Schema("V0", V0.Person.self), Schema("V1", Person.self, Post.self), steps: [readmeTransformStep()])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let people = try await stack.fetchAll(From<Person>().orderBy(.ascending(\.name)))
        #expect(people.map(\.name) == ["Ada Lovelace", "Bob"] && people.map(\.age) == [36, 0])
        await stack.close()
    }

    @Test("a text field becomes a relationship to a new entity, one object per distinct value")
    func splitFieldIntoEntity() async throws {
        let directory = try readmeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("zoo.sqlite").path
        let old = try await DataStack(Schema("Z1", Zoo1.Animal.self), storage: SQLiteStore(path: path))
        try await old.perform { tx in
            for (name, species) in [("Tom", "cat"), ("Rex", "dog"), ("Kit", "cat")] {
                try tx.create(Into<Zoo1.Animal>()) { $0.name = name; $0.species = species }
            }
        }
        await old.close()
        let stack = try await DataStack(readmeSplitHistory(), storage: SQLiteStore(path: path))
        let species = try await stack.fetchAll(From<Zoo2.Species>().orderBy(.ascending(\.name)))
        #expect(species.map(\.name) == ["cat", "dog"] && species.map(\.animals.count) == [2, 1])
        let cats = try await stack.fetchAll(From<Zoo2.Animal>().where(\.species?.name == "cat").orderBy(.ascending(\.name)))
        #expect(cats.map(\.name) == ["Kit", "Tom"])
        await stack.close()
    }
}
