import Foundation
import Testing
@testable import Strata

// Versions whose relationships change how they are stored.

/// A person's pets in an ordered list without an inverse: a join table with positions.
enum RV1 {
    @Entity(name: "Person")
    struct Person {
        var name: String = ""
        @Relationship var pets: [Pet.ID] = []
    }

    @Entity(name: "Pet")
    struct Pet {
        var name: String = ""
    }
}

/// The pets get an inverse to-one: the list moves into a foreign key of Pet (with a hidden position).
enum RV2 {
    @Entity(name: "Person")
    struct Person {
        var name: String = ""
        @Relationship(inverse: \Pet.owner) var pets: [Pet.ID] = []
    }

    @Entity(name: "Pet")
    struct Pet {
        var name: String = ""
        @Relationship var owner: Person.ID?
    }
}

/// The inverse goes again and the list becomes a set, renamed: a join table once more.
enum RV3 {
    @Entity(name: "Person")
    struct Person {
        var name: String = ""
        @Relationship var animals: Set<Pet.ID> = []
    }

    @Entity(name: "Pet")
    struct Pet {
        var name: String = ""
    }
}

/// Many-to-many: "Course.students" sorts before "Student.courses", so Course owns the join table.
enum TV1 {
    @Entity(name: "Student")
    struct Student {
        var name: String = ""
        @Relationship(inverse: \Course.students) var courses: Set<Course.ID> = []
    }

    @Entity(name: "Course")
    struct Course {
        var title: String = ""
        @Relationship var students: Set<Student.ID> = []
    }
}

/// Course is renamed Unit: "Student.courses" now sorts first, so the join table changes owner.
enum TV2 {
    @Entity(name: "Student")
    struct Student {
        var name: String = ""
        @Relationship(inverse: \Unit.students) var courses: Set<Unit.ID> = []
    }

    @Entity(name: "Unit")
    struct Unit {
        var title: String = ""
        @Relationship var students: Set<Student.ID> = []
    }
}

/// Sets stored in a foreign key and in a join table, with the default delete rule.
enum OV1 {
    @Entity(name: "Owner")
    struct Owner {
        var name: String = ""
        @Relationship(inverse: \Pet.owner) var pets: Set<Pet.ID> = []
        @Relationship var favorites: Set<Toy.ID> = []
    }

    @Entity(name: "Pet")
    struct Pet {
        var name: String = ""
        @Relationship var owner: Owner.ID?
    }

    @Entity(name: "Toy")
    struct Toy {
        var name: String = ""
    }
}

/// Both sets become ordered (one renamed), and deleting an owner now deletes its pets.
enum OV2 {
    @Entity(name: "Owner")
    struct Owner {
        var name: String = ""
        @Relationship(deleteRule: .cascade, inverse: \Pet.owner) var pets: [Pet.ID] = []
        @Relationship var toys: [Toy.ID] = []
    }

    @Entity(name: "Pet")
    struct Pet {
        var name: String = ""
        @Relationship var owner: Owner.ID?
    }

    @Entity(name: "Toy")
    struct Toy {
        var name: String = ""
    }
}

/// OV1 renamed in the declarations themselves, without a step: Owner → Keeper, name → fullName,
/// favorites → toys.
enum DV2 {
    @Entity(name: "Keeper", renamedFrom: "Owner")
    struct Keeper {
        @Field(renamedFrom: "name") var fullName: String = ""
        @Relationship(inverse: \Pet.keeper) var pets: Set<Pet.ID> = []
        @Relationship(renamedFrom: "favorites") var toys: Set<Toy.ID> = []
    }

    @Entity(name: "Pet")
    struct Pet {
        var name: String = ""
        @Relationship(renamedFrom: "owner") var keeper: Keeper.ID?
    }

    @Entity(name: "Toy")
    struct Toy {
        var name: String = ""
    }
}

/// V1 with a new field for a transform to fill and a derived count over the (unchanged) pets.
enum XV2 {
    @Entity(name: "Person")
    struct Person {
        var name: String = ""
        var nickname: String = ""
        @Relationship var pets: [Pet.ID] = []
        @Derived(count: \XV2.Person.pets) var petCount: Int
    }

    @Entity(name: "Pet")
    struct Pet {
        var name: String = ""
    }
}

