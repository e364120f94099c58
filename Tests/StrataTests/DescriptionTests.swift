import Foundation
import Testing
@testable import Strata

@Entity
struct KeywordPost {
    var like: Int = 0
    var `in`: String = ""
}

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
        // A nil owner never matches these; the text says so, since `owner.name != "Ada"` alone would match it.
        #expect((\Critter.owner ~ \Owner.name != "Ada").description == #"owner != nil AND owner.name != "Ada""#)
        #expect((!(\Critter.age > 3) || .related(\Critter.owner, !(\Owner.name == "Ada"))).description
            == #"NOT age > 3 OR (owner != nil AND NOT owner.name == "Ada")"#)
    }

    @Test("a filter through a relationship, and a field named like a reserved word, parse back to filters matching the same objects")
    func relationshipAndKeywordRoundTrip() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        try await stack.perform { tx in
            let ada = try tx.create(Into<Owner>()) { $0.name = "Ada" }
            let bob = try tx.create(Into<Owner>()) { $0.name = "Bob" }
            try tx.create(Into<Critter>()) { $0.name = "Rex"; $0.age = 3; $0.owner = ada.id }
            try tx.create(Into<Critter>()) { $0.name = "Tom"; $0.age = 7; $0.owner = bob.id }
            try tx.create(Into<Critter>()) { $0.name = "Stray"; $0.age = 5 }
        }
        let filters: [Where<Critter>] = [
            \.owner ~ \.name != "Ada",
            .related(\.owner, !(\.name == "Ada")),
            .related(\.owner, \.name == "Ada" || \.name != "Bob"),
            !(\.owner ~ \.name != "Ada"),
            \.owner ~ \.name == "Bob",
            \.age > 4 || \.owner ~ \.name != "Bob",
        ]
        for filter in filters {
            let text = filter.description
            let expected = try await stack.fetchAll(From<Critter>().where(filter)).map(\.name).sorted()
            // Before, the first three read back matched Stray too.
            let parsed = try await stack.fetchAll(From<Critter>().where(Where(validating: text))).map(\.name).sorted()
            #expect(parsed == expected, "\(text)")
        }
        let keyword: Where<KeywordPost> = \.like > 10 && \.in == "x"
        #expect(keyword.description == #"#like > 10 AND #in == "x""#)
        #expect(try Where<KeywordPost>(validating: keyword.description).description == keyword.description)
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

    @Test("a #Predicate that tests a stored Bool prints TRUE / FALSE as its operand, and parses back")
    func predicateOfBoolRoundTrip() async throws {
        let stack = try await makeItemStack(sampleItems)
        let filters: [Where<Item>] = [
            Where(#Predicate<Item> { $0.flag }),
            Where(#Predicate<Item> { !$0.flag }),
            Where(#Predicate<Item> { $0.flag && $0.age > 20 }),
            Where(#Predicate<Item> { $0.age < 40 || $0.flag }),
        ]
        #expect(filters[0].description == "flag == TRUE")
        #expect(filters.allSatisfy { !$0.description.contains("PREDICATE") }, "\(filters.map(\.description))")
        for filter in filters {
            let text = filter.description
            let expected = try await stack.fetchAll(From<Item>().where(filter)).map(\.name).sorted()
            // Before, the text read `flag == TRUEPREDICATE`, which Where(validating:) refused.
            let parsed = try await stack.fetchAll(From<Item>().where(Where(validating: text))).map(\.name).sorted()
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
