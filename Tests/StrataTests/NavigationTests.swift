import Foundation
import Testing
@testable import Strata

/// Following to-one relationships by key path (`\.company?.name`) in filters, sort keys, queries and
/// `#Predicate`, and reading related fields from prefetched objects.
@Suite("To-one navigation and prefetching", .timeLimit(.minutes(1)))
struct NavigationTests {
    let stack: DataStack

    init() async throws {
        stack = try await DataStack(Schema("V1", ChainCity.self, ChainCompany.self, ChainEmployee.self))
        try await stack.perform { tx in
            let paris = try tx.create(Into<ChainCity>()) { $0.name = "Paris" }
            let oslo = try tx.create(Into<ChainCity>()) { $0.name = "Oslo" }
            let acme = try tx.create(Into<ChainCompany>()) { $0.name = "Acme"; $0.city = paris.id }
            let nordic = try tx.create(Into<ChainCompany>()) { $0.name = "Nordic"; $0.city = oslo.id }
            let nowhere = try tx.create(Into<ChainCompany>()) { $0.name = "Nowhere" }
            try tx.create(Into<ChainEmployee>()) { $0.name = "Ann"; $0.level = 3; $0.company = acme.id }
            try tx.create(Into<ChainEmployee>()) { $0.name = "Bob"; $0.level = 1; $0.company = nordic.id }
            try tx.create(Into<ChainEmployee>()) { $0.name = "Cid"; $0.level = 2; $0.company = nowhere.id; $0.formerCompany = acme.id }
            try tx.create(Into<ChainEmployee>()) { $0.name = "Dee"; $0.level = 5 }
        }
    }

    func names(_ predicate: Where<ChainEmployee>) async throws -> [String] {
        try await stack.fetchAll(From<ChainEmployee>().where(predicate).orderBy(.ascending(\.name))).map(\.name)
    }

    func names(_ predicate: Predicate<ChainEmployee>) async throws -> [String] {
        try await names(Where(predicate))
    }

    @Test("key-path filters follow to-one chains with Swift's optional semantics")
    func keyPathFilters() async throws {
        #expect(try await names(\.company?.name == "Acme") == ["Ann"])
        #expect(try await names(\.company?.name != "Acme") == ["Bob", "Cid", "Dee"])
        #expect(try await names(\.company?.name == nil) == ["Dee"])
        #expect(try await names(\.company?.city?.name == "Paris") == ["Ann"])
        #expect(try await names(\.company?.city?.name == nil) == ["Cid", "Dee"])
        #expect(try await names(\.company?.city?.name == "Oslo" || \.level >= 5) == ["Bob", "Dee"])
        #expect(try await names(.hasPrefix(\.company?.name, "N")) == ["Bob", "Cid"])
        #expect(try await names(.in(\.company?.city?.name, ["Oslo", "Paris"])) == ["Ann", "Bob"])
        #expect(try await names(\.company?.id == nil) == ["Dee"])
    }

    @Test("sort keys and query terms follow to-one chains")
    func sortAndQuery() async throws {
        let byCompany = try await stack.fetchAll(
            From<ChainEmployee>().orderBy(.descending(\.company?.name) + .ascending(\.name)))
        #expect(byCompany.map(\.name) == ["Cid", "Bob", "Ann", "Dee"])
        let byCity = try await stack.fetchAll(From<ChainEmployee>().orderBy(.ascending(\.company?.city?.name) + .ascending(\.name)))
        #expect(byCity.map(\.name) == ["Cid", "Dee", "Bob", "Ann"])
        let rows = try await stack.queryAttributes(
            From<ChainEmployee>().select(.attribute(\.company?.city?.name, as: "city"), .count(\.id, as: "n"))
                .groupBy(\.company?.city?.name).orderBy(.ascending(\.company?.city?.name)))
        #expect(rows.map { $0["city", as: String.self] } == [nil, "Oslo", "Paris"])
        #expect(rows.map { $0["n", as: Int.self] } == [2, 1, 1])
    }