@Suite("Migrations of relationships", .timeLimit(.minutes(1)))
struct MigrationRelationshipTests {
    let r1 = Schema("V1", RV1.Person.self, RV1.Pet.self)
    let r2 = Schema("V2", RV2.Person.self, RV2.Pet.self)
    let r3 = Schema("V3", RV3.Person.self, RV3.Pet.self)
    var relationshipHistory: SchemaHistory {
        SchemaHistory(r1, r2, r3, steps: [MigrationStep(from: "V2", to: "V3", .renameField("Person", from: "pets", to: "animals"))])
    }

    /// A V1 store: Ada's pets in the order Rex, Tom, Kit (not ID order), Bob's Fido, and a stray.
    func makeRelationshipStore(at path: String, sharing: Bool = false) async throws -> (ada: Int64, bob: Int64, pets: [String: Int64]) {
        let stack = try await DataStack(r1, storage: SQLiteStore(path: path))
        let made = try await stack.perform { tx in
            var pets: [String: Int64] = [:]
            for name in ["Kit", "Tom", "Rex", "Fido", "Stray"] {
                pets[name] = try tx.create(Into<RV1.Pet>()) { $0.name = name }.id.rawValue
            }
            let id = { (name: String) in EntityID<RV1.Pet>(rawValue: pets[name]!) }
            let ada = try tx.create(Into<RV1.Person>()) { $0.name = "Ada"; $0.pets = [id("Rex"), id("Tom"), id("Kit")] }
            let bob = try tx.create(Into<RV1.Person>()) {
                $0.name = "Bob"; $0.pets = sharing ? [id("Fido"), id("Tom")] : [id("Fido")]
            }
            return (ada.id.rawValue, bob.id.rawValue, pets)
        }
        await stack.close()
        return made
    }

