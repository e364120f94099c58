import Foundation
import Testing
@testable import Strata

// MARK: - Fixture

@Entity
struct FormatFriend {
    var name: String = ""
    var age: Int = 0
    var email: String?
    var score: Double = 0
    var active: Bool = false
    var mood: Mood = .happy
    var born: Date = Date(timeIntervalSinceReferenceDate: 0)
    var like: Int = 0
}

let formatFriendSchema = Schema("FormatV1", FormatFriend.self)

/// The values of one friend to create.
private struct FriendSeed: Sendable {
    let name: String, age: Int, email: String?, score: Double, active: Bool, mood: Mood, like: Int
}

private let formatFriends: [FriendSeed] = [
    FriendSeed(name: "Ada", age: 36, email: "ada@x.org", score: 9.5, active: true, mood: .happy, like: 3),
    FriendSeed(name: "adam", age: 17, email: nil, score: 4, active: false, mood: .grumpy, like: 0),
    FriendSeed(name: "Åsa", age: 52, email: "asa@x.org", score: 7.25, active: true, mood: .happy, like: 8),
    FriendSeed(name: "Zoë", age: 25, email: nil, score: 6, active: false, mood: .grumpy, like: 1),
    FriendSeed(name: "Bob", age: 30, email: "BOB@X.ORG", score: 5.5, active: true, mood: .happy, like: 5),
    FriendSeed(name: "Star*Man", age: 40, email: nil, score: 1, active: false, mood: .happy, like: 2),
    FriendSeed(name: "Émile", age: 65, email: "emile@x.org", score: 8, active: true, mood: .grumpy, like: 13),
]

/// An in-memory stack holding ``formatFriends``, and ways to compare filters over it.
private struct FormatFixture {
    let stack: DataStack
    let friends: [FormatFriend]

    static func make() async throws -> FormatFixture {
        let (stack, _) = try await makeStack(schema: formatFriendSchema)
        let friends = try await stack.perform { tx in
            try formatFriends.enumerated().map { offset, friend in
                try tx.create(Into<FormatFriend>()) {
                    $0.name = friend.name
                    $0.age = friend.age
                    $0.email = friend.email
                    $0.score = friend.score
                    $0.active = friend.active
                    $0.mood = friend.mood
                    $0.born = Date(timeIntervalSinceReferenceDate: Double(offset) * 86_400)
                    $0.like = friend.like
                }
            }
        }
        return FormatFixture(stack: stack, friends: friends)
    }

    /// The sorted names of the friends a filter fetches.
    func names(_ filter: Where<FormatFriend>) async throws -> [String] {
        try await stack.fetchAll(From<FormatFriend>().where(filter)).map(\.name).sorted()
    }

    /// The sorted names of the friends a Swift closure keeps.
    func names(_ isIncluded: (FormatFriend) -> Bool) -> [String] {
        friends.filter(isIncluded).map(\.name).sorted()
    }
}

/// The SQL and bindings a filter renders to.
private func rendered(_ filter: Where<FormatFriend>) throws(StrataError) -> SQLQuery {
    try QueryBuilder().select(From<FormatFriend>().where(filter))
}

// MARK: - Tests