    @Test("#Predicate follows to-one chains, through ?., ! and ??")
    func predicates() async throws {
        #expect(try await names(#Predicate<ChainEmployee> { $0.company?.name == "Acme" }) == ["Ann"])
        #expect(try await names(#Predicate<ChainEmployee> { $0.company?.city?.name == "Paris" }) == ["Ann"])
        #expect(try await names(#Predicate<ChainEmployee> { $0.company?.city?.name == nil }) == ["Cid", "Dee"])
        #expect(try await names(#Predicate<ChainEmployee> { $0.company!.name != "Acme" }) == ["Bob", "Cid", "Dee"])
        #expect(try await names(#Predicate<ChainEmployee> { ($0.company?.name ?? "") >= "N" }) == ["Bob", "Cid"])
        #expect(try await names(#Predicate<ChainEmployee> { $0.company?.name?.contains("o") == true && $0.level > 1 }) == ["Cid"])
        #expect(try await names(#Predicate<ChainEmployee> { $0.company?.city != nil }) == ["Ann", "Bob"])
        // The object's own ID leads back to the object.
        #expect(try await names(#Predicate<ChainEmployee> { $0.id.name == "Bob" }) == ["Bob"])
    }

    @Test("format strings and keys follow to-one chains too")
    func formatStringsAndKeys() async throws {
        #expect(try await names(Where("company.name == %@", "Acme")) == ["Ann"])
        #expect(try await names(Where("company.city.name IN %@", ["Oslo", "Paris"])) == ["Ann", "Bob"])
        #expect(try await names(Where("company.name BEGINSWITH[c] %@ AND level > %d", "n", 1)) == ["Cid"])
        #expect(try await names(Where("%K == nil", "company.city.name")) == ["Cid", "Dee"])
        let sorted = try await stack.fetchAll(From<ChainEmployee>().orderBy(.descending("company.name") + .ascending("name")))
        #expect(sorted.map(\.name) == ["Cid", "Bob", "Ann", "Dee"])
        // An ID stored without @Relationship is no relationship to follow.
        #expect(throws: StrataError.self) { try Where<ChainEmployee>(validating: "formerCompany.name == %@", "Acme") }
        await expectStrataError(.invalidArgument) { _ = try await names(Where("formerCompany.name == %@", "Acme")) }
    }

