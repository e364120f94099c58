import Foundation
import Testing
@testable import Strata

@Entity
struct PredicateItem {
    var name: String = ""
    var age: Int = 0
    var nickname: String?
    var alias: String?
    var bio: String = ""
    var score: Double = 0
    var rating: Int?
    var isActive: Bool = false
    var isVerified: Bool?
    var joined: Date = Date(timeIntervalSinceReferenceDate: 0)
    var code: UUID = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    var mood: PredicateMood = .calm
    var optionalMood: PredicateMood?
    var price: Decimal = 0
    var minimum: Int = 0
    var maximum: Int = 0

    /// A computed property: not a column.
    var displayName: String { nickname ?? name }
}

/// A stored enum that predicates can capture (`#Predicate` captures only `Codable` values).
enum PredicateMood: String, Codable, DatabaseValueConvertible {
    case calm, busy
}

/// A value a predicate captures and reads a property of.
struct PredicateLimits: Codable, Sendable {
    var age: Int
    var name: String
}

let predicateItemSchema = Schema("V1", PredicateItem.self)

/// An order with a `Decimal` budget, which its lines' filters reach through a chain.
@Entity
struct DecimalOrder {
    var budget: Decimal = 0
    @Relationship(inverse: \DecimalLine.order) var lines: Set<DecimalLine.ID> = []
}

@Entity
struct DecimalLine {
    var price: Decimal = 0
    @Relationship var order: DecimalOrder.ID?
}

/// Objects with a spread of values: optionals present and missing, empty and non-ASCII text, text
/// in decomposed form (`bio` only, so that `==` and `<` on other fields compare NFC text).
func predicateItems() -> [@Sendable (inout PredicateItem) -> Void] {
    var items: [@Sendable (inout PredicateItem) -> Void] = []
    func add(_ configure: @escaping @Sendable (inout PredicateItem) -> Void) {
        items.append(configure)
    }
    add {
        $0.name = "Ada"; $0.age = 36; $0.nickname = "countess"; $0.alias = "countess"; $0.bio = "Analytical Engine"
        $0.score = 9.5; $0.rating = 5; $0.isActive = true; $0.isVerified = true; $0.mood = .calm
        $0.optionalMood = .calm; $0.price = 10.5; $0.minimum = 10; $0.maximum = 40
        $0.joined = Date(timeIntervalSinceReferenceDate: 1_000); $0.code = UUID(uuidString: "10000000-0000-0000-0000-000000000001")!
    }
    add {
        $0.name = "ada"; $0.age = 17; $0.nickname = nil; $0.alias = nil; $0.bio = "café au lait"
        $0.score = 7.25; $0.rating = nil; $0.isActive = false; $0.isVerified = nil; $0.mood = .busy
        $0.price = 9; $0.minimum = 17; $0.maximum = 17
        $0.joined = Date(timeIntervalSinceReferenceDate: 2_000); $0.code = UUID(uuidString: "F0000000-0000-0000-0000-000000000002")!
    }
    add {
        $0.name = "Alan"; $0.age = 41; $0.nickname = "Al"; $0.alias = nil; $0.bio = "Cafe\u{301} Turing"
        $0.score = 9.75; $0.rating = 3; $0.isActive = true; $0.isVerified = false; $0.mood = .busy
        $0.optionalMood = .busy; $0.price = 100; $0.minimum = 50; $0.maximum = 60
        $0.joined = Date(timeIntervalSinceReferenceDate: 3_000); $0.code = UUID(uuidString: "A0000000-0000-0000-0000-000000000003")!
    }
    add {
        $0.name = "Émile"; $0.age = 51; $0.nickname = ""; $0.alias = ""; $0.bio = "ÉCOLE normale"
        $0.score = 6.5; $0.rating = 1; $0.isActive = false; $0.isVerified = true; $0.mood = .calm
        $0.price = 0.5; $0.minimum = 0; $0.maximum = 100
        $0.joined = Date(timeIntervalSinceReferenceDate: -500); $0.code = UUID(uuidString: "0F000000-0000-0000-0000-000000000004")!
    }
    add {
        $0.name = ""; $0.age = 0; $0.nickname = "Zoë"; $0.alias = "Zoe"; $0.bio = ""
        $0.score = -1; $0.rating = 0; $0.isActive = true; $0.isVerified = nil; $0.mood = .calm
        $0.optionalMood = .busy; $0.price = 2; $0.minimum = -5; $0.maximum = 5
        $0.joined = Date(timeIntervalSinceReferenceDate: 2_000.5); $0.code = UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000005")!
    }
    add {
        $0.name = "Grace Hopper"; $0.age = 85; $0.nickname = "Amazing Grace"; $0.alias = "Al"; $0.bio = "COBOL"
        $0.score = 8; $0.rating = 4; $0.isActive = false; $0.isVerified = false; $0.mood = .busy
        $0.optionalMood = nil; $0.price = 42; $0.minimum = 85; $0.maximum = 90
        $0.joined = Date(timeIntervalSinceReferenceDate: 0); $0.code = UUID(uuidString: "00000000-0000-0000-0000-000000000006")!
    }
    return items
}

