import Foundation
import Testing
@testable import Strata

// Seeded fuzzing of format strings. Two kinds of input, both reproducible from the seed:
//
// - Filters generated from the grammar, each with a reference evaluation written here in plain Swift
//   (Foundation's `range(of:options:)` for text tests, a backtracking matcher for LIKE): the fetch must
//   return exactly the objects the reference keeps.
// - The same strings mutated at random (characters deleted, inserted, duplicated, cut short): parsing
//   and fetching must either work or throw a `StrataError` with `invalidArgument` or `unsupportedQuery`;
//   nothing may crash, hang or throw anything else.
//
// STRATA_FUZZ_SEED and STRATA_FUZZ_COUNT (valid filters; mutations are three times as many) override
// the defaults, to reproduce a failure or to run longer than CI does.

/// A generated filter: its text, its arguments, and what it means in Swift.
struct FuzzFilter {
    var text: String
    var arguments: [(any Sendable)?]
    var matches: @Sendable (Item) -> Bool
    /// How tightly the text binds: 0 for `OR`, 1 for `AND`, 2 for anything tighter.
    var binding: Int
}

/// Builds random filters over ``Item`` from the format-string grammar.
struct FormatFilterGenerator {
    var random: SeededGenerator

    static let needles = ["a", "A", "ad", "an", "é", "É", "e", "li", "Gr", "ace", "x", "ob", "Zo", "ë", "s", "*", "\"", "\\"]
    static let names = ["Ada", "Grace", "alan", "Édith", "bob", "Zoë", "", "a*b?c", "Linus"]