    @Test("navigation that SQL cannot do is a thrown error naming the construct")
    func refusals() async throws {
        let acme = try #require(try await stack.fetchOne(From<ChainCompany>().where(\.name == "Acme")))
        let captured = acme.id
        // A captured ID is a value, not a relationship the query can follow.
        let error = await expectStrataError(.unsupportedQuery) {
            _ = try await names(#Predicate<ChainEmployee> { _ in captured.name == "Acme" })
        }
        #expect(error?.message.contains("not a relationship") == true)
        // An ID stored without @Relationship is not followed, in either spelling.
        await expectStrataError(.unsupportedQuery) {
            _ = try await names(#Predicate<ChainEmployee> { $0.formerCompany?.name == "Acme" })
        }
        await expectStrataError(.unsupportedQuery) { _ = try await names(\.formerCompany?.name == "Acme") }
        // The ID's own members are not fields of the related object.
        await expectStrataError(.unsupportedQuery) {
            _ = try await names(#Predicate<ChainEmployee> { $0.company?.rawValue == 1 })
        }
    }

    @Test("a field read through a relationship is one primary-key lookup per row")
    func queryPlan() async throws {
        let plan = try await stack.perform { tx in
            try tx.queryPlan(try QueryBuilder().select(From<ChainEmployee>().where(\.company?.city?.name == "Paris")))
        }
        #expect(plan.components(separatedBy: "USING INTEGER PRIMARY KEY").count == 3, "\(plan)")
    }

    @Test("prefetching loads the related objects with the fetch, and navigation reads them")
    func prefetching() async throws {
        let plain = try await stack.fetchAll(From<ChainEmployee>().orderBy(.ascending(\.name)))
        #expect(plain.allSatisfy { $0.company?.object == nil })
        #expect(plain[0].company?.name == nil)

        let loaded = try await stack.fetchAll(From<ChainEmployee>().prefetching(\.company).orderBy(.ascending(\.name)))
        #expect(loaded.map { $0.company?.name } == ["Acme", "Nordic", "Nowhere", nil])
        #expect(loaded[0].company?.object?.name == "Acme")
        // Loaded or not, an ID names the same object.
        #expect(loaded.map(\.company) == plain.map(\.company))
        #expect(Set(loaded.compactMap(\.company)).contains(try #require(plain[0].company)))
        // One level is loaded: the company's own relationship carries only its ID.
        #expect(loaded[0].company?.object?.city?.object == nil)
        #expect(loaded[0].company?.city != nil)

        let one = try await stack.fetchOne(From<ChainEmployee>().where(\.name == "Bob").prefetching(\.company))
        #expect(one?.company?.name == "Nordic")
        let inRead = try await stack.read { try $0.fetchAll(From<ChainCompany>().prefetching(\.city)) }
        #expect(Set(inRead.map { $0.city?.name }) == ["Paris", "Oslo", nil])
        let inTransaction = try await stack.perform { try $0.fetchAll(From<ChainCompany>().prefetching(\.city)) }
        #expect(Set(inTransaction.map { $0.city?.name }) == ["Paris", "Oslo", nil])
        var batched: [String?] = []
        for try await batch in stack.fetchBatches(
            From<ChainEmployee>().prefetching(\.company).orderBy(.ascending(\.name)).tweak(.batchSize(3)))
        {
            batched += batch.map { $0.company?.name }
        }
        #expect(batched == ["Acme", "Nordic", "Nowhere", nil])
    }

    @Test("#Predicate evaluated in Swift over prefetched objects agrees with SQL", arguments: 0..<3)
    func predicateAgreesWithSwift(seed: UInt64) async throws {
        let objects = try await stack.fetchAll(From<ChainEmployee>().prefetching(\.company))
        var generator = SeededGenerator(state: seed + 1)
        let names = ["Acme", "Nordic", "Nowhere", "Zed"]
        for _ in 0..<20 {
            let name = names.randomElement(using: &generator)!
            let level = Int.random(in: 0...5, using: &generator)
            let predicates: [Predicate<ChainEmployee>] = [
                #Predicate { $0.company?.name == name || $0.level < level },
                #Predicate { $0.company?.name != name && $0.level >= level },
                #Predicate { ($0.company?.name ?? "") < name },
                #Predicate { $0.company?.name?.starts(with: "No") == true || $0.company == nil },
            ]
            for predicate in predicates {
                let inSwift = try objects.filter { try predicate.evaluate($0) }.map(\.name).sorted()
                #expect(try await self.names(predicate) == inSwift)
            }
        }
    }

    @Test("a prefetching list follows its prefetched objects: a change to one updates the objects that carry it")
    func listWithPrefetching() async throws {
        var iterator = stack.listPublisher(
            From<ChainEmployee>().prefetching(\.company).orderBy(.ascending(\.name))).makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first.items.map { $0.company?.name } == ["Acme", "Nordic", "Nowhere", nil])
        try await stack.perform { tx in
            let acme = try #require(try tx.fetchOne(From<ChainCompany>().where(\.name == "Acme")))
            try tx.edit(acme) { $0.name = "Acme Corp" }
        }
        let second = try #require(try await iterator.next())
        #expect(second.items.map { $0.company?.name } == ["Acme Corp", "Nordic", "Nowhere", nil])
        let diff = try #require(second.diff)
        #expect(Set(diff.updatedIDs) == [second.items[0].id])
        #expect(diff.insertedIDs.isEmpty && diff.deletedIDs.isEmpty && diff.movedIDs.isEmpty)
        #expect(first.applying(diff)?.items.map { $0.company?.name } == second.items.map { $0.company?.name })
        // A change of the list's own objects still arrives, with the companies loaded.
        try await stack.perform { tx in
            let bob = try #require(try tx.fetchOne(From<ChainEmployee>().where(\.name == "Bob")))
            try tx.edit(bob) { $0.name = "Abe" }
        }
        let third = try #require(try await iterator.next())
        #expect(third.items.map { $0.company?.name } == ["Nordic", "Acme Corp", "Nowhere", nil])
        #expect(third.diff?.updatedIDs.isEmpty == false || third.diff?.movedIDs.isEmpty == false)
    }

    @Test("a list filtered or sorted through a relationship follows changes of the related objects")
    func observedThroughRelationship() async throws {
        var iterator = stack.listPublisher(From<ChainEmployee>().where(\.company?.city?.name == "Paris")).makeAsyncIterator()
        #expect(try await iterator.next()?.items.map(\.name) == ["Ann"])
        try await stack.perform { tx in
            let oslo = try #require(try tx.fetchOne(From<ChainCity>().where(\.name == "Oslo")))
            try tx.edit(oslo) { $0.name = "Paris" }
        }
        #expect(try await iterator.next()?.items.map(\.name).sorted() == ["Ann", "Bob"])
    }
}