/// An in-memory stack holding ``predicateItems()``, and the objects as fetched without a filter.
func predicateStack() async throws -> (DataStack, [PredicateItem]) {
    let (stack, _) = try await makeStack(schema: predicateItemSchema)
    let items = predicateItems()
    try await stack.perform { tx in
        for configure in items {
            try tx.create(Into<PredicateItem>()) { configure(&$0) }
        }
    }
    return (stack, try await stack.fetchAll(From<PredicateItem>()))
}

/// Fetches with `predicate` and expects exactly the objects for which Swift's `evaluate` is true;
/// `nonTrivial` also expects some objects to match and some not to.
func expectSameAsSwift(
    _ predicate: Predicate<PredicateItem>, in stack: DataStack, _ all: [PredicateItem], nonTrivial: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let expected = try all.filter { try predicate.evaluate($0) }.map(\.name)
    let fetched = try await stack.fetchAll(From<PredicateItem>().where(predicate)).map(\.name)
    #expect(fetched.sorted() == expected.sorted(), "\(predicate)", sourceLocation: sourceLocation)
    if nonTrivial {
        #expect(!expected.isEmpty && expected.count < all.count, "trivial: \(predicate)", sourceLocation: sourceLocation)
    }
}

/// Expects the fetch to throw `unsupportedQuery` for `PredicateItem` with a message containing `parts`.
func expectUnsupported(
    _ predicate: Predicate<PredicateItem>, in stack: DataStack, naming parts: String...,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    let error = await expectStrataError(.unsupportedQuery, sourceLocation: sourceLocation) {
        try await stack.fetchAll(From<PredicateItem>().where(predicate))
    }
    guard let error else { return }
    #expect(error.entity == "PredicateItem", sourceLocation: sourceLocation)
    #expect(error.message.contains("PredicateItem"), "\(error.message)", sourceLocation: sourceLocation)
    for part in parts {
        #expect(error.message.contains(part), "\(error.message) does not name \(part)", sourceLocation: sourceLocation)
    }
}

@Suite("#Predicate translation")
struct PredicateTranslationTests {
    @Test("comparisons of a field with a value match Swift's evaluation")
    func fieldAndValueComparisons() async throws {
        let (stack, all) = try await predicateStack()
        let date = Date(timeIntervalSinceReferenceDate: 2_000)
        let uuid = UUID(uuidString: "A0000000-0000-0000-0000-000000000003")!
        let busy = PredicateMood.busy
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { $0.age == 36 },
            #Predicate { $0.age != 36 },
            #Predicate { $0.age < 36 },
            #Predicate { $0.age <= 36 },
            #Predicate { $0.age > 36 },
            #Predicate { $0.age >= 36 },
            #Predicate { 40 < $0.age },
            #Predicate { $0.score >= 8.0 },
            #Predicate { $0.name == "Ada" },
            #Predicate { $0.name < "Alan" },
            #Predicate { $0.name >= "a" },
            #Predicate { $0.joined > date },
            #Predicate { $0.joined == date },
            #Predicate { $0.code < uuid },
            #Predicate { $0.code == uuid },
            #Predicate { $0.mood == busy },
            #Predicate { $0.mood != busy },
            #Predicate { $0.isActive == true },
            #Predicate { $0.isActive != true },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
    }

