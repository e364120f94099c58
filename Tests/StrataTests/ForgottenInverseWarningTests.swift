import Logging
import Testing
@testable import Strata

// A holder lists items and an item points back to its holder, but neither side names the other as
// its inverse: two unrelated relationships, most likely by mistake.

@Entity
struct ForgotHolder {
    var name: String = ""
    @Relationship var items: Set<ForgotItem.ID> = []
}

@Entity
struct ForgotItem {
    var name: String = ""
    @Relationship var holder: ForgotHolder.ID?
}

/// The same pair with the inverse declared: no warning.
@Entity
struct ForgotDeclaredHolder {
    @Relationship(inverse: \ForgotDeclaredItem.holder) var items: Set<ForgotDeclaredItem.ID> = []
}

@Entity
struct ForgotDeclaredItem {
    @Relationship var holder: ForgotDeclaredHolder.ID?
}

/// Two to-ones of the target point back: no guess, no warning.
@Entity
struct ForgotShelf {
    @Relationship var books: Set<ForgotBook.ID> = []
}

@Entity
struct ForgotBook {
    @Relationship var shelf: ForgotShelf.ID?
    @Relationship var formerShelf: ForgotShelf.ID?
}

@Suite("Forgotten inverse warning")
struct ForgottenInverseWarningTests {
    @Test("a to-many and the one to-one pointing back, with no inverse on either, are logged as a warning")
    func warnsAndKeepsBehaviour() async throws {
        let logs = CapturedLogs()
        var configuration = DataStack.Configuration()
        configuration.logger = logs.logger()
        let stack = try await DataStack(Schema("V1", ForgotHolder.self, ForgotItem.self), configuration: configuration)
        let warnings = logs.all.filter { $0.level == .warning }
        #expect(warnings.count == 1, "\(warnings.map(\.message))")
        let message = try #require(warnings.first?.message)
        #expect(message.contains("ForgotHolder.items (to-many) and ForgotItem.holder (to-one"), "\(message)")
        #expect(message.contains("@Relationship(inverse: \\ForgotItem.holder)"), "\(message)")
        #expect(warnings.first?.metadata["strata.schema"] == "V1")
        // Behaviour is unchanged: the two relationships stay unrelated.
        let (holder, item) = try await stack.perform { tx in
            let holder = try tx.create(Into<ForgotHolder>()) { $0.name = "box" }
            let item = try tx.create(Into<ForgotItem>()) { $0.holder = holder.id }
            return (holder.id, item.id)
        }
        #expect(try await stack.fetchExisting(item)?.holder == holder)
        #expect(try await stack.fetchExisting(holder)?.items == [])
        await stack.close()
    }

    @Test("no warning when the inverse is declared, or when several to-ones point back")
    func noWarningWhenDeclaredOrAmbiguous() {
        #expect(Schema("V1", ForgotDeclaredHolder.self, ForgotDeclaredItem.self).warnings.isEmpty)
        #expect(Schema("V1", ForgotShelf.self, ForgotBook.self).warnings.isEmpty)
        #expect(Schema("V1", InverseOwner.self, InverseVet.self, InversePet.self).warnings.isEmpty)
    }
}
