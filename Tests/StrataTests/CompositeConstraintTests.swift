import Foundation
import Testing
@testable import Strata

@Entity(name: "Club")
struct CClub {
    var name: String = ""
}

/// No two members share a first and a last name, nor a club and a nickname; members are indexed by
/// last name, then first name.
@Entity(name: "Member")
struct CMember {
    #Unique<CMember>([\.firstName, \.lastName], [\.club, \.nickname])
    #Index<CMember>([\.lastName, \.firstName])
    var firstName: String = ""
    var lastName: String = ""
    var nickname: String? = nil
    @Relationship var club: CClub.ID?
}

/// One-field lists are the field options: the same table as ``CContactOptions``.
@Entity(name: "Contact")
struct CContactLists {
    #Unique<CContactLists>([\.email])
    #Index<CContactLists>([\.code])
    @Field(.unique) var email: String = ""
    var code: Int = 0
}

@Entity(name: "Contact")
struct CContactOptions {
    @Field(.unique) var email: String = ""
    @Field(.indexed) var code: Int = 0
}

/// `Self` and the qualified name both name the entity.
enum CNested {
    @Entity(name: "Tagged")
    struct Tagged {
        #Unique<Self>([\.a, \.b])
        #Index<CNested.Tagged>([\.b, \.a])
        var a: Int = 0
        var b: Int = 0
    }
}

/// A seat is upserted by its code; no two seats share a row and a number.
@Entity(name: "Seat")
struct CSeat {
    #Unique<CSeat>([\.row, \.number])
    @Field(.unique) var code: String = ""
    var row: Int = 0
    var number: Int = 0
}

let compositeSchema = Schema("V1", CClub.self, CMember.self)

/// The indexes of a store's user tables: name → "table(columns) unique?".
func indexesOfStore(_ path: String) throws -> [String: String] {
    let connection = try Connection(path: path, options: Connection.Options())
    defer { connection.close() }
    let statement = try connection.makeStatement(
        "SELECT m.name, m.tbl_name || '(' || (SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_index_info(m.name) ORDER BY seqno)) "
            + "|| ')' || CASE WHEN m.sql LIKE 'CREATE UNIQUE%' THEN ' unique' ELSE '' END "
            + "FROM sqlite_schema m WHERE m.type = 'index' AND m.sql IS NOT NULL AND m.tbl_name NOT LIKE 'strata%'")
    var result: [String: String] = [:]
    while try statement.step() {
        if case .text(let name) = statement.value(at: 0), case .text(let columns) = statement.value(at: 1) { result[name] = columns }
    }
    return result
}

@Suite("Unique constraints and indexes over several fields", .timeLimit(.minutes(1)))
struct CompositeConstraintTests {
    @Test("the description holds the lists; a one-field list is the field's option, and makes the same table as the option")
    func description() {
        #expect(CMember.entityDescription.uniqueConstraints == [["firstName", "lastName"], ["club", "nickname"]])
        #expect(CMember.entityDescription.indexes == [["lastName", "firstName"]])
        #expect(CNested.Tagged.entityDescription.uniqueConstraints == [["a", "b"]])
        #expect(CNested.Tagged.entityDescription.indexes == [["b", "a"]])
        #expect(CNested.Tagged.entityDescription.description == "Tagged { a: integer = 0, b: integer = 0, #Unique(a, b), #Index(b, a) }")
        let lists = CContactLists.entityDescription
        #expect(lists.uniqueConstraints.isEmpty && lists.indexes.isEmpty)
        #expect(lists.field(forProperty: "email")?.isUnique == true && lists.field(forProperty: "code")?.isIndexed == true)
        #expect(Schema("V1", CContactLists.self).versionHash == Schema("V1", CContactOptions.self).versionHash)
        #expect(Schema("V1", CContactLists.self).versionLock == Schema("V1", CContactOptions.self).versionLock)
    }