    @Test("negative literals and negated captured numbers compare as Swift does; the negation of a field is refused")
    func negatedNumbers() async throws {
        let (stack, all) = try await predicateStack()
        let low = 0.5
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { $0.score > -0.5 },
            #Predicate { $0.score == -1 },
            #Predicate { $0.score <= -1.0 },
            #Predicate { -low < $0.score },
            #Predicate { $0.age + 0 > 1 || $0.score < -low },
        ]
        // Before, each threw unsupportedQuery naming PredicateExpressions.UnaryMinus.
        for predicate in predicates.prefix(4) {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
        await expectUnsupported(predicates[4], in: stack, naming: "Arithmetic")
        let smallest = Int.min
        await expectUnsupported(#Predicate { $0.age > -smallest }, in: stack, naming: "does not fit in Int")
        await stack.close()
    }

    @Test("comparisons of two fields match Swift's evaluation")
    func fieldAndFieldComparisons() async throws {
        let (stack, all) = try await predicateStack()
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { $0.age == $0.minimum },
            #Predicate { $0.age != $0.minimum },
            #Predicate { $0.minimum < $0.age },
            #Predicate { $0.age >= $0.maximum },
            #Predicate { $0.nickname == $0.alias },
            #Predicate { $0.nickname != $0.alias },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
    }

    @Test("&&, ||, ! and Boolean fields match Swift's evaluation")
    func logic() async throws {
        let (stack, all) = try await predicateStack()
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { $0.age >= 18 && $0.name.contains("a") },
            #Predicate { $0.age < 18 || $0.score > 9 },
            #Predicate { !($0.age < 30) },
            #Predicate { $0.isActive },
            #Predicate { !$0.isActive },
            #Predicate { $0.isActive && !($0.rating == nil) },
            #Predicate { !($0.isActive || $0.age > 50) && $0.score > 0 },
            #Predicate { ($0.age > 30 && $0.isActive) || ($0.age < 30 && !$0.isActive) },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
    }

    @Test("true and false, literal or Predicate.true and Predicate.false, keep every object or none")
    func constants() async throws {
        let (stack, all) = try await predicateStack()
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { _ in true },
            #Predicate { _ in false },
            Predicate<PredicateItem>.true,
            Predicate<PredicateItem>.false,
            #Predicate { $0.age > 30 || true },
            #Predicate { $0.age > 30 && false },
            #Predicate { !($0.age > 30 && false) },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all, nonTrivial: false)
        }
        let always = try QueryBuilder().select(From<PredicateItem>().where(#Predicate { _ in true }))
        #expect(always.sql.hasSuffix(" WHERE 1"), "\(always.sql)")
        #expect(try await stack.fetchCount(From<PredicateItem>().where(Predicate<PredicateItem>.false)) == 0)
    }

    @Test("== nil, != nil and comparisons of optional fields match Swift's evaluation")
    func nilTests() async throws {
        let (stack, all) = try await predicateStack()
        let missing: Int? = nil
        let three: Int? = 3
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { $0.nickname == nil },
            #Predicate { $0.nickname != nil },
            #Predicate { nil == $0.rating },
            #Predicate { !($0.rating == nil) },
            #Predicate { $0.rating == 3 },
            #Predicate { $0.rating != 3 },
            #Predicate { $0.rating == three },
            #Predicate { $0.rating == missing },
            #Predicate { $0.rating != missing },
            #Predicate { $0.isVerified == true },
            #Predicate { $0.isVerified != false },
            #Predicate { !($0.isVerified == false) },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
    }

    @Test("optional chaining and if let match Swift's evaluation")
    func optionalChaining() async throws {
        let (stack, all) = try await predicateStack()
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { $0.nickname?.contains("a") == true },
            #Predicate { $0.nickname?.contains("a") == false },
            #Predicate { $0.nickname?.contains("a") == nil },
            #Predicate { $0.nickname?.contains("a") != true },
            #Predicate { !($0.nickname?.contains("a") == true) },
            #Predicate { $0.nickname?.isEmpty == true },
            #Predicate { $0.nickname?.starts(with: "A") == true && $0.age > 50 },
            #Predicate { $0.nickname.flatMap { $0.contains("o") || $0 == "Al" } == true },
            #Predicate { item in
                if let nickname = item.nickname {
                    nickname.starts(with: "A") || item.age < 20
                } else {
                    item.age < 20
                }
            },
            #Predicate { item in
                if let rating = item.rating {
                    rating >= 3
                } else {
                    false
                }
            },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
    }