    mutating func pick<T>(_ values: [T]) -> T { values.randomElement(using: &random)! }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }

    /// A string literal in one of the two quote styles, escaped.
    mutating func literal(_ text: String) -> String {
        let quote: Character = chance(50) ? "\"" : "'"
        var result = String(quote)
        for character in text {
            if character == quote || character == "\\" { result.append("\\") }
            result.append(character)
        }
        result.append(quote)
        return result
    }

    mutating func filter(depth: Int) -> FuzzFilter {
        guard depth > 0, chance(60) else { return leaf() }
        switch int(0..<4) {
        case 0, 1:
            let isAnd = chance(50)
            let left = filter(depth: depth - 1), right = filter(depth: depth - 1)
            let level = isAnd ? 1 : 0
            let keyword = isAnd ? pick(["AND", "&&", "and"]) : pick(["OR", "||", "or"])
            let l = left.binding < level ? "(\(left.text))" : left.text
            // Parenthesize the right side when it binds as loosely, so that a chain still reads left to right.
            let r = right.binding <= level ? "(\(right.text))" : right.text
            let (lm, rm) = (left.matches, right.matches)
            let matches: @Sendable (Item) -> Bool
            if isAnd {
                matches = { item in lm(item) && rm(item) }
            } else {
                matches = { item in lm(item) || rm(item) }
            }
            return FuzzFilter(
                text: "\(l) \(keyword) \(r)", arguments: left.arguments + right.arguments, matches: matches,
                binding: level)
        case 2:
            let inner = filter(depth: depth - 1)
            let keyword = pick(["NOT ", "!", "not "])
            let operand = inner.binding < 2 || chance(30) ? "(\(inner.text))" : inner.text
            let m = inner.matches
            return FuzzFilter(text: keyword + operand, arguments: inner.arguments, matches: { !m($0) }, binding: 2)
        default:
            let inner = filter(depth: depth - 1)
            return FuzzFilter(text: "(\(inner.text))", arguments: inner.arguments, matches: inner.matches, binding: 2)
        }
    }

    mutating func leaf() -> FuzzFilter {
        switch int(0..<10) {
        case 0: return numberComparison()
        case 1: return scoreComparison()
        case 2: return nameEquality()
        case 3, 4: return textTest()
        case 5: return nicknameTest()
        case 6: return flagTest()
        case 7: return inOrBetween()
        case 8: return like()
        default:
            let value = chance(50)
            return FuzzFilter(
                text: value ? pick(["TRUEPREDICATE", "truepredicate"]) : "FALSEPREDICATE", arguments: [],
                matches: { _ in value }, binding: 2)
        }
    }

    static let comparisons: [(text: [String], test: @Sendable (Int, Int) -> Bool, flipped: String)] = [
        (["==", "="], { $0 == $1 }, "=="), (["!=", "<>"], { $0 != $1 }, "!="),
        (["<"], { $0 < $1 }, ">"), (["<=", "=<"], { $0 <= $1 }, ">="),
        ([">"], { $0 > $1 }, "<"), ([">=", "=>"], { $0 >= $1 }, "<="),
    ]

    /// `age < 30`, also written with the key on the right (`30 > age`, the same filter).
    mutating func numberComparison() -> FuzzFilter {
        let comparison = pick(Self.comparisons)
        let value = int(0...70)
        let test = comparison.test
        if chance(25) {   // the key on the right: `30 < age` is `age > 30`
            return FuzzFilter(text: "\(value) \(comparison.flipped) age", arguments: [], matches: { test($0.age, value) }, binding: 2)
        }
        switch int(0..<3) {
        case 0: return FuzzFilter(text: "age \(pick(comparison.text)) \(value)", arguments: [], matches: { test($0.age, value) }, binding: 2)
        case 1: return FuzzFilter(text: "age \(pick(comparison.text)) %d", arguments: [value], matches: { test($0.age, value) }, binding: 2)
        default: return FuzzFilter(text: "%K \(pick(comparison.text)) %@", arguments: ["age", value], matches: { test($0.age, value) }, binding: 2)
        }
    }

    mutating func scoreComparison() -> FuzzFilter {
        let value = pick([0.5, 3.0, 6.5, 7.25, 8.0, 9.5, 9.75, 10.0])
        let spelled = value == value.rounded() && chance(50) ? String(Int(value)) : String(value)
        switch int(0..<4) {
        case 0: return FuzzFilter(text: "score < \(spelled)", arguments: [], matches: { $0.score < value }, binding: 2)
        case 1: return FuzzFilter(text: "score >= %f", arguments: [value], matches: { $0.score >= value }, binding: 2)
        case 2: return FuzzFilter(text: "score == \(spelled)", arguments: [], matches: { $0.score == value }, binding: 2)
        default: return FuzzFilter(text: "score != %@", arguments: [value], matches: { $0.score != value }, binding: 2)
        }
    }

    mutating func nameEquality() -> FuzzFilter {
        let name = pick(Self.names)
        if chance(50) {
            let text = chance(50) ? "name == \(literal(name))" : "name = %@"
            return FuzzFilter(text: text, arguments: text.hasSuffix("%@") ? [name] : [], matches: { $0.name == name }, binding: 2)
        }
        let ordered = chance(50)
        return ordered
            ? FuzzFilter(text: "name < \(literal(name))", arguments: [], matches: { $0.name < name }, binding: 2)
            : FuzzFilter(text: "name != \(literal(name))", arguments: [], matches: { $0.name != name }, binding: 2)
    }

    /// Options and their modifier text.
    mutating func options() -> (String.CompareOptions, String) {
        switch int(0..<4) {
        case 0: ([], "")
        case 1: ([.caseInsensitive], pick(["[c]", "[C]"]))
        case 2: ([.diacriticInsensitive], "[d]")
        default: ([.caseInsensitive, .diacriticInsensitive], pick(["[cd]", "[dc]"]))
        }
    }

    static func reference(_ test: String, _ text: String, _ needle: String, _ options: String.CompareOptions) -> Bool {
        switch test {
        case "CONTAINS": return needle.isEmpty || text.range(of: needle, options: options) != nil
        case "BEGINSWITH": return needle.isEmpty || text.range(of: needle, options: options.union(.anchored)) != nil
        case "ENDSWITH": return needle.isEmpty || text.range(of: needle, options: options.union([.anchored, .backwards])) != nil
        default: return text.compare(needle, options: options) == .orderedSame
        }
    }

    mutating func textTest() -> FuzzFilter {
        let test = pick(["CONTAINS", "BEGINSWITH", "ENDSWITH", "=="])
        let (options, modifier) = options()
        let needle = pick(Self.needles)
        let spelled = test == "==" ? "==" : (chance(20) ? test.lowercased() : test)
        let useArgument = chance(30)
        let text = "name \(spelled)\(modifier) \(useArgument ? "%@" : literal(needle))"
        return FuzzFilter(
            text: text, arguments: useArgument ? [needle] : [],
            matches: { Self.reference(test, $0.name, needle, options) }, binding: 2)
    }

    mutating func nicknameTest() -> FuzzFilter {
        let value = pick(["penguin", "Piaf", "", "élan", "countess"])
        switch int(0..<5) {
        case 0: return FuzzFilter(text: "nickname == nil", arguments: [], matches: { $0.nickname == nil }, binding: 2)
        case 1: return FuzzFilter(text: pick(["nickname != nil", "nickname != NULL"]), arguments: [], matches: { $0.nickname != nil }, binding: 2)
        case 2: return FuzzFilter(text: "nickname == \(literal(value))", arguments: [], matches: { $0.nickname == value }, binding: 2)
        case 3: return FuzzFilter(text: "nickname != %@", arguments: [value], matches: { $0.nickname != value }, binding: 2)
        default:
            let needle = pick(Self.needles)
            let (options, modifier) = options()
            return FuzzFilter(
                text: "nickname CONTAINS\(modifier) \(literal(needle))", arguments: [],
                matches: { item in item.nickname.map { Self.reference("CONTAINS", $0, needle, options) } ?? false }, binding: 2)
        }
    }

    mutating func flagTest() -> FuzzFilter {
        let value = chance(50)
        let spelled = value ? pick(["YES", "TRUE", "true", "1"]) : pick(["NO", "FALSE", "false", "0"])
        if chance(50) { return FuzzFilter(text: "flag == \(spelled)", arguments: [], matches: { $0.flag == value }, binding: 2) }
        return FuzzFilter(text: "flag != %@", arguments: [value], matches: { $0.flag != value }, binding: 2)
    }

    mutating func inOrBetween() -> FuzzFilter {
        let values = (0..<int(1...4)).map { _ in int(0...70) }
        let low = int(0...50), high = low + int(0...30)
        switch int(0..<5) {
        case 0:
            return FuzzFilter(
                text: "age IN {\(values.map(String.init).joined(separator: ", "))}", arguments: [],
                matches: { values.contains($0.age) }, binding: 2)
        case 1: return FuzzFilter(text: "age IN %@", arguments: [values], matches: { values.contains($0.age) }, binding: 2)
        case 2: return FuzzFilter(text: "age NOT IN %@", arguments: [values], matches: { !values.contains($0.age) }, binding: 2)
        case 3: return FuzzFilter(text: "age BETWEEN {\(low), \(high)}", arguments: [], matches: { (low...high).contains($0.age) }, binding: 2)
        default:
            let names = (0..<int(1...3)).map { _ in pick(Self.names) }
            return FuzzFilter(text: "name IN %@", arguments: [names], matches: { names.contains($0.name) }, binding: 2)
        }
    }

    mutating func like() -> FuzzFilter {
        let pattern = String((0..<int(1...5)).map { _ in pick(Array("a*?elnd*É")) })
        let caseInsensitive = chance(50)
        let text = "name LIKE\(caseInsensitive ? "[c]" : "") \(literal(pattern))"
        return FuzzFilter(text: text, arguments: [], matches: { item in
            let fold: (String) -> [Character] = { Array(caseInsensitive ? $0.folding(options: .caseInsensitive, locale: nil) : $0) }
            return Self.like(fold(item.name)[...], fold(pattern)[...])
        }, binding: 2)
    }

    /// `*` any run, `?` one character: a plain backtracking matcher, written apart from Strata's.
    static func like(_ text: ArraySlice<Character>, _ pattern: ArraySlice<Character>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        if first == "*" {
            return (text.startIndex...text.endIndex).contains { like(text[$0...], pattern.dropFirst()) }
        }
        guard let character = text.first, first == "?" || first == character else { return false }
        return like(text.dropFirst(), pattern.dropFirst())
    }

    /// The text changed at one to three random places.
    mutating func mutate(_ text: String) -> String {
        var characters = Array(text)
        let alphabet = Array("()\"'%@Kdf[]cd{},!=<>&| \\09.e-NOTANDORIN*?é💥\u{0}\n")
        for _ in 0..<int(1...3) {
            let position = characters.isEmpty ? 0 : int(0...characters.count - 1)
            switch int(0..<5) {
            case 0 where !characters.isEmpty: characters.remove(at: position)
            case 1: characters.insert(pick(alphabet), at: position)
            case 2 where !characters.isEmpty: characters[position] = pick(alphabet)
            case 3 where !characters.isEmpty:
                let end = min(characters.count, position + int(1...8))
                characters.insert(contentsOf: characters[position..<end], at: position)
            default: characters = Array(characters.prefix(position))
            }
        }
        return String(characters)
    }
}