    @Test("a schema without constraints over several fields keeps the canonical text (and hash) it had before them")
    func unchangedHash() {
        #expect(Schema("V1", CClub.self).canonicalText == "lock2;Club(name:TEXT:notnull:)[]{}")
        #expect(Schema("V1", CClub.self).legacyCanonicalText == "Club(name:TEXT:notnull:)[]{}")
        #expect(compositeSchema.canonicalText.hasSuffix("<unique:club+nickname,firstName+lastName><index:lastName+firstName>"))
    }

    @Test("a new store has a unique index and an index over the columns, in order, with names made of the columns")
    func storeIndexes() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("members.sqlite")
        let stack = try await DataStack(compositeSchema, storage: SQLiteStore(path: path))
        await stack.close()
        #expect(try indexesOfStore(path) == [
            "Member_firstName_lastName_unique": "Member(firstName,lastName) unique",
            "Member_club_nickname_unique": "Member(club,nickname) unique",
            "Member_lastName_firstName_index": "Member(lastName,firstName)",
            "Member_club_index": "Member(club)",
        ])
        let contacts = directory.path("contacts.sqlite")
        let other = try await DataStack(Schema("V1", CContactLists.self), storage: SQLiteStore(path: contacts))
        await other.close()
        #expect(try indexesOfStore(contacts) == ["Contact_code_index": "Contact(code)"], "one index, as .indexed makes")
    }

    @Test("inserting a member with the first and last name of another throws uniqueConstraint naming both, and rolls back",
        arguments: StoreKind.allCases)
    func violationOnInsert(kind: StoreKind) async throws {
        let (stack, directory) = try await makeStack(kind, schema: compositeSchema)
        _ = directory
        try await stack.perform { tx in _ = try tx.create(Into<CMember>()) { $0.firstName = "Ada"; $0.lastName = "Lovelace" } }
        let error = await expectStrataError(.uniqueConstraint) {
            try await stack.perform { tx in
                _ = try tx.create(Into<CMember>()) { $0.firstName = "Grace"; $0.lastName = "Hopper" }
                _ = try tx.create(Into<CMember>()) { $0.firstName = "Ada"; $0.lastName = "Lovelace" }
            }
        }
        #expect(error?.entity == "Member")
        #expect(error?.field == "firstName")
        #expect(error?.fields == ["firstName", "lastName"])
        #expect(error?.message.contains("firstName and lastName") == true, "\(String(describing: error))")
        #expect(error?.description.contains("fields: firstName, lastName") == true)
        #expect(try await stack.fetchAll(From<CMember>()).map(\.firstName) == ["Ada"], "Grace was rolled back with the duplicate")
        await stack.close()
    }

    @Test("editing a member into the names of another throws uniqueConstraint naming both; the edit is rolled back",
        arguments: StoreKind.allCases)
    func violationOnEdit(kind: StoreKind) async throws {
        let (stack, directory) = try await makeStack(kind, schema: compositeSchema)
        _ = directory
        let byron = try await stack.perform { tx in
            _ = try tx.create(Into<CMember>()) { $0.firstName = "Ada"; $0.lastName = "Lovelace" }
            return try tx.create(Into<CMember>()) { $0.firstName = "Ada"; $0.lastName = "Byron" }.id
        }
        let error = await expectStrataError(.uniqueConstraint) {
            try await stack.perform { tx in try tx.edit(byron) { $0.lastName = "Lovelace" } }
        }
        #expect(error?.entity == "Member" && error?.fields == ["firstName", "lastName"])
        #expect(try await stack.fetchOne(From<CMember>().where(\.id == byron))?.lastName == "Byron")
        await stack.close()
    }

    @Test("objects that share one field of a constraint, not all, are accepted")
    func oneFieldRepeats() async throws {
        let (stack, _) = try await makeStack(.inMemory, schema: compositeSchema)
        try await stack.perform { tx in
            for (first, last) in [("Ada", "Lovelace"), ("Ada", "Byron"), ("Grace", "Lovelace")] {
                _ = try tx.create(Into<CMember>()) { $0.firstName = first; $0.lastName = last }
            }
        }
        #expect(try await stack.fetchCount(From<CMember>()) == 3)
        await stack.close()
    }

    @Test("a nil in an optional field of a constraint never conflicts (SQLite's NULLs are distinct); values in all fields do",
        arguments: StoreKind.allCases)
    func nulls(kind: StoreKind) async throws {
        let (stack, directory) = try await makeStack(kind, schema: compositeSchema)
        _ = directory
        let club = try await stack.perform { tx in try tx.create(Into<CClub>()) { $0.name = "Chess" }.id }
        try await stack.perform { tx in
            for (index, (club, nickname)) in [(club, nil), (club, nil), (nil, "Ace"), (nil, "Ace"), (nil, nil)].enumerated() {
                _ = try tx.create(Into<CMember>()) { $0.firstName = "M\(index)"; $0.club = club; $0.nickname = nickname }
            }
            _ = try tx.create(Into<CMember>()) { $0.firstName = "Ann"; $0.club = club; $0.nickname = "Ace" }
        }
        #expect(try await stack.fetchCount(From<CMember>()) == 6)
        let error = await expectStrataError(.uniqueConstraint) {
            try await stack.perform { tx in _ = try tx.create(Into<CMember>()) { $0.firstName = "Bo"; $0.club = club; $0.nickname = "Ace" } }
        }
        #expect(error?.fields == ["club", "nickname"])
        await stack.close()
    }

    @Test("upsertAll keys on one unique field; a source that breaks a constraint over several fields fails the call naming them")
    func upsertBreaksConstraint() async throws {
        let (stack, _) = try await makeStack(.inMemory, schema: Schema("V1", CSeat.self))
        let seats = [("A1", 1, 1), ("A2", 1, 2), ("A1", 1, 3)]
        let result = try await stack.perform { tx in
            try tx.upsertAll(Into<CSeat>(), from: seats, uniqueBy: \.code) { source, seat in
                (seat.code, seat.row, seat.number) = source
            }
        }
        #expect(result.insertedIDs.count == 2 && result.updated.count == 1)
        do {
            try await stack.perform { tx in
                try tx.upsertAll(Into<CSeat>(), from: [("B7", 1, 2)], uniqueBy: \.code) { source, seat in
                    (seat.code, seat.row, seat.number) = source
                }
            }
            Issue.record("the upsert broke the constraint over row and number")
        } catch let error as ImportError {
            let underlying = try #require(error.underlying as? StrataError)
            #expect(underlying.code == .uniqueConstraint && underlying.fields == ["row", "number"], "\(underlying)")
        }
        #expect(try await stack.fetchCount(From<CSeat>()) == 2)
        await stack.close()
    }

    @Test("a constraint of an entity kept in a named configuration's store holds there")
    func namedConfiguration() async throws {
        let directory = try TemporaryDirectory()
        let schema = Schema("V1", CClub.self, CMember.self, CContactOptions.self).configuration("Members", CClub.self, CMember.self)
        let membersPath = directory.path("members.sqlite")
        let stack = try await DataStack(
            schema, storages: [SQLiteStore(path: directory.path("main.sqlite")), SQLiteStore(path: membersPath).configuration("Members")])
        try await stack.perform { tx in _ = try tx.create(Into<CMember>()) { $0.firstName = "Ada"; $0.lastName = "Lovelace" } }
        let error = await expectStrataError(.uniqueConstraint) {
            try await stack.perform { tx in _ = try tx.create(Into<CMember>()) { $0.firstName = "Ada"; $0.lastName = "Lovelace" } }
        }
        #expect(error?.entity == "Member" && error?.fields == ["firstName", "lastName"])
        await stack.close()
        #expect(try indexesOfStore(membersPath)["Member_firstName_lastName_unique"] == "Member(firstName,lastName) unique")
        #expect(try indexesOfStore(directory.path("main.sqlite"))["Member_firstName_lastName_unique"] == nil)
    }
}