    @Test("?? with a value or a field matches Swift's evaluation")
    func nilCoalescing() async throws {
        let (stack, all) = try await predicateStack()
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { ($0.nickname ?? "") == "Al" },
            #Predicate { ($0.nickname ?? "") == "" },
            #Predicate { ($0.nickname ?? "") != "" },
            #Predicate { ($0.rating ?? 0) > 2 },
            #Predicate { ($0.rating ?? 3) >= 3 },
            #Predicate { ($0.rating ?? $0.age) >= 4 },
            #Predicate { ($0.nickname ?? $0.name).contains("a") },
            #Predicate { ($0.nickname ?? $0.alias ?? "none").starts(with: "n") },
            #Predicate { $0.nickname?.contains("o") ?? true },
            #Predicate { $0.nickname?.contains("o") ?? false },
            #Predicate { $0.isVerified ?? false },
            #Predicate { !($0.isVerified ?? true) },
            #Predicate { ($0.optionalMood ?? $0.mood) == $0.mood },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
    }

    @Test("! on optionals matches Swift's evaluation wherever Swift does not throw")
    func forcedUnwrap() async throws {
        let (stack, all) = try await predicateStack()
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { $0.nickname != nil && $0.nickname! == "Al" },
            #Predicate { $0.rating == nil || $0.rating! > 2 },
            #Predicate { $0.nickname != nil && $0.nickname!.contains("a") },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
    }

    @Test("?: matches Swift's evaluation")
    func ternary() async throws {
        let (stack, all) = try await predicateStack()
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { ($0.isActive ? $0.age : $0.minimum) > 20 },
            #Predicate { $0.age > 30 ? $0.isActive : true },
            #Predicate { ($0.age > 40 ? $0.nickname : $0.alias) == nil },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
    }

