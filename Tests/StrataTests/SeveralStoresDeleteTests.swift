import Foundation
import Testing
@testable import Strata

// A crate may not be deleted while it holds items (a deny rule); both live in two configurations.

@Entity(name: "Crate")
struct StoreCrate {
    var label: String = ""
    @Relationship(deleteRule: .deny, inverse: \StoreCrateItem.crate) var items: Set<StoreCrateItem.ID> = []
}

@Entity(name: "CrateItem")
struct StoreCrateItem {
    var name: String = ""
    @Relationship var crate: StoreCrate.ID?
}

@Suite("Several stores: deletes", .timeLimit(.minutes(1)))
struct SeveralStoresDeleteTests {
    static let schema = Schema("V1", StoreCrate.self, StoreCrateItem.self)
        .configuration("A", StoreCrate.self, StoreCrateItem.self)
        .configuration("B", StoreCrate.self, StoreCrateItem.self)

    @Test(
        "deleteAll over two stores is all or none: a deny rule in one store keeps the other store's objects too",
        arguments: ["A", "B"])
    func deleteAllRefusedInOneStore(heldIn refusing: String) async throws {
        let stack = try await DataStack(Self.schema, storages: [InMemoryStore().configuration("A"), InMemoryStore().configuration("B")])
        let crates = try await stack.perform { tx in
            let a = try tx.create(Into<StoreCrate>("A")) { $0.label = "a" }
            let b = try tx.create(Into<StoreCrate>("B")) { $0.label = "b" }
            // Only the refusing store's crate holds an item.
            try tx.create(Into<StoreCrateItem>(refusing)) { $0.name = "item"; $0.crate = refusing == "A" ? a.id : b.id }
            return [a.id, b.id]
        }
        let (deleted, after) = try await stack.perform { tx in
            let error = expectStrataErrorNow(.deleteDenied) { try tx.deleteAll(From<StoreCrate>()) }
            #expect(error?.entity == "Crate" && error?.field == "items")
            try tx.create(Into<StoreCrate>("A")) { $0.label = "after" }
            return (tx.deletedIDs(StoreCrate.self), try tx.fetchCount(From<StoreCrate>()))
        }
        #expect(deleted.isEmpty, "the change set lists no deletion")
        #expect(after == 3)
        // Before, the store read first lost its crate whenever the other store refused: the caller that
        // caught the error committed half of the call.
        #expect(try await stack.fetchExisting(crates[0])?.label == "a")
        #expect(try await stack.fetchExisting(crates[1])?.label == "b")
        #expect(try await stack.fetchCount(From<StoreCrate>()) == 3)
        #expect(try await stack.fetchCount(From<StoreCrateItem>()) == 1)
        await stack.close()
    }

    @Test("deleteAll over two stores deletes in both once nothing refuses")
    func deleteAllInBothStores() async throws {
        let stack = try await DataStack(Self.schema, storages: [InMemoryStore().configuration("A"), InMemoryStore().configuration("B")])
        try await stack.perform { tx in
            try tx.create(Into<StoreCrate>("A")) { $0.label = "a" }
            try tx.create(Into<StoreCrate>("B")) { $0.label = "b" }
        }
        let (count, deleted) = try await stack.perform { tx in
            (try tx.deleteAll(From<StoreCrate>()), tx.deletedIDs(StoreCrate.self).count)
        }
        #expect(count == 2 && deleted == 2)
        #expect(try await stack.fetchCount(From<StoreCrate>()) == 0)
        await stack.close()
    }
}