    @Test("a join table becomes a foreign key and back: every link and its order kept, IDs kept")
    func joinTableToForeignKeyAndBack() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("pets.sqlite")
        let (ada, bob, pets) = try await makeRelationshipStore(at: path)
        do {
            let stack = try await DataStack(SchemaHistory(r1, r2), storage: SQLiteStore(path: path))
            let people = try await stack.fetchAll(From<RV2.Person>().orderBy(.ascending(\.name)))
            #expect(people.map(\.id.rawValue) == [ada, bob])
            #expect(people[0].pets.map(\.rawValue) == [pets["Rex"], pets["Tom"], pets["Kit"]])
            #expect(people[1].pets.map(\.rawValue) == [pets["Fido"]])
            let owners = try await stack.fetchAll(From<RV2.Pet>().orderBy(.ascending(\.name)))
            #expect(owners.map(\.name) == ["Fido", "Kit", "Rex", "Stray", "Tom"])
            #expect(owners.map { $0.owner?.rawValue } == [bob, ada, ada, nil, ada])
            // The relationship works as declared: a new pet appended through its owner field goes last.
            try await stack.perform { tx in
                let kit = try tx.create(Into<RV2.Pet>()) { $0.name = "Newt"; $0.owner = EntityID(rawValue: ada) }
                _ = kit
            }
            let ada2 = try #require(try await stack.fetchExisting(EntityID<RV2.Person>(rawValue: ada)))
            #expect(ada2.pets.count == 4 && ada2.pets.prefix(3).map(\.rawValue) == [pets["Rex"], pets["Tom"], pets["Kit"]])
            await stack.close()
        }
        #expect(try storeValue(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'Person_pets'") == "0")
        let stack = try await DataStack(relationshipHistory, storage: SQLiteStore(path: path))
        let people = try await stack.fetchAll(From<RV3.Person>().orderBy(.ascending(\.name)))
        #expect(people.map(\.id.rawValue) == [ada, bob])
        #expect(Set(people[0].animals.map(\.rawValue)).count == 4)
        #expect(people[0].animals.map(\.rawValue).contains(pets["Rex"]!))
        #expect(Set(people[1].animals.map(\.rawValue)) == [pets["Fido"]!])
        #expect(try await stack.fetchCount(From<RV3.Pet>()) == 6)
        await stack.close()
        #expect(try storeValue(path, "SELECT count(*) FROM Person_animals") == "5")
        #expect(try storeValue(path, "SELECT count(*) FROM pragma_table_info('Pet') WHERE name LIKE 'owner%'") == "0")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
        #expect(try storeValue(path, "SELECT count(*) FROM pragma_foreign_key_check") == "0")
    }

    @Test("an object in two owners' lists cannot move into a foreign key: refused naming it, store untouched")
    func sharedObjectRefused() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let (_, _, pets) = try await makeRelationshipStore(at: path, sharing: true)
        let error = await expectStrataError(.invalidMigration) {
            try await DataStack(SchemaHistory(r1, r2), storage: SQLiteStore(path: path))
        }
        #expect(error?.message.contains("Person.pets") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("objects \(pets["Tom"]!) are linked to several") == true, "\(error?.message ?? "")")
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
        #expect(try storeValue(path, "SELECT count(*) FROM Person_pets") == "5")
        #expect(try storeValue(path, "SELECT count(*) FROM pragma_table_info('Pet') WHERE name = 'owner'") == "0")
    }

    @Test("renaming an entity moves a many-to-many join table to its new owner; both sides keep every link")
    func joinTableChangesOwner() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("courses.sqlite")
        let v1 = Schema("V1", TV1.Student.self, TV1.Course.self)
        let (students, courses) = try await {
            let stack = try await DataStack(v1, storage: SQLiteStore(path: path))
            let made = try await stack.perform { tx in
                let courses = try ["Maths", "Art", "Music"].map { title in try tx.create(Into<TV1.Course>()) { $0.title = title }.id }
                let students = try [[0, 1], [1, 2], [], [0, 1, 2]].enumerated().map { index, taken in
                    try tx.create(Into<TV1.Student>()) { $0.name = "S\(index)"; $0.courses = Set(taken.map { courses[$0] }) }.id
                }
                return (students.map(\.rawValue), courses.map(\.rawValue))
            }
            await stack.close()
            return made
        }()
        #expect(try storeValue(path, "SELECT count(*) FROM Course_students") == "7")
        let history = SchemaHistory(
            v1, Schema("V2", TV2.Student.self, TV2.Unit.self),
            steps: [MigrationStep(from: "V1", to: "V2", .renameEntity(from: "Course", to: "Unit"))])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let fetched = try await stack.fetchAll(From<TV2.Student>().orderBy(.ascending(\.name)))
        #expect(fetched.map(\.id.rawValue) == students)
        let taken = fetched.map { Set($0.courses.map(\.rawValue)) }
        #expect(taken == [[courses[0], courses[1]], [courses[1], courses[2]], [], Set(courses)])
        let units = try await stack.fetchAll(From<TV2.Unit>().orderBy(.ascending(\.title)))
        #expect(units.map(\.title) == ["Art", "Maths", "Music"])
        #expect(units.map { Set($0.students.map(\.rawValue)) } == [
            [students[0], students[1], students[3]], [students[0], students[3]], [students[1], students[3]],
        ])
        await stack.close()
        #expect(try storeValue(path, "SELECT count(*) FROM Student_courses") == "7")
        #expect(try storeValue(path, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'Course%' OR name LIKE 'Unit_%'") == "0")
        #expect(try storeValue(path, "SELECT count(*) FROM pragma_foreign_key_check") == "0")
    }

    @Test("sets become ordered (positions by ID), a to-many is renamed, and a changed delete rule applies")
    func orderAndDeleteRules() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("owners.sqlite")
        let (owner, petIDs, toyIDs) = try await {
            let stack = try await DataStack(Schema("V1", OV1.Owner.self, OV1.Pet.self, OV1.Toy.self), storage: SQLiteStore(path: path))
            let made = try await stack.perform { tx in
                let toys = try (0..<4).map { index in try tx.create(Into<OV1.Toy>()) { $0.name = "toy\(index)" }.id }
                let owner = try tx.create(Into<OV1.Owner>()) { $0.name = "Ada"; $0.favorites = Set(toys.reversed()) }.id
                let pets = try (0..<3).map { index in
                    try tx.create(Into<OV1.Pet>()) { $0.name = "pet\(index)"; $0.owner = owner }.id
                }
                return (owner.rawValue, pets.map(\.rawValue), toys.map(\.rawValue))
            }
            await stack.close()
            return made
        }()
        let history = SchemaHistory(
            Schema("V1", OV1.Owner.self, OV1.Pet.self, OV1.Toy.self), Schema("V2", OV2.Owner.self, OV2.Pet.self, OV2.Toy.self),
            steps: [MigrationStep(from: "V1", to: "V2", .renameField("Owner", from: "favorites", to: "toys"))])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let migrated = try #require(try await stack.fetchExisting(EntityID<OV2.Owner>(rawValue: owner)))
        #expect(migrated.pets.map(\.rawValue) == petIDs)
        #expect(migrated.toys.map(\.rawValue) == toyIDs)
        // The new ordered relationships keep the order written to them.
        try await stack.perform { tx in
            try tx.edit(EntityID<OV2.Owner>(rawValue: owner)) { $0.toys = $0.toys.reversed() }
        }
        #expect(try await stack.fetchExisting(EntityID<OV2.Owner>(rawValue: owner))?.toys.map(\.rawValue) == toyIDs.reversed())
        // V1 nullified pets when their owner went; V2 cascades.
        try await stack.perform { tx in try tx.delete(EntityID<OV2.Owner>(rawValue: owner)) }
        #expect(try await stack.fetchCount(From<OV2.Pet>()) == 0)
        #expect(try await stack.fetchCount(From<OV2.Toy>()) == 4)
        await stack.close()
        #expect(try storeValue(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'Owner_favorites'") == "0")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
    }

    @Test("renames declared with renamedFrom: on the new version's types migrate without a step")
    func renamedFromDeclarations() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("declared.sqlite")
        let v1 = Schema("V1", OV1.Owner.self, OV1.Pet.self, OV1.Toy.self)
        let stack1 = try await DataStack(v1, storage: SQLiteStore(path: path))
        let (owner, pets, toys) = try await stack1.perform { tx in
            let toys = try (0..<2).map { index in try tx.create(Into<OV1.Toy>()) { $0.name = "toy\(index)" }.id }
            let owner = try tx.create(Into<OV1.Owner>()) { $0.name = "Ada"; $0.favorites = Set(toys) }.id
            let pets = try (0..<2).map { index in try tx.create(Into<OV1.Pet>()) { $0.name = "pet\(index)"; $0.owner = owner }.id }
            return (owner.rawValue, Set(pets.map(\.rawValue)), Set(toys.map(\.rawValue)))
        }
        await stack1.close()
        let history = SchemaHistory(v1, Schema("V2", DV2.Keeper.self, DV2.Pet.self, DV2.Toy.self))
        let forecast = try await DataStack.forecast(history, storage: SQLiteStore(path: path))
        #expect(forecast.steps.first?.entities.first { $0.entity == "Keeper" }?.sourceEntity == "Owner")
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let keeper = try #require(try await stack.fetchExisting(EntityID<DV2.Keeper>(rawValue: owner)))
        #expect(keeper.fullName == "Ada")
        #expect(Set(keeper.pets.map(\.rawValue)) == pets)
        #expect(Set(keeper.toys.map(\.rawValue)) == toys)
        #expect(try await stack.fetchAll(From<DV2.Pet>()).allSatisfy { $0.keeper?.rawValue == owner })
        await stack.close()
        #expect(try storeValue(path, "SELECT count(*) FROM Keeper_toys") == "2")
        #expect(try storeValue(path, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'Owner%'") == "0")
    }

    @Test("a transform that changes a to-many relationship or a derived field is refused; one that does not keeps every link")
    func transformOfRelationships() async throws {
        let directory = try TemporaryDirectory()
        let x2 = Schema("V2", XV2.Person.self, XV2.Pet.self)
        let cases: [(String, @Sendable (MigrationObject, inout XV2.Person) throws -> Void)] = [
            ("pets", { _, person in person.pets.append(EntityID(rawValue: 1)) }),
            ("petCount", { _, person in person.petCount = 7 }),
        ]
        for (index, (field, body)) in cases.enumerated() {
            let path = directory.path("refused\(index).sqlite")
            _ = try await makeRelationshipStore(at: path)
            // Before, the change was dropped without a word and the migration committed.
            let error = await expectStrataError(.invalidMigration) {
                try await DataStack(
                    SchemaHistory(r1, x2, steps: [MigrationStep(from: "V1", to: "V2", .transform(XV2.Person.self, body))]),
                    storage: SQLiteStore(path: path))
            }
            #expect(error?.field == field, "\(String(describing: error))")
            #expect(error?.message.contains("changed \(field) of object") == true, "\(String(describing: error))")
            #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
        }
        // A transform that leaves them alone migrates, and the links it did not see come through whole.
        let path = directory.path("kept.sqlite")
        let (ada, _, pets) = try await makeRelationshipStore(at: path)
        let stack = try await DataStack(
            SchemaHistory(r1, x2, steps: [MigrationStep(from: "V1", to: "V2", .transform(XV2.Person.self) { old, person in
                #expect(person.pets.isEmpty)
                person.nickname = try old.value("name", as: String.self).lowercased()
            })]),
            storage: SQLiteStore(path: path))
        let migrated = try #require(try await stack.fetchExisting(EntityID<XV2.Person>(rawValue: ada)))
        #expect(migrated.nickname == "ada")
        #expect(migrated.pets.map(\.rawValue) == [pets["Rex"], pets["Tom"], pets["Kit"]])
        #expect(migrated.petCount == 3)
        await stack.close()
    }
}
