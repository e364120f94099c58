import Foundation
import Testing
@testable import Strata

/// IDs are assigned by the writer (no `AUTOINCREMENT`) and are never used twice in a store: not after
/// deletes, not across reopening, not when another stack writes to the same file.
@Suite("ID allocation")
struct IDAllocationTests {
    func create(_ stack: DataStack, _ count: Int = 1) async throws -> [Int64] {
        try await stack.perform { tx in try (0..<count).map { _ in try tx.create(Into<Person>()).id.rawValue } }
    }

    @Test("deleting the newest objects, even in the transaction that made them, frees no ID, across reopening")
    func deletesAcrossReopening() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("ids.sqlite")
        var used: Set<Int64> = []
        do {
            let stack = try await DataStack(testSchema, storage: SQLiteStore(path: path))
            let made = try await create(stack, 3)
            #expect(made == [1, 2, 3])
            used.formUnion(made)
            try await stack.perform { tx in
                try tx.delete(Person.ID(rawValue: 3))
                try tx.delete(Person.ID(rawValue: 2))
            }
            let next = try await create(stack)
            #expect(next == [4])
            used.formUnion(next)
            // Created and deleted before anyone could see it: still never given again.
            let fleeting = try await stack.perform { tx in
                let person = try tx.create(Into<Person>())
                try tx.delete(person)
                return person.id.rawValue
            }
            #expect(fleeting == 5)
            used.insert(fleeting)
            try await stack.perform { tx in try tx.delete(Person.ID(rawValue: 4)) }
            await stack.close()
        }
        let reopened = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        let after = try await create(reopened, 2)
        #expect(after == [6, 7])
        #expect(used.isDisjoint(with: after))
        await reopened.close()
    }

    @Test("a transaction that deletes the newest objects before its first creation never gives their IDs again")
    func deleteBeforeFirstCreation() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("replace.sqlite")
        do {
            let stack = try await DataStack(testSchema, storage: SQLiteStore(path: path))
            #expect(try await create(stack, 3) == [1, 2, 3])
            await stack.close()
        }
        // A fresh stack has no counter loaded: "replace all data" deletes first, then creates.
        let stack = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        let (made, inserted, deleted) = try await stack.perform { tx in
            try tx.deleteAll(From<Person>())
            let made = try (0..<2).map { _ in try tx.create(Into<Person>()).id.rawValue }
            return (made, tx.insertedIDs(Person.self), tx.deletedIDs(Person.self))
        }
        #expect(made == [4, 5])
        #expect(inserted.isDisjoint(with: deleted))
        await stack.close()
    }

    @Test("a transaction that rolls back leaves the next IDs usable")
    func rollback() async throws {
        let (stack, _) = try await makeStack()
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await stack.perform { tx in
                _ = try tx.create(Into<Person>())
                throw Failure()
            }
        }
        let made = try await create(stack, 2)
        #expect(made.count == 2 && Set(made).count == 2)
        #expect(try await stack.fetchCount(From<Person>()) == 2)
    }

    @Test("two stacks writing one file never collide and never reuse each other's IDs")
    func twoStacks() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let first = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        let second = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        var used = Set(try await create(first, 2))          // first's counter is now loaded
        let fromSecond = try await create(second, 3)         // second writes past it
        #expect(used.isDisjoint(with: fromSecond))
        used.formUnion(fromSecond)
        let newest = try #require(fromSecond.max())
        // Deleted, the other stack's IDs leave no row behind to collide with: only its mark protects them.
        try await second.perform { tx in
            for id in fromSecond { try tx.delete(Person.ID(rawValue: id)) }
        }
        let again = try await create(first, 2)               // first notices the other writer
        #expect(used.isDisjoint(with: again))
        #expect(again.allSatisfy { $0 > newest })
        // The other stack, in turn, counts past the first one's new objects.
        let third = try await create(second, 1)
        #expect(used.union(again).isDisjoint(with: third))
        #expect(try await first.fetchCount(From<Person>()) == 5)
        await first.close()
        await second.close()
    }

    @Test("a store whose tables used AUTOINCREMENT keeps counting from its sqlite_sequence")
    func legacySequence() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("legacy.sqlite")
        do {
            let stack = try await DataStack(testSchema, storage: SQLiteStore(path: path))
            _ = try await create(stack, 1)
            await stack.close()
        }
        // As an AUTOINCREMENT table would have left it: row 1 remains, IDs up to 40 were used.
        let connection = try Connection(path: path, options: Connection.Options())
        try connection.execute("CREATE TABLE legacy_marker (id INTEGER PRIMARY KEY AUTOINCREMENT)")
        try connection.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('Person', 40)")
        connection.close()
        let stack = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        #expect(try await create(stack, 1) == [41])
        await stack.close()
    }
}