@Suite("Format-string fuzzing", .timeLimit(.minutes(5)))
struct FormatFuzzTests {
    static let extraItems: [(String, Int, Double, String?, Bool)] = [
        ("bob", 60, 3.0, "", true),
        ("Zoë", 22, 8.25, nil, true),
        ("a*b?c", 5, 0.5, "élan", false),
        ("ÉLISE", 28, 6.5, "Élan", false),
        ("x\"y\\z", 70, 10, nil, true),
    ]

    static var seed: UInt64 { ProcessInfo.processInfo.environment["STRATA_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_124 }
    static var count: Int { ProcessInfo.processInfo.environment["STRATA_FUZZ_COUNT"].flatMap(Int.init) ?? 10_000 }

    @Test("generated filters return exactly what Swift's evaluation keeps")
    func generated() async throws {
        let stack = try await makeItemStack(sampleItems + Self.extraItems)
        let items = try await stack.fetchAll(From<Item>())
        let (seed, count) = (Self.seed, Self.count)
        // Every fetch runs in one read, synchronously, so that tens of thousands stay fast.
        let failures = try await stack.read { reader in
            var generator = FormatFilterGenerator(random: SeededGenerator(state: seed))
            var failures: [String] = []
            var matchedSome = 0
            for index in 0..<count {
                let filter = generator.filter(depth: 4)
                let expected = Set(items.filter(filter.matches).map(\.id))
                do {
                    let fetched = Set(try reader.fetchIDs(From<Item>().where(Where(format: filter.text, arguments: filter.arguments))))
                    if fetched != expected {
                        failures.append("#\(index) \(filter.text) \(filter.arguments): got \(fetched.count), expected \(expected.count)")
                    }
                    if !expected.isEmpty && expected.count < items.count { matchedSome += 1 }
                } catch {
                    failures.append("#\(index) \(filter.text) \(filter.arguments): threw \(error)")
                }
                if failures.count >= 20 { break }
            }
            // The generator must produce discriminating filters, not only all-or-nothing ones.
            if matchedSome < count / 4 { failures.append("only \(matchedSome) of \(count) filters kept some but not all objects") }
            return failures
        }
        #expect(failures.isEmpty, "seed \(seed) (STRATA_FUZZ_SEED to reproduce):\n\(failures.joined(separator: "\n"))")
    }

    @Test("mutated filters work or throw invalidArgument / unsupportedQuery, never crash")
    func mutated() async throws {
        let stack = try await makeItemStack(sampleItems + Self.extraItems)
        let (seed, count) = (Self.seed &+ 1, Self.count * 3)
        let (failures, rejected) = try await stack.read { reader in
            var generator = FormatFilterGenerator(random: SeededGenerator(state: seed))
            var failures: [String] = []
            var rejected = 0
            for index in 0..<count {
                let filter = generator.filter(depth: 3)
                let text = generator.mutate(filter.text)
                do {
                    _ = try reader.fetchCount(From<Item>().where(Where(format: text, arguments: filter.arguments)))
                } catch let error as StrataError where error.code == .invalidArgument || error.code == .unsupportedQuery {
                    rejected += 1
                } catch {
                    failures.append("#\(index) \(text.debugDescription) \(filter.arguments): threw \(error)")
                }
                if failures.count >= 20 { break }
            }
            return (failures, rejected)
        }
        #expect(failures.isEmpty, "seed \(seed):\n\(failures.joined(separator: "\n"))")
        // Most mutations break the grammar; some still parse. Both kinds must occur.
        #expect(rejected > count / 10 && rejected < count, "\(rejected) of \(count) rejected")
    }
}
