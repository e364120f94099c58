import Foundation
import Testing
@testable import Strata

// The same entity declared three ways: reordered (same lock), and edited (a different lock).
enum LockA {
    @Entity(name: "Person")
    struct Person {
        var name: String = ""
        @Field(.indexed, .unique) var email: String?
        var age: Int = 0
        @Relationship var friends: Set<Person.ID> = []
    }
}

enum LockB {
    @Entity(name: "Person")
    struct Person {
        @Relationship var friends: Set<Person.ID> = []
        var age: Int = 0
        @Field(.unique, .indexed) var email: String?
        var name: String = ""
    }
}

enum LockC {
    @Entity(name: "Person")
    struct Person {
        var name: String = ""
        @Field(.indexed, .unique) var email: String?
        var age: Double = 0
        var nickname: String?
    }

    @Entity(name: "Note")
    struct Note {
        var text: String = ""
    }
}

// Member names that are raw identifiers holding the characters of a lock's syntax, and an entity name
// holding a backslash.
enum LockD {
    @Entity(name: "Swatch")
    struct Swatch {
        var `tint color`: String = ""
        var `ratio=x`: Int = 0
        var `50% off`: Bool = false
        var plain: Int = 0
    }

    @Entity(name: "Swatch")
    struct EditedSwatch {
        var `tint color`: Int = 0
        var `ratio=x`: Int = 0
        var `50% off`: Bool = false
        var plain: Int = 0
    }

    @Entity(name: #"Back\slash"#)
    struct Quoted {
        var name: String = ""
    }
}

@Suite("Version locks declared in code")
struct DeclaredVersionLockTests {
    @Test("a lock does not depend on the order of fields, relationships or options, and round-trips as printed")
    func stableLock() throws {
        let a = Schema("V1", LockA.Person.self)
        let b = Schema("V1", LockB.Person.self)
        #expect(a.versionLock == b.versionLock)
        #expect(a.versionLock.description.hasPrefix("[\"Person\": \"age="))
        let members = try #require(a.versionLock.entities["Person"]).split(separator: " ").map { $0.prefix { $0 != "=" } }
        #expect(members == ["age", "email", "friends", "name"])
        // The printed lock, pasted back, validates.
        let locked = Schema("V1", LockB.Person.self, versionLock: ["Person": a.versionLock.entities["Person"]!])
        try locked.validate()
        #expect(a.versionLock != Schema("V1", LockC.Person.self).versionLock)
    }

    @Test("a locked version whose entities were edited fails at stack creation naming each change, before any file is made")
    func editedVersionRefused() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("never.sqlite")
        let lock = Schema("V1", LockA.Person.self).versionLock
        let edited = Schema("V1", LockC.Person.self, LockC.Note.self, versionLock: lock)
        let error = await expectStrataError(.schemaMismatch) { try await DataStack(edited, storage: SQLiteStore(path: path)) }
        let message = error?.message ?? ""
        #expect(message.contains("Schema V1 was locked"), "\(message)")
        #expect(message.contains("entity Note was added"), "\(message)")
        #expect(message.contains("Person.age changed"), "\(message)")
        #expect(message.contains("Person.friends was removed"), "\(message)")
        #expect(message.contains("Person.nickname was added"), "\(message)")
        #expect(!message.contains("Person.name"), "\(message)")
        #expect(message.contains("versionLock: [\"Note\": "), "\(message)")
        #expect(error?.entity == "Note")
        #expect(!FileManager.default.fileExists(atPath: path))
        // The same inside a history, with the first difference as the error's entity and field.
        let history = SchemaHistory(Schema("V1", LockC.Person.self, versionLock: lock), Schema("V2", LockA.Person.self))
        let inHistory = await expectStrataError(.schemaMismatch) { try await DataStack(history, storage: SQLiteStore(path: path)) }
        #expect(inHistory?.entity == "Person" && inHistory?.field == "age")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("member names holding spaces, '=' or '%' print encoded, paste back, and are named decoded when they change")
    func membersWithLockSyntax() async throws {
        let lock = Schema("V1", LockD.Swatch.self).versionLock
        let entry = try #require(lock.entities["Swatch"])
        let names = entry.split(separator: " ").map { $0.prefix { $0 != "=" } }
        #expect(names == ["50%25%20off", "plain", "ratio%3Dx", "tint%20color"], "\(entry)")
        // The printed lock, pasted back, validates: before, "tint color=…" split into "tint" and
        // "color=…", and the lock as printed was refused as malformed.
        try Schema("V1", LockD.Swatch.self, versionLock: ["Swatch": entry]).validate()
        let edited = Schema("V1", LockD.EditedSwatch.self, versionLock: lock)
        let error = await expectStrataError(.schemaMismatch) { try await DataStack(edited) }
        #expect(error?.message.contains("Swatch.tint color changed") == true, "\(error?.message ?? "")")
        #expect(error?.field == "tint color")
        #expect(error?.message.contains("Swatch.ratio") == false && error?.message.contains("Swatch.50") == false,
                "\(error?.message ?? "")")
        // Names without those characters print as they always did.
        #expect(Schema("V1", LockA.Person.self).versionLock.entities["Person"]?.contains("%") == false)
        // A backslash in an entity name is escaped in the printed literal (before, it was printed as it is,
        // and the pasted literal read "\s" as an escape).
        let quoted = Schema("V1", LockD.Quoted.self).versionLock
        #expect(quoted.description.hasPrefix(#"["Back\\slash": "name="#), "\(quoted)")
        try Schema("V1", LockD.Quoted.self, versionLock: [#"Back\slash"#: quoted.entities[#"Back\slash"#] ?? ""]).validate()
    }

    @Test("a lock that is not as versionLock prints it is refused as malformed, naming the entry")
    func malformedLock() async throws {
        let garbled = Schema("V1", LockA.Person.self, versionLock: ["Person": "age 5c1a90e2"])
        let error = await expectStrataError(.invalidArgument) { try await DataStack(garbled) }
        #expect(error?.entity == "Person" && error?.message.contains("\"age 5c1a90e2\"") == true, "\(error?.message ?? "")")
        let short = Schema("V1", LockA.Person.self, versionLock: ["Person": "age=5c1a"])
        await expectStrataError(.invalidArgument) { try await DataStack(short) }
    }
}
