import Foundation
import Testing
@testable import Strata

/// SQLite rolls a whole transaction back, savepoints included, when a statement that writes fails with
/// some errors: a full disk or an I/O error in a statement without a statement journal, or an interrupt
/// (what cancelling the task causes) at some points. Nothing may then run outside the transaction, nor
/// be reported as committed. The tests fill the disk with `PRAGMA max_page_count`, which SQLite answers
/// with `SQLITE_FULL` as it would a full disk.
@Suite("Transactions SQLite rolled back", .timeLimit(.minutes(1)))
struct LostTransactionTests {
    static let padding = String(repeating: "x", count: 300)

    /// Lets the database grow no more.
    static func fillDisk(_ tx: Transaction) throws {
        try tx.connection.execute("PRAGMA max_page_count = 1")
    }

    static func makeRoom(_ tx: Transaction) throws {
        try tx.connection.execute("PRAGMA max_page_count = 1073741823")
    }

    /// Checks that an unsafe transaction whose loss was reported takes and commits new work, and ends.
    static func goesOn(_ unsafe: UnsafeTransaction, _ stack: DataStack) async throws {
        try await unsafe.perform { tx in
            try makeRoom(tx)
            _ = try tx.create(Into<Person>()) { $0.name = "after" }
        }
        #expect(try await unsafe.commit().insertedIDs(Person.self).count == 1)
        await unsafe.end()
        #expect(try await stack.fetchAll(From<Person>()).map(\.name) == ["after"])
    }

    @Test("a closure that catches the error after which SQLite rolled back writes nothing outside the transaction")
    func caughtLossWritesNothing() async throws {
        let (stack, _) = try await makeStack()
        let error = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in
                _ = try tx.create(Into<Person>()) { $0.name = "first" }
                try Self.fillDisk(tx)
                var full = false
                for age in 0..<2_000 {
                    do {
                        _ = try tx.create(Into<Person>()) { $0.age = age; $0.name = Self.padding }
                    } catch {
                        // Room again: a write that ran now in autocommit would stay.
                        if !full { try Self.makeRoom(tx) }
                        full = true
                    }
                }
            }
        }
        #expect(error?.code == .diskFull)
        #expect(error?.message.contains("nothing the transaction did is kept") == true, "\(String(describing: error))")
        #expect(try await stack.fetchCount(From<Person>()) == 0)
        // The writer goes on.
        try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "next" } }
        #expect(try await stack.fetchAll(From<Person>()).map(\.name) == ["next"])
    }

    @Test("an unsafe block SQLite rolled back takes the earlier uncommitted work with it, and the next commit says so")
    func unsafeLossIsReported() async throws {
        let (stack, _) = try await makeStack()
        let unsafe = try await stack.beginUnsafe()
        try await unsafe.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "pending" } }
        await #expect(throws: StrataError.self) {
            try await unsafe.perform { tx in
                try Self.fillDisk(tx)
                for age in 0..<2_000 { _ = try tx.create(Into<Person>()) { $0.age = age; $0.name = Self.padding } }
            }
        }
        // The loss is reported once: the work of the block that succeeded is gone.
        let error = await #expect(throws: StrataError.self) { try await unsafe.commit() }
        #expect(error?.code == .diskFull)
        #expect(error?.message.contains("nothing the transaction did is kept") == true, "\(String(describing: error))")
        #expect(try await !unsafe.hasChanges)
        #expect(try await unsafe.commit().isEmpty)
        // The transaction goes on afresh.
        try await Self.goesOn(unsafe, stack)
    }

    @Test("a loss inside a call that leaves all or nothing (insertAll) is reported as the loss, and an unsafe transaction goes on")
    func lossInsideAnAtomicCall() async throws {
        let (stack, _) = try await makeStack()
        let error = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in
                try Self.fillDisk(tx)
                do {
                    _ = try tx.insertAll(Into<Person>(), from: Array(0..<2_000)) { age, person in
                        person.age = age
                        person.name = Self.padding
                    }
                } catch {}
                try Self.makeRoom(tx)
                _ = try? tx.create(Into<Person>()) { $0.name = "caught" }
            }
        }
        #expect(error?.code == .diskFull, "\(String(describing: error))")
        #expect(try await stack.fetchCount(From<Person>()) == 0)
        let unsafe = try await stack.beginUnsafe()
        await #expect(throws: StrataError.self) {
            try await unsafe.perform { tx in
                try Self.fillDisk(tx)
                _ = try tx.insertAll(Into<Person>(), from: Array(0..<2_000)) { age, person in
                    person.age = age
                    person.name = Self.padding
                }
            }
        }
        let reported = await #expect(throws: StrataError.self) { try await unsafe.commit() }
        #expect(reported?.code == .diskFull)
        // Reported once: the transaction goes on.
        try await Self.goesOn(unsafe, stack)
    }
}
