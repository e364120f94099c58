public import Foundation
public import Strata
import Testing

// This target is compiled with `defaultIsolation(MainActor.self)`, the default of new Xcode 26 app
// targets: every declaration below is main-actor isolated unless it says otherwise, and the members
// `@Entity` generates must still witness the nonisolated requirements of `Entity`. The value types the
// fields use are declared `nonisolated`, as such an app must: the store encodes, decodes and creates
// them off the main actor (a main-actor `Codable` conformance or `static let red` cannot be used there).

/// A value stored through a custom encode / decode pair.
nonisolated struct IsolatedTint: Hashable, Sendable {
    var hex: String
    static let red = IsolatedTint(hex: "ff0000")
}

/// A `Codable` value stored as JSON.
nonisolated struct IsolatedAddress: Codable, Hashable, Sendable {
    var city: String = ""
}

@Entity
struct IsolatedOwner {
    var name: String = ""
    @Field(.indexed) var age: Int = 0
    var nickname: String?
    @Field(dynamicInitialValue: { UUID() }) var token: UUID
    @Coded var address: IsolatedAddress?
    @Coded(encode: { $0.hex }, decode: { IsolatedTint(hex: $0) }) var tint: IsolatedTint = .red
    @Relationship(deleteRule: .cascade) var pets: Set<IsolatedPet.ID> = []
    @Derived(count: \IsolatedOwner.pets) var petCount: Int = 0
    var label: String { "\(name) (\(age))" }
}

@Entity
struct IsolatedPet {
    var name: String = ""
    @Relationship(inverse: \IsolatedOwner.pets) var owner: IsolatedOwner.ID?
}

/// Public entities nested in a type, declared in its body and in a public extension.
public enum IsolatedCatalog {
    @Entity
    public struct Item {
        public var title: String = ""
        @Field(dynamicInitialValue: { Date() }) public var created: Date = .distantPast
    }
}

public extension IsolatedCatalog {
    @Entity
    struct Shelf {
        var label: String = ""
    }
}

@Suite("@Entity under main-actor default isolation")
struct MainActorDefaultIsolationTests {
    @Test("Entities declared in a main-actor module are created, fetched, queried and counted")
    func entitiesWork() async throws {
        let schema = Schema(
            "V1", IsolatedOwner.self, IsolatedPet.self, IsolatedCatalog.Item.self, IsolatedCatalog.Shelf.self)
        let stack = try await DataStack(schema, storage: InMemoryStore())
        let ownerID = try await stack.perform { tx in
            let owner = try tx.create(Into<IsolatedOwner>()) {
                $0.name = "Ada"
                $0.age = 36
                $0.address = IsolatedAddress(city: "London")
            }
            try tx.create(Into<IsolatedPet>()) { $0.name = "Rex"; $0.owner = owner.id }
            try tx.create(Into<IsolatedCatalog.Item>()) { $0.title = "Book" }
            try tx.create(Into<IsolatedCatalog.Shelf>()) { $0.label = "Top" }
            return owner.id
        }
        let owner = try #require(try await stack.fetchExisting(ownerID))
        #expect(owner.name == "Ada")
        #expect(owner.address?.city == "London")
        #expect(owner.tint == .red)
        #expect(owner.petCount == 1)
        #expect(owner.pets.count == 1)
        let adults = try await stack.fetchCount(From<IsolatedOwner>().where(\.age >= 18))
        #expect(adults == 1)
        let byOwner = try await stack.fetchAll(From<IsolatedPet>().where(\.owner?.name == "Ada"))
        #expect(byOwner.map(\.name) == ["Rex"])
        let items = try await stack.fetchAll(From<IsolatedCatalog.Item>())
        #expect(items.map(\.title) == ["Book"])
        #expect(items.first?.created != .distantPast)
        #expect(try await stack.fetchAll(From<IsolatedCatalog.Shelf>()).map(\.label) == ["Top"])
        let virtual = await #expect(throws: StrataError.self) {
            try await stack.fetchAll(From<IsolatedOwner>().where(\.label == "Ada (36)"))
        }
        #expect(virtual?.code == .unsupportedQuery)
    }
}
