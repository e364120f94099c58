import Foundation
import Testing
@testable import Strata

/// A random filter, with the same filter as a Swift closure.
struct RandomPredicate {
    let clause: Where<Item>
    let evaluate: @Sendable (Item) -> Bool
    let text: String
}

enum PredicateGenerator {
    static let words = ["", "a", "A", "ad", "an", "é", "E", "li", "Ma", "*a*", "?a*", "x"]

    static func make(_ rng: inout SeededGenerator, depth: Int) -> RandomPredicate {
        if depth > 0, Int.random(in: 0..<3, using: &rng) == 0 {
            let left = make(&rng, depth: depth - 1)
            let right = make(&rng, depth: depth - 1)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return RandomPredicate(clause: left.clause && right.clause, evaluate: { left.evaluate($0) && right.evaluate($0) }, text: "(\(left.text) && \(right.text))")
            case 1: return RandomPredicate(clause: left.clause || right.clause, evaluate: { left.evaluate($0) || right.evaluate($0) }, text: "(\(left.text) || \(right.text))")
            default: return RandomPredicate(clause: !left.clause, evaluate: { !left.evaluate($0) }, text: "!\(left.text)")
            }
        }
        return leaf(&rng)
    }

    static func leaf(_ rng: inout SeededGenerator) -> RandomPredicate {
        let age = Int.random(in: 0...60, using: &rng)
        let score = Double(Int.random(in: 0...20, using: &rng)) / 2
        let word = words.randomElement(using: &rng)!
        let insensitive = Bool.random(using: &rng)
        let diacritics = Bool.random(using: &rng)
        let options: SQLExpression.TextOptions = SQLExpression.TextOptions(rawValue: (insensitive ? 1 : 0) | (diacritics ? 2 : 0))
        switch Int.random(in: 0..<14, using: &rng) {
        case 0: return RandomPredicate(clause: \.age == age, evaluate: { $0.age == age }, text: "age == \(age)")
        case 1: return RandomPredicate(clause: \.age != age, evaluate: { $0.age != age }, text: "age != \(age)")
        case 2: return RandomPredicate(clause: \.age < age, evaluate: { $0.age < age }, text: "age < \(age)")
        case 3: return RandomPredicate(clause: \.score >= score, evaluate: { $0.score >= score }, text: "score >= \(score)")
        case 4: return RandomPredicate(clause: \.flag == true, evaluate: { $0.flag }, text: "flag")
        case 5: return RandomPredicate(clause: \.nickname == nil, evaluate: { $0.nickname == nil }, text: "nickname == nil")
        case 6: return RandomPredicate(clause: \.nickname == word, evaluate: { $0.nickname == word }, text: "nickname == \(word)")
        case 7:
            let values = (0..<3).map { _ in Int.random(in: 0...60, using: &rng) }
            return RandomPredicate(clause: .in(\.age, values), evaluate: { values.contains($0.age) }, text: "age in \(values)")
        case 8:
            let upper = age + Int.random(in: 0...20, using: &rng)
            return RandomPredicate(clause: .between(\.age, age...upper), evaluate: { (age...upper).contains($0.age) }, text: "age in \(age)...\(upper)")
        case 9:
            return RandomPredicate(
                clause: .contains(\.name, word, caseInsensitive: insensitive, diacriticInsensitive: diacritics),
                evaluate: { TextFunction.evaluate("contains", $0.name, word, options) }, text: "name contains[\(options.rawValue)] \(word)")
        case 10:
            return RandomPredicate(
                clause: .hasPrefix(\.name, word, caseInsensitive: insensitive, diacriticInsensitive: diacritics),
                evaluate: { TextFunction.evaluate("beginsWith", $0.name, word, options) }, text: "name hasPrefix[\(options.rawValue)] \(word)")
        case 11:
            return RandomPredicate(
                clause: .hasSuffix(\.nickname, word, caseInsensitive: insensitive),
                evaluate: { item in item.nickname.map { TextFunction.evaluate("endsWith", $0, word, insensitive ? .caseInsensitive : []) } ?? false },
                text: "nickname hasSuffix \(word)")
        case 12:
            return RandomPredicate(
                clause: .like(\.name, word, caseInsensitive: insensitive),
                evaluate: { TextFunction.evaluate("like", $0.name, word, insensitive ? .caseInsensitive : []) }, text: "name like \(word)")
        default:
            return RandomPredicate(clause: \.age <= \.age, evaluate: { _ in true }, text: "age <= age")
        }
    }
}

/// The plain Swift meaning of the text tests, written independently of the SQL function.
enum SwiftText {
    static func fold(_ text: String, _ options: SQLExpression.TextOptions) -> String {
        var compare: String.CompareOptions = []
        if options.contains(.caseInsensitive) { compare.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { compare.insert(.diacriticInsensitive) }
        return text.folding(options: compare, locale: nil)
    }
}

@Suite("Random predicates: SQL against Swift")
struct PredicatePropertyTests {
    @Test("random filters select in SQL exactly the objects their Swift counterpart selects", arguments: [1, 2, 3, 4])
    func sqlMatchesSwift(seed: UInt64) async throws {
        var rng = SeededGenerator(state: seed)
        let stack = try await DataStack(itemSchema)
        let names = ["Ada", "ada", "Adèle", "Édith", "edith", "Linus", "Margaret", "alan", "Maël", "", "a*b", "Zoë"]
        let nicknames: [String?] = [nil, "A", "ana", "Énigme", "x", "", "lima", nil]
        try await stack.perform { tx in
            var local = SeededGenerator(state: seed &* 7)
            for _ in 0..<80 {
                try tx.create(Into<Item>()) {
                    $0.name = names.randomElement(using: &local)!
                    $0.age = Int.random(in: 0...60, using: &local)
                    $0.score = Double(Int.random(in: 0...20, using: &local)) / 2
                    $0.nickname = nicknames.randomElement(using: &local)!
                    $0.flag = Bool.random(using: &local)
                }
            }
        }
        let all = try await stack.fetchAll(From<Item>())
        for _ in 0..<150 {
            let predicate = PredicateGenerator.make(&rng, depth: 3)
            let fromSQL = Set(try await stack.fetchIDs(From<Item>().where(predicate.clause)))
            let fromSwift = Set(all.filter(predicate.evaluate).map(\.id))
            #expect(fromSQL == fromSwift, "seed \(seed): \(predicate.text)")
        }
    }