@Suite("Format-string predicates")
struct FormatPredicateTests {
    static let comparisons: [(String, Where<FormatFriend>)] = [
        ("age == 30", \.age == 30),
        ("age = 30", \.age == 30),
        ("age != 30", \.age != 30),
        ("age <> 30", \.age != 30),
        ("age < 30", \.age < 30),
        ("age <= 30", \.age <= 30),
        ("age =< 30", \.age <= 30),
        ("age > 30", \.age > 30),
        ("age >= 30", \.age >= 30),
        ("age => 30", \.age >= 30),
        ("30 < age", \.age > 30),
        ("30 >= age", \.age <= 30),
        ("30 == age", \.age == 30),
        ("score > 6.5", \.score > 6.5),
        ("age > -5", \.age > -5),
        ("score < 1e1", \.score < 10),
        ("email == nil", \.email == nil),
        ("email = NULL", \.email == nil),
        ("nil == email", \.email == nil),
        ("email != nil", \.email != nil),
        ("email == 'ada@x.org'", \.email == "ada@x.org"),
        ("email != \"ada@x.org\"", \.email != "ada@x.org"),
        ("NOT email == 'ada@x.org'", !(\.email == "ada@x.org")),
        ("active == TRUE", \.active == true),
        ("active == yes", \.active == true),
        ("active = FALSE", \.active == false),
        ("active == No", \.active == false),
        ("age > #like", \.age > \.like),
        ("#like <= age", \.like <= \.age),
        ("age > 20 AND age < 60", \.age > 20 && \.age < 60),
        ("age > 20 && age < 60", \.age > 20 && \.age < 60),
        ("age < 20 OR age > 60", \.age < 20 || \.age > 60),
        ("age < 20 || age > 60", \.age < 20 || \.age > 60),
        ("NOT age > 30", !(\.age > 30)),
        ("!(age > 30)", !(\.age > 30)),
        ("age < 20 OR age > 50 AND active == YES", \.age < 20 || (\.age > 50 && \.active == true)),
        ("(age < 20 OR age > 50) AND active == YES", (\.age < 20 || \.age > 50) && \.active == true),
        ("age > 20 and not (age > 40) or name == 'Bob'", (\.age > 20 && !(\.age > 40)) || \.name == "Bob"),
        ("TRUEPREDICATE", Where(true)),
        ("falsepredicate", Where(false)),
        ("TRUEPREDICATE AND age > 30", \.age > 30),
        ("#like > 2", \.like > 2),
        ("id > 3", \.id > EntityID(rawValue: 3)),
    ]

    @Test("Each comparison, logical operator and literal matches the key-path filter", arguments: comparisons)
    func comparisonsMatchKeyPathFilters(format: String, expected: Where<FormatFriend>) async throws {
        let fixture = try await FormatFixture.make()
        let filter = try Where<FormatFriend>(validating: format)
        #expect(try await fixture.names(filter) == fixture.names(expected), "\(format)")
    }

