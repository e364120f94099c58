import Foundation
import Testing
@testable import Strata

@Entity
struct UnsignedTally {
    var hits: UInt64 = 0
    var size: UInt = 0
    var bonus: UInt64?
    @Relationship var parent: UnsignedTally.ID?
}

/// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers, so an ordering filter
/// with such a bound would bind a negative number: it is refused, however the filter is written.
@Suite("Unsigned bounds of ordering filters")
struct UnsignedBoundsTests {
    /// A stack holding tallies of 5 and 7 hits, the second one's parent the first.
    private func makeTallies() async throws -> DataStack {
        let stack = try await DataStack(Schema("V1", UnsignedTally.self))
        try await stack.perform { tx in
            let root = try tx.create(Into<UnsignedTally>()) { $0.hits = 5; $0.size = 5; $0.bonus = 5 }
            try tx.create(Into<UnsignedTally>()) { $0.hits = 7; $0.size = 7; $0.parent = root.id }
        }
        return stack
    }

    @Test("an ordering filter whose UInt64 or UInt bound is above Int64.max throws instead of matching the wrong objects")
    func boundAboveInt64MaxRefused() async throws {
        let stack = try await makeTallies()
        let top = UInt64.max
        let filters: [Where<UnsignedTally>] = [
            \.hits <= UInt64.max,
            \.hits < UInt64.max,
            \.hits > UInt64(Int64.max) + 1,
            \.hits >= UInt64.max,
            \.size <= UInt.max,
            \.bonus <= UInt64.max,
            .between(\.hits, 0...UInt64.max),
            \.parent ~ \.hits < UInt64.max,
        ]
        // Before, each bound -1 (or Int64.min) and matched no object, where Swift matches some.
        for filter in filters {
            let error = await expectStrataError(.unsupportedQuery) {
                try await stack.fetchCount(From<UnsignedTally>().where(filter))
            }
            #expect(error?.message.contains("Int64.max") == true, "\(error?.message ?? "")")
            #expect(error?.entity == "UnsignedTally")
        }
        let predicates: [Predicate<UnsignedTally>] = [
            #Predicate { $0.hits <= top },
            #Predicate { top > $0.hits },
            #Predicate { (0...top).contains($0.hits) },
            #Predicate { (1..<top).contains($0.hits) },
        ]
        for predicate in predicates {
            let error = await expectStrataError(.unsupportedQuery) {
                try await stack.fetchCount(From<UnsignedTally>().where(predicate))
            }
            #expect(error?.message.contains("Int64.max") == true, "\(error?.message ?? "")")
        }
        await stack.close()
    }

    @Test("a format string's ordering against a UInt64 or UInt argument above Int64.max throws")
    func formatBoundAboveInt64MaxRefused() async throws {
        let stack = try await makeTallies()
        let top = UInt64.max
        let refused: [Where<UnsignedTally>] = [
            Where("hits <= %@", top),
            Where("hits < %d", top),
            Where("%@ > hits", top),
            Where("size <= %lu", UInt.max),
            Where("bonus <= %@", top),
            Where("hits BETWEEN %@", [0, top]),
            Where("hits BETWEEN %@", UInt64(0)...top),
            Where("hits BETWEEN {%d, %@}", 0, top),
            Where("parent.hits < %@", top),
            Where("hits IN %@", UInt64(1)...top),
            Where("hits IN %@", UInt64(1)..<top),
        ]
        // Before, each bound was bound as -1 and matched no object.
        for filter in refused {
            let error = await expectStrataError(.invalidArgument) {
                try await stack.fetchCount(From<UnsignedTally>().where(filter))
            }
            #expect(error?.message.contains("Int64.max") == true, "\(error?.message ?? "")")
        }
        func count(_ filter: Where<UnsignedTally>) async throws -> Int {
            try await stack.fetchCount(From<UnsignedTally>().where(filter))
        }
        // Equality and IN stay exact; bounds up to Int64.max order as usual.
        #expect(try await count(Where("hits == %@", top)) == 0)
        #expect(try await count(Where("hits != %d", top)) == 2)
        #expect(try await count(Where("hits IN %@", [UInt64(5), top])) == 1)
        #expect(try await count(Where("hits <= %@", UInt64(Int64.max))) == 2)
        #expect(try await count(Where("hits BETWEEN %@", UInt64(6)...UInt64(Int64.max))) == 1)
        #expect(try await count(Where("hits IN %@", UInt64(6)..<UInt64(Int64.max))) == 1)
        // A range argument is never walked element by element (before, looking for IDs in it
        // allocated one element per integer and crashed the process).
        #expect(try await count(Where("size BETWEEN %@", 0...Int.max)) == 2)
        #expect(try await count(Where("size IN %@", Int.min..<Int.max)) == 2)
        await stack.close()
    }

    @Test("equality, in, and ordering bounds up to Int64.max stay exact")
    func exactComparisons() async throws {
        let stack = try await makeTallies()
        func count(_ filter: Where<UnsignedTally>) async throws -> Int {
            try await stack.fetchCount(From<UnsignedTally>().where(filter))
        }
        let limit = UInt64(Int64.max)
        #expect(try await count(\.hits <= limit) == 2)
        #expect(try await count(\.hits > 5) == 1)
        #expect(try await count(.between(\.hits, 6...limit)) == 1)
        #expect(try await count(\.hits == UInt64.max) == 0)
        #expect(try await count(\.hits != UInt64.max) == 2)
        #expect(try await count(.in(\.hits, [5, UInt64.max])) == 1)
        #expect(try await count(Where(#Predicate<UnsignedTally> { $0.hits <= limit })) == 2)
        let top = UInt64.max
        #expect(try await count(Where(#Predicate<UnsignedTally> { $0.hits != top })) == 2)
        // A stored value above Int64.max reads back exactly, and equality finds it.
        try await stack.perform { tx in _ = try tx.create(Into<UnsignedTally>()) { $0.hits = .max } }
        #expect(try await count(\.hits == UInt64.max) == 1)
        #expect(try await stack.fetchAll(From<UnsignedTally>().where(\.hits == UInt64.max)).first?.hits == .max)
        await stack.close()
    }
}