    @Test("contains, starts(with:) and isEmpty on text match Swift's evaluation")
    func text() async throws {
        let (stack, all) = try await predicateStack()
        let accent = "é"
        let decomposed = "Cafe\u{301}"
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { $0.name.contains("ad") },
            #Predicate { $0.name.contains("A") },
            #Predicate { $0.bio.contains(accent) },
            #Predicate { $0.bio.contains(decomposed) },
            #Predicate { $0.bio.contains("Café") },
            #Predicate { $0.name.starts(with: "A") },
            #Predicate { $0.bio.starts(with: "É") },
            #Predicate { $0.name.isEmpty },
            #Predicate { !$0.bio.isEmpty },
            #Predicate { "Ada Lovelace and Alan Turing".contains($0.name) },
            #Predicate { $0.name.contains($0.bio) },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
        try await expectSameAsSwift(#Predicate { $0.name.contains("") }, in: stack, all, nonTrivial: false)
        try await expectSameAsSwift(#Predicate { $0.name.starts(with: "") }, in: stack, all, nonTrivial: false)
        // "Cafe" followed by a combining accent is "Café": its last Character is not "e".
        try await expectSameAsSwift(#Predicate { $0.bio.contains("Cafe") }, in: stack, all, nonTrivial: false)
    }

    @Test("contains on a captured array or set becomes IN and matches Swift's evaluation")
    func listMembership() async throws {
        let (stack, all) = try await predicateStack()
        let ages: Set<Int> = [17, 41, 99]
        let nicknames: [String?] = [nil, "Al"]
        let moods = [PredicateMood.busy]
        let calm = PredicateMood.calm
        let none: [Int] = []
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { [36, 51, 7].contains($0.age) },
            #Predicate { ages.contains($0.age) },
            #Predicate { !ages.contains($0.age) },
            #Predicate { ["Ada", "ada", "Zoë"].contains($0.name) },
            #Predicate { nicknames.contains($0.nickname) },
            #Predicate { !nicknames.contains($0.nickname) },
            #Predicate { [3, 5].contains($0.rating) },
            #Predicate { moods.contains($0.mood) },
            #Predicate { moods.contains($0.optionalMood ?? calm) == false },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
        try await expectSameAsSwift(#Predicate { none.contains($0.age) }, in: stack, all, nonTrivial: false)
        try await expectSameAsSwift(#Predicate { !none.contains($0.age) }, in: stack, all, nonTrivial: false)
    }

    @Test("contains on ranges becomes BETWEEN, or >= and <, and matches Swift's evaluation")
    func rangeMembership() async throws {
        let (stack, all) = try await predicateStack()
        let closed = 17...41
        let halfOpen = 17..<41
        let from = 41...
        let through = ...36
        let upTo = ..<36
        let low = 20
        let dates = Date(timeIntervalSinceReferenceDate: 0)...Date(timeIntervalSinceReferenceDate: 2_000)
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { (17...41).contains($0.age) },
            #Predicate { (17..<41).contains($0.age) },
            #Predicate { !(17...41).contains($0.age) },
            #Predicate { closed.contains($0.age) },
            #Predicate { halfOpen.contains($0.age) },
            #Predicate { from.contains($0.age) },
            #Predicate { through.contains($0.age) },
            #Predicate { upTo.contains($0.age) },
            #Predicate { (low...50).contains($0.age) },
            #Predicate { ($0.minimum...$0.maximum).contains(36) },
            #Predicate { ($0.minimum..<$0.maximum).contains($0.age) },
            #Predicate { (6.5...9.5).contains($0.score) },
            #Predicate { dates.contains($0.joined) },
            #Predicate { ("A"..."Alan").contains($0.name) },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
    }

    @Test("captured values, their properties and the ID translate to bound values")
    func capturedValues() async throws {
        let (stack, all) = try await predicateStack()
        let limits = PredicateLimits(age: 40, name: "Alan")
        let id = all[2].id
        let predicates: [Predicate<PredicateItem>] = [
            #Predicate { $0.age > limits.age },
            #Predicate { $0.name == limits.name },
            #Predicate { $0.id == id },
            #Predicate { $0.id > id },
        ]
        for predicate in predicates {
            try await expectSameAsSwift(predicate, in: stack, all)
        }
    }

    @Test("a #Predicate combines with an earlier filter by AND, and works on any entity")
    func combining() async throws {
        let (stack, all) = try await predicateStack()
        let combined = From<PredicateItem>().where(\.age > 20).where(#Predicate { $0.isActive })
        let expected = all.filter { $0.age > 20 && $0.isActive }.map(\.name)
        #expect(try await stack.fetchAll(combined).map(\.name).sorted() == expected.sorted())
        let twice = From<PredicateItem>().where(#Predicate { $0.isActive }).where(#Predicate { $0.age < 40 })
        #expect(try await stack.fetchAll(twice).map(\.name).sorted() == all.filter { $0.isActive && $0.age < 40 }.map(\.name).sorted())
        #expect(try await stack.fetchAll(From<PredicateItem>().where(Where(#Predicate { $0.age == 36 }))).map(\.name) == ["Ada"])

        let (people, _) = try await makeStack()
        try await people.perform { tx in
            try tx.create(Into<Person>()) { $0.name = "Ada"; $0.age = 36; $0.email = "ada@example.com" }
            try tx.create(Into<Person>()) { $0.name = "Linus"; $0.age = 17 }
        }
        let adults = try await people.fetchAll(From<Person>().where(#Predicate { $0.age >= 18 && $0.name.contains("d") }))
        #expect(adults.map(\.name) == ["Ada"])
        let reachable = try await people.fetchAll(From<Person>().where(#Predicate { ($0.email ?? "").starts(with: "ada@") }))
        #expect(reachable.map(\.name) == ["Ada"])
    }

    @Test("text tests ignoring case and diacritics, as localizedStandardContains, match Swift's evaluation")
    func localizedStandardContains() async throws {
        // Linux's swift-foundation has no `#Predicate` form of localizedStandardContains (Apple's Foundation
        // does); a stand-in expression drives the same translation that Apple's expression uses.
        let (stack, all) = try await predicateStack()
        for needle in ["ECOLE", "cafe", "café", "a", "zz", ""] {
            let predicate = Predicate<PredicateItem> { item in
                LocalizedStandardContainsStandIn(
                    root: PredicateExpressions.KeyPath(root: item, keyPath: \PredicateItem.bio),
                    other: PredicateExpressions.Value(needle))
            }
            let expected = try all.filter { try predicate.evaluate($0) }.map(\.name)
            let fetched = try await stack.fetchAll(From<PredicateItem>().where(predicate)).map(\.name)
            #expect(fetched.sorted() == expected.sorted(), "\(needle)")
        }
        // A field as the text to look for; an empty one is never found.
        let byField = Predicate<PredicateItem> { item in
            LocalizedStandardContainsStandIn(
                root: PredicateExpressions.KeyPath(root: item, keyPath: \PredicateItem.bio),
                other: PredicateExpressions.KeyPath(root: item, keyPath: \PredicateItem.name))
        }
        let expected = try all.filter { try byField.evaluate($0) }.map(\.name)
        #expect(try await stack.fetchAll(From<PredicateItem>().where(byField)).map(\.name).sorted() == expected.sorted())
    }

    @Test("caseInsensitiveCompare(_:) == .orderedSame matches Swift's evaluation")
    func caseInsensitiveCompare() async throws {
        // As for localizedStandardContains: Apple platforms only, driven here through a stand-in.
        let (stack, all) = try await predicateStack()
        for other in ["ADA", "alan", "émile", "Émile", "nobody"] {
            for negated in [false, true] {
                let predicate = Predicate<PredicateItem> { item in
                    let comparison = CaseInsensitiveCompareStandIn(
                        root: PredicateExpressions.KeyPath(root: item, keyPath: \PredicateItem.name),
                        other: PredicateExpressions.Value(other))
                    let same = PredicateExpressions.Value(ComparisonResult.orderedSame)
                    if negated {
                        return PredicateExpressions.NotEqual(lhs: comparison, rhs: same)
                    }
                    return PredicateExpressions.Equal(lhs: comparison, rhs: same)
                }
                let expected = try all.filter { try predicate.evaluate($0) }.map(\.name)
                let fetched = try await stack.fetchAll(From<PredicateItem>().where(predicate)).map(\.name)
                #expect(fetched.sorted() == expected.sorted(), "\(other), negated: \(negated)")
            }
        }
        let ordered = Predicate<PredicateItem> { item in
            PredicateExpressions.Equal(
                lhs: CaseInsensitiveCompareStandIn(
                    root: PredicateExpressions.KeyPath(root: item, keyPath: \PredicateItem.name),
                    other: PredicateExpressions.Value("b")),
                rhs: PredicateExpressions.Value(ComparisonResult.orderedAscending))
        }
        await expectUnsupported(ordered, in: stack, naming: "caseInsensitiveCompare", "orderedSame")
    }

    @Test("a Decimal (stored as text) refuses ordering filters and sorts; equality, sums, minimum and maximum work as numbers")
    func decimalOrdering() async throws {
        let (stack, _) = try await makeStack(schema: predicateItemSchema)
        try await stack.perform { tx in
            for price in ["9.5", "10"] { try tx.create(Into<PredicateItem>()) { $0.price = Decimal(string: price)! } }
        }
        let refusals: [() async throws -> Any] = [
            { try await stack.fetchCount(From<PredicateItem>().where(\.price < Decimal(10))) },
            { try await stack.fetchCount(From<PredicateItem>().where(\.price >= \.price)) },
            { try await stack.fetchCount(From<PredicateItem>().where(.between(\.price, Decimal(1)...Decimal(20)))) },
            { try await stack.fetchAll(From<PredicateItem>().orderBy(.ascending(\.price))) },
        ]
        for refusal in refusals {
            let error = await expectStrataError(.unsupportedQuery) { try await refusal() }
            #expect(error?.message.contains("PredicateItem.price is a Decimal") == true, "\(String(describing: error))")
        }
        #expect(try await stack.fetchCount(From<PredicateItem>().where(\.price == Decimal(string: "9.5")!)) == 1)
        #expect(try await stack.queryValue(From<PredicateItem>().select(Decimal.self, .sum(\.price))) == Decimal(string: "19.5"))
        // As numbers, not as texts ("9.5" > "10"); a Double reads back as the decimal it prints as.
        #expect(try await stack.queryValue(From<PredicateItem>().select(Decimal.self, .maximum(\.price))) == 10)
        #expect(try await stack.queryValue(From<PredicateItem>().select(Decimal.self, .minimum(\.price))) == Decimal(string: "9.5"))
        #expect(Decimal(databaseValue: .real(19.99)) == Decimal(string: "19.99"))
        await stack.close()
    }

    @Test("a Decimal is refused however an ordering names it: a property name, a SortDescriptor, a format string, a chain, sections")
    func decimalOrderingEveryWay() async throws {
        let stack = try await DataStack(Schema("V1", PredicateItem.self, DecimalOrder.self, DecimalLine.self))
        try await stack.perform { tx in
            for price in ["9.5", "10"] { try tx.create(Into<PredicateItem>()) { $0.price = Decimal(string: price)! } }
            let order = try tx.create(Into<DecimalOrder>()) { $0.budget = 20 }
            for price in ["9.5", "10"] { try tx.create(Into<DecimalLine>()) { $0.price = Decimal(string: price)!; $0.order = order.id } }
        }
        let refusals: [(String, () async throws -> Any)] = [
            ("PredicateItem.price", { try await stack.fetchAll(From<PredicateItem>().orderBy(.ascending("price"))) }),
            ("PredicateItem.price", { try await stack.fetchAll(From<PredicateItem>().orderBy(.descending("price"))) }),
            ("PredicateItem.price", { try await stack.fetchAll(From<PredicateItem>().orderBy(OrderBy(SortDescriptor(\PredicateItem.price)))) }),
            ("PredicateItem.price", { try await stack.fetchCount(From<PredicateItem>().where("price < %@", Decimal(10))) }),
            ("PredicateItem.price", { try await stack.fetchCount(From<PredicateItem>().where("price BETWEEN %@", [Decimal(1), Decimal(20)])) }),
            ("DecimalOrder.budget", { try await stack.fetchCount(From<DecimalLine>().where(\DecimalLine.order ~ \DecimalOrder.budget < Decimal(5))) }),
            ("PredicateItem.price", {
                var sections = stack.listPublisher(From<PredicateItem>().sectionBy(\.price)).makeAsyncIterator()
                return try await sections.next() as Any
            }),
        ]
        for (named, refusal) in refusals {
            let error = await expectStrataError(.unsupportedQuery) { try await refusal() }
            #expect(error?.message.contains("\(named) is a Decimal") == true, "\(String(describing: error))")
        }
        // Equality stays exact.
        #expect(try await stack.fetchCount(From<PredicateItem>().where("price == %@", Decimal(10))) == 1)
        #expect(try await stack.fetchCount(From<DecimalLine>().where(\DecimalLine.order ~ \DecimalOrder.budget == Decimal(20))) == 2)
        await stack.close()
    }

    @Test("constructs without a SQL translation throw unsupportedQuery naming the construct and the entity")
    func unsupportedConstructs() async throws {
        let (stack, _) = try await predicateStack()
        let ages = [1, 2, 3]
        let limit: Decimal = 10
        await expectUnsupported(#Predicate { $0.age + 1 > 30 }, in: stack, naming: "PredicateExpressions.Arithmetic (`+`)")
        await expectUnsupported(#Predicate { $0.age * 2 > 30 }, in: stack, naming: "PredicateExpressions.Arithmetic (`*`)")
        await expectUnsupported(
            #Predicate { $0.isActive && ($0.age % 2 == 0) }, in: stack, naming: "PredicateExpressions.IntRemainder (`%`)")
        await expectUnsupported(#Predicate { $0.age / 2 > 3 }, in: stack, naming: "PredicateExpressions.IntDivision")
        await expectUnsupported(#Predicate { -$0.age > 3 }, in: stack, naming: "PredicateExpressions.UnaryMinus")
        await expectUnsupported(
            #Predicate { item in ages.contains { $0 == item.age } }, in: stack,
            naming: "PredicateExpressions.SequenceContainsWhere (`contains(where:)`)")
        await expectUnsupported(
            #Predicate { item in ages.allSatisfy { $0 < item.age } }, in: stack, naming: "PredicateExpressions.SequenceAllSatisfy")
        await expectUnsupported(
            #Predicate { item in ages.filter { $0 > item.age }.isEmpty }, in: stack,
            naming: "PredicateExpressions.Filter (`filter(_:)`)")
        await expectUnsupported(
            #Predicate { (ages.max() ?? 0) < $0.age }, in: stack, naming: "PredicateExpressions.SequenceMaximum (`max()`)")
        await expectUnsupported(
            #Predicate { ages[0] == $0.age }, in: stack, naming: "PredicateExpressions.CollectionIndexSubscript")
        let ranks = ["Ada": 1]
        await expectUnsupported(
            #Predicate { ranks[$0.name] == 1 }, in: stack, naming: "PredicateExpressions.DictionaryKeySubscript")
        await expectUnsupported(#Predicate { $0.name.count > 3 }, in: stack, naming: "count", "field's value")
        await expectUnsupported(#Predicate { $0.displayName == "Al" }, in: stack, naming: "displayName", "computed")
        await expectUnsupported(#Predicate { $0.price > limit }, in: stack, naming: "ordering comparison of Decimal")
        await expectUnsupported(
            #Predicate { ($0.nickname ?? "").count == 2 || $0.age > 3 }, in: stack, naming: "count")
        await expectUnsupported(#Predicate { $0.nickname?.count == 2 }, in: stack, naming: "\\String.count")
        await expectUnsupported(
            #Predicate { ($0.isActive ? $0.age * 2 : $0.age) > 3 }, in: stack, naming: "PredicateExpressions.Arithmetic (`*`)")
        await expectUnsupported(
            #Predicate { $0.name.contains(/A+/) }, in: stack,
            naming: "PredicateExpressions.StringContainsRegex (`contains(_:)` with a regular expression)")
    }

    @Test("an untranslatable part fails the fetch even where && or || could skip it")
    func unsupportedInShortCircuit() async throws {
        let (stack, _) = try await predicateStack()
        await expectUnsupported(#Predicate { false && $0.age + 1 > 3 }, in: stack, naming: "Arithmetic")
        await expectUnsupported(#Predicate { true || $0.age + 1 > 3 }, in: stack, naming: "Arithmetic")
    }

    @Test("values reach SQLite as bound parameters, never as SQL text")
    func boundValues() throws {
        let hostile = "Robert'); DROP TABLE PredicateItem; --"
        let names = ["zyx-name"]
        let query = try QueryBuilder().select(
            From<PredicateItem>()
                .where(#Predicate { $0.name == hostile && $0.age > 12345 })
                .where(#Predicate { names.contains($0.nickname ?? "") })
                .where(#Predicate { ($0.score...98765.5).contains(99.5) })
                .where(#Predicate { $0.bio.contains("needle-text") }))
        for text in [hostile, "12345", "zyx-name", "98765.5", "99.5", "needle-text", "DROP"] {
            #expect(!query.sql.contains(text), "\(text) in \(query.sql)")
        }
        #expect(query.bindings.contains(.text(hostile)))
        #expect(query.bindings.contains(.integer(12345)))
        #expect(query.bindings.contains(.text("zyx-name")))
        #expect(query.bindings.contains(.real(98765.5)))
        #expect(query.bindings.contains(.text("needle-text")))
        #expect(query.sql.contains("IS ?"), "\(query.sql)")
        #expect(query.sql.contains(" IN ("), "\(query.sql)")
        #expect(query.sql.contains(" BETWEEN "), "\(query.sql)")
        #expect(query.sql.contains(TextFunction.name), "\(query.sql)")
    }

    @Test("a plain comparison translates to the same SQL as the key-path operator")
    func sameSQLAsKeyPathOperators() throws {
        let fromPredicate = try QueryBuilder().select(From<PredicateItem>().where(#Predicate { $0.age >= 18 && $0.nickname == nil }))
        let fromKeyPaths = try QueryBuilder().select(From<PredicateItem>().where(\.age >= 18 && \.nickname == nil))
        #expect(fromPredicate.sql == fromKeyPaths.sql)
        #expect(fromPredicate.bindings == fromKeyPaths.bindings)
    }
}