    static let textTests: [(String, @Sendable (FormatFriend) -> Bool)] = [
        ("name BEGINSWITH 'Ad'", { $0.name.hasPrefix("Ad") }),
        ("name BEGINSWITH[c] 'ad'", { $0.name.lowercased().hasPrefix("ad") }),
        ("name beginswith[C] 'AD'", { $0.name.lowercased().hasPrefix("ad") }),
        ("name ENDSWITH 'm'", { $0.name.hasSuffix("m") }),
        ("name ENDSWITH[d] 'e'", { $0.name.folding(options: .diacriticInsensitive, locale: nil).hasSuffix("e") }),
        ("name CONTAINS 'a'", { $0.name.contains("a") }),
        ("name CONTAINS[cd] 'a'", {
            $0.name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).contains("a")
        }),
        ("name CONTAINS[dc] 'E'", {
            $0.name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).contains("e")
        }),
        ("name LIKE 'A*'", { $0.name.hasPrefix("A") }),
        ("name LIKE[c] 'a?a*'", {
            let letters = Array($0.name.lowercased())
            return letters.count >= 3 && letters[0] == "a" && letters[2] == "a"
        }),
        ("name LIKE 'Star\\*Man'", { $0.name == "Star*Man" }),
        ("name LIKE 'S??r\\*M*'", { $0.name == "Star*Man" }),
        ("name ==[c] 'ADA'", { $0.name.lowercased() == "ada" }),
        ("name =[cd] 'asa'", { $0.name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) == "asa" }),
        ("name !=[c] 'ada'", { $0.name.lowercased() != "ada" }),
        ("name ==[d] 'Zoe'", { $0.name == "Zoë" }),
        ("email CONTAINS[c] 'x.org'", { $0.email?.lowercased().contains("x.org") ?? false }),
        ("email ENDSWITH 'x.org'", { $0.email?.hasSuffix("x.org") ?? false }),
        ("NOT email CONTAINS 'x.org'", { !($0.email?.contains("x.org") ?? false) }),
        ("email NOT CONTAINS 'x.org'", { !($0.email?.contains("x.org") ?? false) }),
        ("name NOT LIKE[c] '*a*'", { !$0.name.lowercased().contains("a") }),
        ("email !=[c] 'bob@x.org'", { $0.email?.lowercased() != "bob@x.org" }),
        ("mood == 'grumpy'", { $0.mood == .grumpy }),
        ("mood BEGINSWITH 'gr'", { $0.mood == .grumpy }),
        ("'Bob' == name", { $0.name == "Bob" }),
        ("'Adam Smith' BEGINSWITH[c] name", { "adam smith".hasPrefix($0.name.lowercased()) }),
    ]

    @Test("Text operators and modifiers match Swift's string tests", arguments: textTests)
    func textOperatorsMatchSwift(format: String, expected: @Sendable (FormatFriend) -> Bool) async throws {
        let fixture = try await FormatFixture.make()
        let names = try await fixture.names(Where<FormatFriend>(validating: format))
        #expect(names == fixture.names(expected), "\(format)")
    }

    @Test("Two keys of different types compare with each other")
    func keysCompareWithKeys() async throws {
        let fixture = try await FormatFixture.make()
        #expect(try await fixture.names(Where("score > age")) == fixture.names { $0.score > Double($0.age) })
        #expect(try await fixture.names(Where("score < age AND #like > score"))
            == fixture.names { $0.score < Double($0.age) && Double($0.like) > $0.score })
    }

    @Test("Text operators build the same filters as the key-path factories")
    func textOperatorsMatchFactories() async throws {
        let fixture = try await FormatFixture.make()
        let pairs: [(Where<FormatFriend>, Where<FormatFriend>)] = [
            (Where("name BEGINSWITH[c] %@", "ad"), .hasPrefix(\.name, "ad", caseInsensitive: true)),
            (Where("name ENDSWITH[cd] %@", "E"), .hasSuffix(\.name, "E", caseInsensitive: true, diacriticInsensitive: true)),
            (Where("email CONTAINS %@", "x"), .contains(\.email, "x")),
            (Where("name LIKE %@", "*a*"), .like(\.name, "*a*")),
            (Where("name ==[c] %@", "bob"), .equals(\.name, "bob", caseInsensitive: true)),
        ]
        for (format, factory) in pairs {
            #expect(try await fixture.names(format) == fixture.names(factory))
        }
    }

    @Test("IN takes a literal list, an array, a set or a range")
    func inOperator() async throws {
        let fixture = try await FormatFixture.make()
        let cases: [(Where<FormatFriend>, Where<FormatFriend>)] = [
            (Where("age IN {17, 30, 99}"), .in(\.age, [17, 30, 99])),
            (Where("age in {%d, %i}", 17, 30), .in(\.age, [17, 30])),
            (Where("age IN %@", [17, 30]), .in(\.age, [17, 30])),
            (Where("age IN %@", Set([25, 36])), .in(\.age, [25, 36])),
            (Where("age NOT IN {17, 30}"), .notIn(\.age, [17, 30])),
            (Where("NOT age IN %@", [17, 30]), .notIn(\.age, [17, 30])),
            (Where("age IN {}"), Where(false)),
            (Where("age NOT IN {}"), Where(true)),
            (Where("age IN %@", [Int]()), Where(false)),
            (Where("email IN {nil, 'ada@x.org'}"), \.email == nil || \.email == "ada@x.org"),
            (Where("email IN %@", [String?.none, "asa@x.org"]), \.email == nil || \.email == "asa@x.org"),
            (Where("mood IN %@", [Mood.grumpy]), \.mood == .grumpy),
            (Where("name IN {'Ada', \"Bob\"}"), .in(\.name, ["Ada", "Bob"])),
            (Where("age IN %@", 25...36), .between(\.age, 25...36)),
            (Where("age IN %@", 25..<36), \.age >= 25 && \.age < 36),
            (Where("score IN %@", 5.5...8.0), .between(\.score, 5.5...8.0)),
        ]
        for (format, expected) in cases {
            #expect(try await fixture.names(format) == fixture.names(expected))
        }
    }

    @Test("BETWEEN takes a pair of bounds, an array of two or a closed range")
    func betweenOperator() async throws {
        let fixture = try await FormatFixture.make()
        let cases: [(Where<FormatFriend>, Where<FormatFriend>)] = [
            (Where("age BETWEEN {18, 40}"), .between(\.age, 18...40)),
            (Where("age between {%d, %d}", 18, 40), .between(\.age, 18...40)),
            (Where("age BETWEEN %@", [18, 40]), .between(\.age, 18...40)),
            (Where("age BETWEEN %@", 18...40), .between(\.age, 18...40)),
            (Where("score BETWEEN {%f, %f}", 5.5, 8), .between(\.score, 5.5...8)),
            (Where("age NOT BETWEEN {18, 40}"), !Where<FormatFriend>.between(\.age, 18...40)),
        ]
        for (format, expected) in cases {
            #expect(try await fixture.names(format) == fixture.names(expected))
        }
        let keyBounds = try await fixture.names(Where("age BETWEEN {#like, 30}"))
        #expect(keyBounds == fixture.names { $0.like <= $0.age && $0.age <= 30 })
    }

    @Test("Arguments of every specifier are converted to values")
    func argumentKinds() async throws {
        let fixture = try await FormatFixture.make()
        let bob = try #require(fixture.friends.first { $0.name == "Bob" })
        let missing: String? = nil
        let cases: [(Where<FormatFriend>, Where<FormatFriend>)] = [
            (Where("%K > %d", "age", 30), \.age > 30),
            (Where("%K == %@", Substring("name"), "Bob"), \.name == "Bob"),
            (Where("%K > 2", "like"), \.like > 2),
            (Where("name == %@", "Bob"), \.name == "Bob"),
            (Where("name == %@", Substring("Bob")), \.name == "Bob"),
            (Where("age == %@", 30), \.age == 30),
            (Where("score == %@", 5.5), \.score == 5.5),
            (Where("active == %@", true), \.active == true),
            (Where("mood == %@", Mood.grumpy), \.mood == .grumpy),
            (Where("born > %@", Date(timeIntervalSinceReferenceDate: 3 * 86_400)),
                \.born > Date(timeIntervalSinceReferenceDate: 3 * 86_400)),
            (Where("id == %@", bob.id), \.id == bob.id),
            (Where("id == %lld", bob.id.rawValue), \.id == bob.id),
            (Where("email == %@", nil), \.email == nil),
            (Where("email != %@", missing), \.email != nil),
            (Where("email == %@", "ada@x.org" as String?), \.email == "ada@x.org"),
            (Where("age > %d", Int8(30)), \.age > 30),
            (Where("age > %i", Int32(30)), \.age > 30),
            (Where("age > %ld", 30), \.age > 30),
            (Where("age > %lld", Int64(30)), \.age > 30),
            (Where("age > %u", UInt(30)), \.age > 30),
            (Where("age > %lu", UInt64(30)), \.age > 30),
            (Where("active == %d", true), \.active == true),
            (Where("age == %d", Int?.none), Where(false)),
            (Where("score > %f", 5.5), \.score > 5.5),
            (Where("score > %lf", Float(5.5)), \.score > 5.5),
            (Where("score > %f", 6), \.score > 6),
        ]
        for (format, expected) in cases {
            #expect(try await fixture.names(format) == fixture.names(expected))
        }
    }

    @Test("String literals read their escapes and numbers their kind")
    func literalsAreParsed() throws {
        let query = try rendered(
            Where("name == 'it\\'s\\n' OR name == \"say \\\"hi\\\"\\t\\\\\" OR name LIKE 'a\\*' OR age == -12 "
                + "OR score == 2.5 OR score == 1e3 OR active == YES OR email == 'Zoë'"))
        #expect(query.bindings == [
            .text("it's\n"), .text("say \"hi\"\t\\"), .text("a\\*"), .integer(-12), .real(2.5), .real(1000),
            .integer(1), .text("Zoë"),
        ])
    }

    @Test("Keywords are case-insensitive and # escapes a key named like a keyword")
    func keywordsAndEscapedKeys() async throws {
        let fixture = try await FormatFixture.make()
        let upper = try await fixture.names(Where("name BEGINSWITH 'A' AND NOT (age > 40)"))
        let lower = try await fixture.names(Where("name beginswith 'A' and not (age > 40)"))
        let mixed = try await fixture.names(Where("name BeginsWith 'A' aNd NoT (age > 40)"))
        #expect(upper == lower && lower == mixed)
        #expect(upper == fixture.names { $0.name.hasPrefix("A") && !($0.age > 40) })
        #expect(try await fixture.names(Where("#like >= 5 AND #name != 'Bob'")) == fixture.names { $0.like >= 5 && $0.name != "Bob" })
    }

    @Test("From.where with a format string is combined with an existing filter by AND")
    func fromWhereCombines() async throws {
        let fixture = try await FormatFixture.make()
        let from = From<FormatFriend>().where(\.active == true).where("age < %d", 50)
        let names = try await fixture.stack.fetchAll(from).map(\.name).sorted()
        #expect(names == fixture.names { $0.active && $0.age < 50 })
        let twice = From<FormatFriend>().where("age > 20").where("name CONTAINS[c] %@", "a")
        #expect(try await fixture.stack.fetchAll(twice).map(\.name).sorted()
            == fixture.names { $0.age > 20 && $0.name.lowercased().contains("a") })
    }

    @Test("Values are bound parameters and never appear in the SQL")
    func valuesAreBound() throws {
        let query = try rendered(Where(
            "name == 'Robert\\'); DROP TABLE x; --' OR age IN {4242, 4343} OR score > 17.25 OR email LIKE[c] %@ "
                + "OR %K BETWEEN {%d, %f} OR born > %@ OR mood IN %@",
            "evil*'--", "like", 777, 8.5, Date(timeIntervalSinceReferenceDate: 123_456), [Mood.grumpy]))
        for secret in ["Robert", "DROP", "4242", "4343", "17.25", "evil", "777", "8.5", "123456", "grumpy"] {
            #expect(!query.sql.contains(secret), "\(secret) in \(query.sql)")
        }
        #expect(query.bindings.contains(.text("evil*'--")))
        #expect(query.bindings.contains(.integer(4242)))
        #expect(query.bindings.contains(.real(123_456)))
        #expect(query.bindings.contains(.text("grumpy")))
    }

    @Test("Nesting within the limit is accepted")
    func nestingWithinLimit() async throws {
        let fixture = try await FormatFixture.make()
        let format = String(repeating: "(", count: 60) + "age > 30" + String(repeating: ")", count: 60)
        #expect(try await fixture.names(Where(format)) == fixture.names(\.age > 30))
        // SQLite's own parser limits how deeply `NOT coalesce(…)` nests (about 20 levels).
        let negations = String(repeating: "NOT ", count: 10) + "age > 30"
        #expect(try await fixture.names(Where(negations)) == fixture.names(\.age > 30))
        // Deeper, SQLite refuses the statement: an unsupported query that says what to do, not a bare
        // "parser stack overflow".
        // (An SQLite whose parser stack grows takes it: then the result is right.)
        let tooDeep = String(repeating: "NOT ", count: 40) + "age > 30"
        do {
            #expect(try await fixture.names(Where(tooDeep)) == fixture.names(\.age > 30))
        } catch let error as StrataError {
            #expect(error.code == .unsupportedQuery && error.message.contains("Flatten it"), "\(error)")
        }
    }

    @Test("Every prefix of a format string either parses or is rejected, never crashes")
    func prefixesNeverCrash() throws {
        let format = "name BEGINSWITH[cd] 'ad' AND (age BETWEEN {18, 65} OR email IN {nil, \"x\\\"y\"}) "
            + "&& NOT score < -1.5e2 || #like != 3 AND active == YES"
        let characters = Array(format)
        var valid = 0
        for length in 0...characters.count {
            let filter = Where<FormatFriend>(String(characters[..<length]))
            do throws(StrataError) {
                _ = try rendered(filter)
                valid += 1
            } catch {
                #expect(error.code == .invalidArgument)
            }
        }
        #expect(valid > 3)
        #expect(try rendered(Where(format)).bindings.count == 7)
    }
}