    @Test("a case-insensitive text test through the stack matches whole characters only (ligatures, ß)")
    func foldedTextTestsMatchWholeCharacters() async throws {
        let stack = try await DataStack(itemSchema)
        try await stack.perform { tx in
            for name in ["\u{FB01}sh", "Stra\u{DF}e", "fish"] { try tx.create(Into<Item>()) { $0.name = name } }
        }
        func names(_ format: String, _ argument: String) async throws -> [String] {
            try await stack.fetchAll(From<Item>().where(format, argument).orderBy(.ascending(\.name))).map(\.name)
        }
        // "ﬁ" folds to "fi": "ish" would begin inside it.
        #expect(try await names("name CONTAINS[c] %@", "ish") == ["fish"])
        #expect(try await names("name CONTAINS[c] %@", "FISH") == ["fish", "\u{FB01}sh"])
        #expect(try await names("name ENDSWITH[c] %@", "sh") == ["fish", "\u{FB01}sh"])
        #expect(try await names("name BEGINSWITH[c] %@", "f") == ["fish"])
        // "ß" folds to "ss": "SSE" covers it and the "e", "se" would begin inside it.
        #expect(try await names("name CONTAINS[c] %@", "SSE") == ["Stra\u{DF}e"])
        #expect(try await names("name ENDSWITH[c] %@", "se") == [])
        #expect(try await names("name BEGINSWITH[c] %@", "STRASS") == ["Stra\u{DF}e"])
    }

    @Test("the SQL text function agrees with Foundation's own string operations")
    func textFunctionMatchesFoundation() {
        // Ligatures and ß fold to several letters and `é` comes composed and decomposed: a match must cover
        // whole characters of the text, as Foundation's search does.
        let samples = [
            "", "a", "Ada", "ADA", "Édith", "edith", "Maël", "mael", "a*b", "\u{FB01}sh", "FISH", "ish", "fi",
            "Stra\u{DF}e", "STRASSE", "SSE", "se", "\u{DF}", "cafe\u{301}", "caf\u{E9}", "cafe",
        ]
        for left in samples {
            for right in samples {
                for raw in 0...3 {
                    let options = SQLExpression.TextOptions(rawValue: raw)
                    var compare: String.CompareOptions = []
                    if options.contains(.caseInsensitive) { compare.insert(.caseInsensitive) }
                    if options.contains(.diacriticInsensitive) { compare.insert(.diacriticInsensitive) }
                    func found(_ more: String.CompareOptions) -> Bool {
                        right.isEmpty || left.range(of: right, options: compare.union(more)) != nil
                    }
                    let label = "\(left.debugDescription) \(right.debugDescription) options \(raw)"
                    #expect(TextFunction.evaluate("contains", left, right, options) == found([]), "contains: \(label)")
                    #expect(TextFunction.evaluate("beginsWith", left, right, options) == found(.anchored), "beginsWith: \(label)")
                    #expect(
                        TextFunction.evaluate("endsWith", left, right, options) == found([.anchored, .backwards]),
                        "endsWith: \(label)")
                    #expect(
                        TextFunction.evaluate("equals", left, right, options)
                            == (SwiftText.fold(left, options) == SwiftText.fold(right, options)))
                }
            }
        }
        // With folding, "\r\n" is one character, whose "\n" alone is not found (Foundation's search is
        // not consistent there: it finds "\n" in it backwards, but not forwards with folding).
        for raw in 1...3 {
            let options = SQLExpression.TextOptions(rawValue: raw)
            #expect(TextFunction.evaluate("contains", "a\r\nb", "\r\n", options))
            #expect(!TextFunction.evaluate("contains", "a\r\nb", "\n", options))
            #expect(!TextFunction.evaluate("endsWith", "a\r\n", "\n", options))
            #expect(TextFunction.evaluate("endsWith", "a\r\n", "\r\n", options))
        }
        func like(_ text: String, _ pattern: String) -> Bool { TextFunction.matches(text.map(String.init), pattern: pattern.map(String.init)) }
        #expect(like("abc", "a*"))
        #expect(like("abc", "?b?"))
        #expect(!like("abc", "?c*"))
        #expect(like("a*c", "a\\*c"))
        #expect(!like("abc", "a\\*c"))
        #expect(like("", "*"))
        // `?` is one character of the text even when case folding makes it several.
        let folded = SQLExpression.TextOptions.caseInsensitive
        #expect(TextFunction.evaluate("like", "Stra\u{DF}e", "stra?e", folded))
        #expect(!TextFunction.evaluate("like", "Stra\u{DF}e", "stra??e", folded))
        #expect(TextFunction.evaluate("like", "\u{FB01}sh", "?SH", folded))
        #expect(TextFunction.evaluate("like", "STRA\u{DF}E", "stra\u{DF}*", folded))
    }
}
