import Foundation
import Testing
@testable import Strata

// Versions changed by free-form steps.

enum FV1 {
    @Entity(name: "Person")
    struct Person {
        var name: String = ""
        /// Phone numbers separated by semicolons.
        var phones: String = ""
        var archived: Bool = false
        @Relationship var address: Address.ID?
    }

    @Entity(name: "Address")
    struct Address {
        var street: String = ""
    }
}

/// Address folds into Person; the phones become objects of their own; archived people go.
enum FV2 {
    @Entity(name: "Person")
    struct Person {
        var name: String = ""
        var street: String = ""
        @Relationship(deleteRule: .cascade, inverse: \Phone.owner) var phones: [Phone.ID] = []
    }

    @Entity(name: "Phone")
    struct Phone {
        var number: String = ""
        @Relationship var owner: Person.ID?
    }
}

/// A second free-form step: each person counts their phones.
enum FV3 {
    @Entity(name: "Person")
    struct Person {
        var name: String = ""
        var street: String = ""
        var phoneCount: Int = 0
        @Relationship(deleteRule: .cascade, inverse: \Phone.owner) var phones: [Phone.ID] = []
    }

    @Entity(name: "Phone")
    struct Phone {
        var number: String = ""
        @Relationship var owner: Person.ID?
    }
}

@Suite("Migrations with free-form steps", .timeLimit(.minutes(1)))
struct MigrationCustomTests {
    let v1 = Schema("V1", FV1.Person.self, FV1.Address.self)
    let v2 = Schema("V2", FV2.Person.self, FV2.Phone.self)
    let v3 = Schema("V3", FV3.Person.self, FV3.Phone.self)

    /// V1 → V2 by hand: merge Address into Person, split phones into Phone objects, delete archived people.
    static let mergeAndSplit = MigrationStep(
        from: "V1", to: "V2", .deleteEntity("Address"),
        .custom { migration in
            try migration.forEachSourceObject("Person") { person in
                let id = FV2.Person.ID(rawValue: person.id)
                if try person.value("archived", as: Bool.self) {
                    try migration.transaction.delete(id)
                    return
                }
                if let addressID = try person.value("address", as: Int64?.self),
                    let address = try migration.sourceObject("Address", id: addressID)
                {
                    let street: String = try address.value("street")
                    try migration.transaction.edit(id) { $0.street = street }
                }
                let numbers = try person.value("phones", as: String.self).split(separator: ";")
                for number in numbers {
                    try migration.transaction.create(Into<FV2.Phone>()) { $0.number = String(number); $0.owner = id }
                }
            }
        })

    static let countPhones = MigrationStep(
        from: "V2", to: "V3",
        .custom { migration in
            for person in try migration.transaction.fetchAll(From<FV3.Person>()) {
                try migration.transaction.edit(person.id) { $0.phoneCount = person.phones.count }
            }
        })

    func makeStore(at path: String) async throws -> (ada: Int64, bob: Int64, cy: Int64) {
        let stack = try await DataStack(v1, storage: SQLiteStore(path: path))
        let ids = try await stack.perform { tx in
            let home = try tx.create(Into<FV1.Address>()) { $0.street = "1 Main St" }
            let ada = try tx.create(Into<FV1.Person>()) { $0.name = "Ada"; $0.phones = "111;222"; $0.address = home.id }
            let bob = try tx.create(Into<FV1.Person>()) { $0.name = "Bob"; $0.phones = "" }
            let cy = try tx.create(Into<FV1.Person>()) { $0.name = "Cy"; $0.phones = "333"; $0.archived = true }
            return (ada.id.rawValue, bob.id.rawValue, cy.id.rawValue)
        }
        await stack.close()
        return ids
    }

