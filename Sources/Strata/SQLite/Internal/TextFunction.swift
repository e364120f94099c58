internal import CSQLite
import Foundation

/// `strata_text(test, left, right, options)`: the SQL function behind every text test of a filter.
///
/// It runs Swift's own string operations, so `contains`, `hasPrefix`, `hasSuffix`, `LIKE` and
/// case- or diacritic-insensitive equality mean in SQL exactly what they mean in Swift (Unicode case
/// folding, not SQLite's ASCII-only `lower`). Registered on every connection; deterministic.
enum TextFunction {
    static let name = "strata_text"

    static func register(on db: OpaquePointer) {
        sqlite3_create_function_v2(
            db, name, 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil,
            { context, _, arguments in
                guard let arguments, let test = TextFunction.text(arguments[0]),
                    let left = TextFunction.text(arguments[1]),
                    let right = TextFunction.text(arguments[2])
                else {
                    sqlite3_result_null(context)
                    return
                }
                let options = TextOptions(rawValue: Int(sqlite3_value_int(arguments[3])))
                sqlite3_result_int(context, TextFunction.evaluate(test, left, right, options) ? 1 : 0)
            }, nil, nil, nil)
    }

    /// An argument's whole text, NUL characters included (`sqlite3_value_bytes` gives its length; the
    /// text is not read up to its first NUL); `nil` for SQL `NULL`.
    private static func text(_ value: OpaquePointer?) -> String? {
        // `sqlite3_value_text` first, then `sqlite3_value_bytes`, as SQLite's documentation asks.
        guard let pointer = sqlite3_value_text(value) else { return nil }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The test in Swift; also usable in memory.
    static func evaluate(_ test: String, _ left: String, _ right: String, _ options: TextOptions) -> Bool {
        if TextTest(rawValue: test) == .like {
            // Each character folded on its own, so that `?` still stands for one character of the text
            // when folding makes it several (`ß` → `ss`, `ﬁ` → `fi`).
            return matches(left.map { fold(String($0), options) }, pattern: right.map { fold(String($0), options) })
        }
        switch TextTest(rawValue: test) {
        case .equals: return fold(left, options) == fold(right, options)
        case .contains: return find(right, in: left, options, atStart: false, atEnd: false)
        case .beginsWith: return find(right, in: left, options, atStart: true, atEnd: false)
        case .endsWith: return find(right, in: left, options, atStart: false, atEnd: true)
        case .like, nil: return false  // `like` above
        }
    }

    /// Whether `right` is a run of whole characters of `left` (at its start or its end when asked), as
    /// Foundation's `range(of:options:)` finds it: with case or diacritic folding, each character of
    /// `left` is folded on its own and a match covers whole characters, so `"ﬁsh"` contains `"FISH"`
    /// but not `"ish"`, and `"Straße"` contains `"SSE"` but not `"se"`.
    private static func find(_ right: String, in left: String, _ options: TextOptions, atStart: Bool, atEnd: Bool) -> Bool {
        guard options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive) else {
            // Swift's own comparison of characters (canonically equivalent ones are equal).
            if atStart { return left.hasPrefix(right) }
            if atEnd { return left.hasSuffix(right) }
            return right.isEmpty || left.contains(right)
        }
        let pattern = Array(fold(right, options))
        if pattern.isEmpty { return true }
        let text = FoldedText(left, options)
        let count = text.characters.count
        guard pattern.count <= count else { return false }
        let starts = atEnd ? (count - pattern.count)...(count - pattern.count) : 0...(atStart ? 0 : count - pattern.count)
        for start in starts where text.isBoundary[start] && text.isBoundary[start + pattern.count] {
            if text.characters[start..<(start + pattern.count)].elementsEqual(pattern) { return true }
        }
        return false
    }

    static func fold(_ text: String, _ options: TextOptions) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? text : text.folding(options: folding, locale: nil)
    }

    /// NSPredicate `LIKE`: `*` matches any run of characters, `?` exactly one; `\` escapes. Each element
    /// is one character of the text or pattern (as folded, which may make it several).
    static func matches(_ text: [String], pattern: [String]) -> Bool {
        var textIndex = 0
        var patternIndex = 0
        var starPattern = -1
        var starText = 0
        while textIndex < text.count {
            if patternIndex < pattern.count {
                var literal = pattern[patternIndex]
                var escaped = false
                if literal == "\\", patternIndex + 1 < pattern.count {
                    literal = pattern[patternIndex + 1]
                    escaped = true
                }
                if !escaped, literal == "*" {
                    starPattern = patternIndex
                    starText = textIndex
                    patternIndex += 1
                    continue
                }
                if (!escaped && literal == "?") || literal == text[textIndex] {
                    patternIndex += escaped ? 2 : 1
                    textIndex += 1
                    continue
                }
            }
            guard starPattern >= 0 else { return false }
            patternIndex = starPattern + 1
            starText += 1
            textIndex = starText
        }
        while patternIndex < pattern.count, pattern[patternIndex] == "*" {
            patternIndex += 1
        }
        return patternIndex == pattern.count
    }
}

/// A text's characters, each folded on its own (which may make one several: `ß` → `ss`), with where
/// the text's own characters begin among them: a match found on these may not begin or end inside one.
private struct FoldedText {
    var characters: [Character] = []
    /// For each position in ``characters`` and the end, whether one of the text's characters begins
    /// there (the end counts as a beginning).
    var isBoundary: [Bool] = []

    init(_ text: String, _ options: TextOptions) {
        characters.reserveCapacity(text.utf8.count)
        isBoundary.reserveCapacity(text.utf8.count + 1)
        let lowercasesASCII = options.contains(.caseInsensitive)
        for character in text {
            // One ASCII byte folds to itself, or to its lowercase letter: no call into Foundation. (Not
            // `asciiValue`, which is "\n" for "\r\n".)
            if character.utf8.count == 1, let ascii = character.utf8.first {
                let folded = lowercasesASCII && (65...90).contains(ascii) ? ascii + 32 : ascii
                characters.append(Character(Unicode.Scalar(folded)))
                isBoundary.append(true)
                continue
            }
            let folded = TextFunction.fold(String(character), options)
            for (offset, piece) in folded.enumerated() {
                characters.append(piece)
                isBoundary.append(offset == 0)
            }
        }
        isBoundary.append(true)
    }
}
