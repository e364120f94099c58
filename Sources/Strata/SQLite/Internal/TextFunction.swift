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
        let left = fold(left, options)
        let right = fold(right, options)
        switch TextTest(rawValue: test) {
        case .contains: return right.isEmpty || left.contains(right)
        case .beginsWith: return left.hasPrefix(right)
        case .endsWith: return left.hasSuffix(right)
        case .equals: return left == right
        case .like: return false  // above
        case nil: return false
        }
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
