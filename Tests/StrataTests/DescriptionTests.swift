import Foundation
import Testing
@testable import Strata

/// Queries, schemas and stacks describe themselves the way they were written.
@Suite("Descriptions")
struct DescriptionTests {
    @Test("From, Where and OrderBy read as written, in the format-string language for filters")
    func queries() {
        let from = From<Item>()
            .where(\.age >= 18 && .contains(\.name, "ad", caseInsensitive: true))
            .orderBy(.ascending(\.name) + .descending(\.age))
            .limit(10)
            .offset(5)
        #expect(from.description
            == #"From<Item> where age >= 18 AND name CONTAINS[c] "ad" order by name ascending, age descending limit 10 offset 5"#)
        #expect(From<Item>().description == "From<Item>")
        #expect(From<Item>().sectionBy(\.age).tweak(.batchSize(50)).description == "From<Item> section by age batch size 50")
        #expect(OrderBy<Item>.ascending(\.name, comparing: .caseInsensitive).description == "name ascending (case-insensitive)")

        let nested: Where<Item> = (\.age < 3 || \.age > 60) && !(\.nickname == nil) && \.name != "Ada \"the\" first"
        #expect(nested.description == #"(age < 3 OR age > 60) AND NOT nickname == nil AND name != "Ada \"the\" first""#)
        let either: Where<Item> = \.age == 1 && \.score == 2.5 || \.nickname != nil
        #expect(either.description == "(age == 1 AND score == 2.5) OR nickname != nil")
        #expect(Where<Item>(true).description == "TRUEPREDICATE")
        #expect(Where<Item>("age IN %@", [1, 2]).description == "age IN {1, 2}")
        #expect(Where<Item>("age BETWEEN {1, 5}").description == "age BETWEEN {1, 5}")
        #expect(Where<Item>("name LIKE[cd] 'a*'").description == #"name LIKE[cd] "a*""#)
    }

    @Test("filters through relationships name the relationship as a key path")
    func relationships() {
        #expect(From<Critter>().where(\Critter.owner ~ \Owner.name == "Ada").description == #"From<Critter> where owner.name == "Ada""#)
        #expect(Where<Owner>.any(\.critters, \.age > 10).description == "ANY critters.age > 10")
        #expect(Where<Owner>.all(\.critters, \.age > 10 && \.name != "").description == #"ALL critters (age > 10 AND name != "")"#)
        #expect((\ChainEmployee.company ~ \ChainCompany.city ~ \ChainCity.name == "Paris").description == #"company.city.name == "Paris""#)
        #expect(Where<ChainEmployee>("company.city.name == 'Paris'").description == #"company.city.name == "Paris""#)
        #expect(From<Critter>().prefetching(\.owner).description == "From<Critter> prefetching owner")
    }

    @Test("a filter's description parses back to a filter that matches the same objects")
    func roundTrip() async throws {
        let stack = try await makeItemStack(sampleItems)
        let filters: [Where<Item>] = [
            \.age >= 18 && .contains(\.name, "a", caseInsensitive: true),
            (\.age < 35 || \.age > 44) && !(\.nickname == nil),
            .hasPrefix(\.name, "A") || .hasSuffix(\.nickname, "n"),
            \.score > 8.5 && \.name != "Ada",
            Where("age IN %@ OR score BETWEEN {6, 7.5}", [17, 51]),
            Where("NOT (name ==[c] 'ALAN' OR age < 20)"),
        ]
        for filter in filters {
            let text = filter.description
            let expected = try await stack.fetchAll(From<Item>().where(filter)).map(\.name).sorted()
            let parsed = try await stack.fetchAll(From<Item>().where(Where(text))).map(\.name).sorted()
            #expect(parsed == expected, "\(text)")
            #expect(!expected.isEmpty, "\(text)")
        }
    }

    @Test("a filter nested deeper than it can describe is cut short, not a crash")
    func deepFilter() {
        var filter: Where<Item> = \.age == 1
        for _ in 0..<5_000 { filter = !filter }
        #expect(filter.description.contains("…") && filter.description.hasPrefix("NOT (NOT"))
    }

    @Test("Schema, EntityDescription and DataStack describe what was declared")
    func declarations() async throws {
        #expect(testSchema.description.hasPrefix("Schema \"") && testSchema.description.contains("Pet (entity \"Animal\")"))
        #expect(Pet.entityDescription.description
            == #"Pet (entity "Animal") { name: text = '' (column "pet_name"), ownerID: integer? }"#)
        #expect(Person.entityDescription.description == "Person { name: text = '', age: integer indexed = 0, email: text? unique }")
        let owner = Owner.entityDescription.description
        #expect(owner.contains("critters: → Set<Critter> (cascade, inverse owner)"))
        #expect(owner.contains("favorites: → [Volume] (nullify)"))
        #expect(owner.contains("critterCount: count(critters)") && owner.contains("oldest: maximum(critters.age)"))
        #expect(owner.contains("tags: coded text"))
        #expect(Critter.entityDescription.description.contains("owner: → Owner (nullify)"))
        let stack = try await DataStack(itemSchema)
        #expect(stack.description == #"DataStack(Schema "V1": Item; in-memory; 4 readers)"#)
    }
}
