import Foundation
import Testing
@testable import Strata

enum CMV1 {
    @Entity(name: "Member")
    struct Member {
        var firstName: String = ""
        var lastName: String = ""
        var note: String = ""
    }
}

/// Adds a unique constraint and an index over two fields; `note` is removed (the table is rebuilt).
enum CMV2 {
    @Entity(name: "Member")
    struct Member {
        #Unique<Member>([\.firstName, \.lastName])
        #Index<Member>([\.lastName, \.firstName])
        var firstName: String = ""
        var lastName: String = ""
        var age: Int = 0
    }
}

/// Removes them again; the table stays as it is.
enum CMV3 {
    @Entity(name: "Member")
    struct Member {
        var firstName: String = ""
        var lastName: String = ""
        var age: Int = 0
    }
}

/// `a_b` alone and `a` then `b` would both be indexed as `Clash_a_b_index`.
@Entity(name: "Clash")
struct CClash {
    #Index<CClash>([\.a, \.b])
    @Field(.indexed) var a_b: Int = 0
    var a: Int = 0
    var b: Int = 0
}

@Suite("Unique constraints and indexes over several fields: schema checks, version locks, migrations", .timeLimit(.minutes(1)))
struct CompositeMigrationTests {
    static let v1 = Schema("V1", CMV1.Member.self)
    static let v2 = Schema("V2", CMV2.Member.self)
    static let v3 = Schema("V3", CMV3.Member.self)

    /// A V1 store at `path` holding members of these names.
    func makeV1Store(_ path: String, _ names: [(String, String)]) async throws {
        let stack = try await DataStack(Self.v1, storage: SQLiteStore(path: path))
        try await stack.perform { tx in
            for (first, last) in names { _ = try tx.create(Into<CMV1.Member>()) { $0.firstName = first; $0.lastName = last } }
        }
        await stack.close()
    }

