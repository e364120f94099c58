import Foundation
import Testing
@testable import Strata

// MARK: - Entities whose declarations use their scope: Self, conditional defaults, raw identifiers

/// A value stored as an integer through `@Coded` closures.
struct ScopeStamp: Hashable, Sendable {
    var value: Int
}

/// A value stored as text through `@Coded` closures.
struct ScopeTint: Hashable, Sendable {
    var hex: String
}

@Entity
struct ScopeTicket {
    static let isPro = true
    static let level = 2
    static func newCode() -> String { "T-\(level)" }
    static func format(_ stamp: ScopeStamp) -> Int { stamp.value }
    static func parse(_ value: Int) -> ScopeStamp { ScopeStamp(value: value) }

    @Field(dynamicInitialValue: { Self.newCode() }) var code: String
    @Coded(encode: { Self.format($0) }, decode: { Self.parse($0) }) var stamp: ScopeStamp = ScopeStamp(value: 7)
    @Field(dynamicInitialValue: { MemoryLayout<Self>.size > 0 }) var sized: Bool
    var limit: Int = if Self.isPro { 100 } else { 10 }
    var tier: String = switch Self.level {
    case 0: "free"
    default: "paid"
    }
    @Coded var tags: [String] = if Self.isPro { ["pro"] } else { [] }
    @Field(dynamicInitialValue: { ScopeTint(hex: "00ff00") })
    @Coded(encode: { $0.hex }, decode: { ScopeTint(hex: $0) })
    var `tint color`: ScopeTint
}

@Suite("@Entity declarations that use their scope")
struct EntityScopeTests {
    @Test("Self in dynamic initial values and @Coded closures, and if / switch defaults, are the entity's")
    func selfAndConditionalDefaults() async throws {
        let object = ScopeTicket(newObject: NewObject())
        #expect(object.code == "T-2")
        #expect(object.sized)
        #expect(object.limit == 100)
        #expect(object.tier == "paid")
        #expect(object.`tint color` == ScopeTint(hex: "00ff00"))
        let defaults = Dictionary(
            uniqueKeysWithValues: ScopeTicket.entityDescription.fields.map { ($0.property, $0.defaultValue) })
        #expect(defaults["limit"] == .integer(100))
        #expect(defaults["tier"] == .text("paid"))
        #expect(defaults["stamp"] == .integer(7))
        #expect(defaults["tags"] == .text(#"["pro"]"#))

        let stack = try await DataStack(Schema("V1", ScopeTicket.self), storage: InMemoryStore())
        let created = try await stack.perform { tx in
            try tx.create(Into<ScopeTicket>()) { $0.stamp = ScopeStamp(value: 42); $0.`tint color` = ScopeTint(hex: "0000ff") }
        }
        let read = try #require(try await stack.fetchExisting(created.id))
        #expect(read == created)
        #expect(read.stamp == ScopeStamp(value: 42))
        #expect(read.`tint color` == ScopeTint(hex: "0000ff"))
    }
}