    @Test("a free-form step merges an entity into another, splits a field into new objects and deletes objects")
    func mergeSplitDelete() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("people.sqlite")
        let (ada, bob, cy) = try await makeStore(at: path)
        let history = SchemaHistory(v1, v2, v3, steps: [Self.mergeAndSplit, Self.countPhones])
        let forecast = try await DataStack.forecast(history, storage: SQLiteStore(path: path))
        #expect(forecast.steps.map(\.customChanges) == [1, 1])
        #expect(forecast.description.contains("Address delete (1 row), 1 custom change"), "\(forecast)")
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let people = try await stack.fetchAll(From<FV3.Person>().orderBy(.ascending(\.name)))
        #expect(people.map(\.id.rawValue) == [ada, bob])
        #expect(people.map(\.street) == ["1 Main St", ""])
        #expect(people.map(\.phoneCount) == [2, 0])
        let phones = try await stack.fetchAll(From<FV3.Phone>().orderBy(.ascending(\.number)))
        #expect(phones.map(\.number) == ["111", "222"])
        #expect(phones.map { $0.owner?.rawValue } == [ada, ada])
        #expect(people[0].phones == phones.map(\.id))
        // The deleted person's ID is never handed out again.
        let newID = try await stack.perform { tx in try tx.create(Into<FV3.Person>()) { $0.name = "Dee" }.id.rawValue }
        #expect(newID > cy)
        await stack.close()
        #expect(try storeValue(path, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'strata_source%' OR name = 'Address'") == "0")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
    }

    @Test("an error thrown by a free-form step rolls every step back; the source names an unknown entity")
    func failingCustomStep() async throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory()
        let path = directory.path("refused.sqlite")
        _ = try await makeStore(at: path)
        let failing = MigrationStep(from: "V2", to: "V3", .custom { _ in throw Refused() })
        let wrapped = await #expect(throws: MigrationError.self) {
            try await DataStack(SchemaHistory(v1, v2, v3, steps: [Self.mergeAndSplit, failing]), storage: SQLiteStore(path: path))
        }
        #expect(wrapped?.underlying is Refused && wrapped?.source == "V2" && wrapped?.entity == nil)
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
        #expect(try storeValue(path, "SELECT count(*) FROM Address") == "1")
        let unknown = MigrationStep(from: "V2", to: "V3", .custom { migration in _ = try migration.sourceObjects("Address") })
        let error = await expectStrataError(.invalidArgument) {
            try await DataStack(SchemaHistory(v1, v2, v3, steps: [Self.mergeAndSplit, unknown]), storage: SQLiteStore(path: path))
        }
        #expect(error?.message.contains("Version V2 has no entity Address") == true, "\(error?.message ?? "")")
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
    }

    @Test("a cancel() that a free-form step catches still cancels the migration; the store stays at its version")
    func swallowedCancelInCustomStep() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("cancelled.sqlite")
        _ = try await makeStore(at: path)
        let swallowing = MigrationStep(from: "V2", to: "V3", .custom { migration in
            do { try migration.transaction.cancel() } catch {}
        })
        await expectStrataError(.transactionCancelled) {
            try await DataStack(SchemaHistory(v1, v2, v3, steps: [Self.mergeAndSplit, swallowing]), storage: SQLiteStore(path: path))
        }
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
    }

    @Test("a source object reads its fields by name, typed, and says which fields it has when asked for another")
    func migrationObject() throws {
        let names = MigrationObject.FieldNames(["name", "age", "address"])
        let object = MigrationObject(entity: "Person", id: 7, names: names, values: [.text("Ada"), .integer(36), .null])
        #expect(object.values == ["name": .text("Ada"), "age": .integer(36), "address": .null])
        #expect(object["age"] == .integer(36) && object["nickname"] == nil)
        #expect(try object.value("name", as: String.self) == "Ada")
        #expect(try object.value("address", as: Int64?.self) == nil)
        let missing = #expect(throws: StrataError.self) { try object.value("nickname", as: String.self) }
        #expect(missing?.code == .invalidArgument && missing?.message.contains("it has address, age, name") == true)
        let mismatch = #expect(throws: StrataError.self) { try object.value("name", as: Int.self) }
        #expect(mismatch?.code == .typeMismatch && mismatch?.field == "name")
    }
}