    @Test("a migration adds the constraint and the index when no objects break it; the constraint then holds")
    func migrationAdds() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("members.sqlite")
        try await makeV1Store(path, [("Ada", "Lovelace"), ("Ada", "Byron"), ("Grace", "Lovelace")])
        let stack = try await DataStack(SchemaHistory(Self.v1, Self.v2), storage: SQLiteStore(path: path))
        #expect(try await stack.fetchCount(From<CMV2.Member>()) == 3)
        let error = await expectStrataError(.uniqueConstraint) {
            try await stack.perform { tx in _ = try tx.create(Into<CMV2.Member>()) { $0.firstName = "Ada"; $0.lastName = "Byron" } }
        }
        #expect(error?.fields == ["firstName", "lastName"])
        await stack.close()
        #expect(try indexesOfStore(path) == [
            "Member_firstName_lastName_unique": "Member(firstName,lastName) unique",
            "Member_lastName_firstName_index": "Member(lastName,firstName)",
        ])
    }

    @Test("a migration that adds a constraint existing objects break fails naming the entity, the fields and the IDs; the store is unchanged")
    func migrationRefusesDuplicates() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("members.sqlite")
        try await makeV1Store(path, [("Ada", "Lovelace"), ("Grace", "Hopper"), ("Ada", "Lovelace")])
        let error = await expectStrataError(.invalidMigration) {
            try await DataStack(SchemaHistory(Self.v1, Self.v2), storage: SQLiteStore(path: path))
        }
        #expect(error?.entity == "Member")
        #expect(error?.fields == ["firstName", "lastName"])
        #expect(error?.message.contains("firstName and lastName") == true, "\(String(describing: error))")
        #expect(error?.message.contains("IDs 1, 3") == true, "\(String(describing: error))")
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
        #expect(try storeValue(path, "SELECT count(*) FROM Member") == "3")
        #expect(try storeValue(path, "SELECT count(*) FROM pragma_table_info('Member') WHERE name = 'note'") == "1")
        #expect(try indexesOfStore(path).isEmpty)
        // The store still opens at V1.
        let stack = try await DataStack(Self.v1, storage: SQLiteStore(path: path))
        #expect(try await stack.fetchCount(From<CMV1.Member>()) == 3)
        await stack.close()
    }

    @Test("a transform that gives objects the same values fails the step naming the constraint; the store is unchanged")
    func transformBreaksConstraint() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("members.sqlite")
        try await makeV1Store(path, [("Ada", "Lovelace"), ("Ada", "Byron")])
        let step = MigrationStep(from: "V1", to: "V2", .transform(CMV2.Member.self) { old, member in
            member.firstName = try old.value("firstName")
            member.lastName = "Same"
        })
        let error = await expectStrataError(.invalidMigration) {
            try await DataStack(SchemaHistory(Self.v1, Self.v2, steps: [step]), storage: SQLiteStore(path: path))
        }
        #expect(error?.entity == "Member" && error?.fields == ["firstName", "lastName"], "\(String(describing: error))")
        #expect(try storeValue(path, "SELECT group_concat(lastName) FROM (SELECT lastName FROM Member ORDER BY id)") == "Lovelace,Byron")
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
    }

    @Test("index names that two indexes would share (a column name with an underscore) are refused when the stack opens")
    func indexNameClash() async throws {
        let error = await expectStrataError(.invalidArgument) { try await DataStack(Schema("V1", CClash.self), storage: InMemoryStore()) }
        #expect(error?.message.contains("'Clash_a_b_index'") == true, "\(String(describing: error))")
    }

    @Test("the forecast names the constraints and indexes a step adds and removes")
    func forecast() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("members.sqlite")
        try await makeV1Store(path, [("Ada", "Lovelace")])
        let forecast = try await DataStack.forecast(SchemaHistory(Self.v1, Self.v2, Self.v3), storage: SQLiteStore(path: path))
        try #require(forecast.steps.count == 2)
        let adding = try #require(forecast.steps[0].entities.first)
        #expect(adding.addedUniqueConstraints == [["firstName", "lastName"]] && adding.addedIndexes == [["lastName", "firstName"]])
        #expect(adding.removedUniqueConstraints.isEmpty && adding.removedIndexes.isEmpty)
        let removing = try #require(forecast.steps[1].entities.first)
        #expect(removing.removedUniqueConstraints == [["firstName", "lastName"]] && removing.removedIndexes == [["lastName", "firstName"]])
        #expect(removing.addedUniqueConstraints.isEmpty && removing.addedIndexes.isEmpty)
        #expect(forecast.description.contains("adds Member.age, adds #Unique(firstName, lastName), #Index(lastName, firstName)"), "\(forecast)")
        #expect(forecast.description.contains("V2 → V3: Member inferred (in place, no rows copied; removes #Unique(firstName, lastName), "
            + "#Index(lastName, firstName))"), "\(forecast)")
    }

    @Test("a migration removes a constraint and an index dropped from the schema; objects may then share the values")
    func migrationRemoves() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("members.sqlite")
        try await makeV1Store(path, [("Ada", "Lovelace")])
        let stack = try await DataStack(SchemaHistory(Self.v1, Self.v2, Self.v3), storage: SQLiteStore(path: path))
        try await stack.perform { tx in _ = try tx.create(Into<CMV3.Member>()) { $0.firstName = "Ada"; $0.lastName = "Lovelace" } }
        #expect(try await stack.fetchCount(From<CMV3.Member>().where(\.firstName == "Ada")) == 2)
        await stack.close()
        #expect(try indexesOfStore(path).isEmpty)
        // V2 → V3 alone, on a store migrated to V2 first.
        let other = directory.path("v2.sqlite")
        try await makeV1Store(other, [("Ada", "Lovelace")])
        let v2 = try await DataStack(SchemaHistory(Self.v1, Self.v2), storage: SQLiteStore(path: other))
        await v2.close()
        #expect(try indexesOfStore(other).count == 2)
        let v3 = try await DataStack(SchemaHistory(Self.v1, Self.v2, Self.v3), storage: SQLiteStore(path: other))
        await v3.close()
        #expect(try indexesOfStore(other).isEmpty)
    }

    @Test("the version lock and hash change with the constraints; a locked version whose constraints changed is refused")
    func versionLock() async throws {
        let withConstraints = Schema("V2", CMV2.Member.self)
        let without = Schema("V2", CMV3.Member.self)
        #expect(withConstraints.versionHash != without.versionHash)
        let entry = try #require(withConstraints.versionLock.entities["Member"])
        #expect(entry.contains("#Unique(firstName,lastName)="), "\(entry)")
        #expect(entry.contains("#Index(lastName,firstName)="), "\(entry)")
        #expect(without.versionLock.entities["Member"]?.contains("#") == false)
        let locked = Schema("V2", CMV3.Member.self, versionLock: withConstraints.versionLock)
        let error = await expectStrataError(.schemaMismatch) { try await DataStack(locked, storage: InMemoryStore()) }
        #expect(error?.message.contains("Member.#Unique(firstName,lastName) was removed") == true, "\(String(describing: error))")
        #expect(error?.message.contains("Member.#Index(lastName,firstName) was removed") == true)
        // The printed lock reads back as the same lock.
        let stack = try await DataStack(
            Schema("V2", CMV2.Member.self, versionLock: withConstraints.versionLock), storage: InMemoryStore())
        await stack.close()
    }

    @Test("opening a store whose constraints differ from its version's refuses it, naming the indexes; the same schema opens it")
    func reopenChecksIndexes() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("members.sqlite")
        let first = try await DataStack(Schema("V2", CMV3.Member.self), storage: SQLiteStore(path: path))
        await first.close()
        let error = await expectStrataError(.schemaMismatch) {
            try await DataStack(Schema("V2", CMV2.Member.self), storage: SQLiteStore(path: path))
        }
        #expect(error?.message.contains("Member's table lacks the index(es) Member_firstName_lastName_unique, "
            + "Member_lastName_firstName_index") == true, "\(String(describing: error))")
        #expect(try indexesOfStore(path).isEmpty)
        let again = try await DataStack(Schema("V2", CMV3.Member.self), storage: SQLiteStore(path: path))
        await again.close()
        // And the other way: a store made with the constraints, opened without them.
        let other = directory.path("other.sqlite")
        let made = try await DataStack(Schema("V2", CMV2.Member.self), storage: SQLiteStore(path: other))
        await made.close()
        let reverse = await expectStrataError(.schemaMismatch) {
            try await DataStack(Schema("V2", CMV3.Member.self), storage: SQLiteStore(path: other))
        }
        #expect(reverse?.message.contains("has the index(es) Member_firstName_lastName_unique") == true, "\(String(describing: reverse))")
    }

    @Test("a description written by hand whose list names no stored field, repeats one or is empty is refused")
    func handWrittenDescriptions() throws {
        let fields = CMV3.Member.entityDescription.fields
        for (unique, problem) in [([["firstName", "nope"]], "'nope'"), ([["age", "age", "firstName"]], "twice"), ([[]], "no field")] {
            let entity = EntityDescription(name: "Member", typeName: "Member", fields: fields, uniqueConstraints: unique)
            let schema = Schema(version: "V1", entities: [entity], entityTypes: [ObjectIdentifier(CMV3.Member.self)], declaredVersionLock: nil)
            let error = expectStrataErrorNow(.invalidArgument) { try schema.validate() }
            #expect(error?.message.contains(problem) == true, "\(String(describing: error))")
        }
        let indexed = EntityDescription(name: "Member", typeName: "Member", fields: fields, indexes: [["lastName"], ["age", "lastName"], ["age", "lastName"]])
        #expect(indexed.indexes == [["age", "lastName"]])
        #expect(indexed.field(forProperty: "lastName")?.isIndexed == true)
    }
}
