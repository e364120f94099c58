/// A problem found in a format string: what is wrong, where, and why.
struct FormatError: Error, Sendable {
    /// What is wrong, with the position in words ("expected a value after '>' at position 6").
    let message: String
    /// The character offset the problem is at, for the caret line; `nil` when it concerns the whole
    /// format string.
    let position: Int?
    /// The key involved, for an unknown key.
    let key: String?

    init(_ message: String, position: Int?, key: String? = nil) {
        self.message = message
        self.position = position
        self.key = key
    }
}

/// One token of a format string, with the character offset it starts at.
struct FormatToken: Sendable {
    enum Kind: Sendable, Equatable {
        /// A key name; `#name` escapes a reserved word.
        case identifier(String)
        /// A reserved word of the grammar.
        case keyword(FormatKeyword)
        /// A reserved word of NSPredicate's grammar that Strata does not support (`MATCHES`, `ANY`, …).
        case unsupported(String)
        /// `==` `=` `!=` `<>` `<` `<=` `=<` `>` `>=` `=>`.
        case comparison(SQLExpression.Comparison)
        /// `&&`, `||` and `!`, which mean `AND`, `OR` and `NOT`.
        case and, or, not
        case leftParen, rightParen, leftBrace, rightBrace, comma
        /// `[c]`, `[d]`, `[cd]`.
        case modifier(SQLExpression.TextOptions)
        case integer(Int64)
        case decimal(Double)
        case string(String)
        /// A format specifier; it consumes the next argument.
        case specifier(FormatSpecifier)
        case end
    }

    let kind: Kind
    /// The character offset of the token's first character.
    let position: Int
    /// The token as written, for messages.
    let text: String
}

/// The reserved words of the grammar, matched without regard to case.
enum FormatKeyword: String, Sendable {
    case and = "AND", or = "OR", not = "NOT"
    case `in` = "IN", between = "BETWEEN", beginsWith = "BEGINSWITH", endsWith = "ENDSWITH"
    case contains = "CONTAINS", like = "LIKE"
    case truePredicate = "TRUEPREDICATE", falsePredicate = "FALSEPREDICATE"
    case `nil` = "NIL", null = "NULL", `true` = "TRUE", yes = "YES", `false` = "FALSE", no = "NO"
}

/// What kind of argument a format specifier takes.
enum FormatSpecifier: Sendable, Equatable {
    /// `%K`: a key name given as a `String`.
    case key
    /// `%@`: any value, or a collection of values.
    case object
    /// `%d` `%i` `%ld` `%lld` `%u` …: an integer.
    case integer
    /// `%f` `%lf`: a floating-point number.
    case floatingPoint
}

/// Splits a format string into tokens. Every failure is a ``FormatError`` with the position it is at.
struct FormatLexer {
    private let characters: [Character]
    private var index = 0

    /// Reserved words of NSPredicate that Strata's grammar leaves out; naming them gives a clear error.
    private static let unsupportedWords: Set<String> = [
        "MATCHES", "ANY", "ALL", "SOME", "NONE", "SELF", "SUBQUERY", "FUNCTION",
    ]
    private static let specifiers: [String: FormatSpecifier] = [
        "K": .key, "@": .object,
        "d": .integer, "i": .integer, "u": .integer, "ld": .integer, "li": .integer, "lu": .integer,
        "lld": .integer, "lli": .integer, "llu": .integer,
        "f": .floatingPoint, "lf": .floatingPoint,
    ]

    init(_ format: String) {
        characters = Array(format)
    }

    /// `key` written so that the grammar reads it back as a key: a reserved word gets its `#` escape
    /// (a dotted key path never reads as one).
    static func writtenKey(_ key: String) -> String {
        let upper = key.uppercased()
        return FormatKeyword(rawValue: upper) != nil || unsupportedWords.contains(upper) ? "#" + key : key
    }

    /// All tokens, ending with ``FormatToken/Kind/end``.
    static func tokenize(_ format: String) throws(FormatError) -> [FormatToken] {
        var lexer = FormatLexer(format)
        var tokens: [FormatToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ offset: Int = 0) -> Character? {
        index + offset < characters.count ? characters[index + offset] : nil
    }

    private func text(from start: Int) -> String {
        String(characters[start..<index])
    }

    private mutating func next() throws(FormatError) -> FormatToken {
        while let character = peek(), character.isWhitespace {
            index += 1
        }
        let start = index
        guard let character = peek() else {
            return FormatToken(kind: .end, position: start, text: "")
        }
        if Self.startsKey(character) {
            return word(start: start, escaped: false)
        }
        if character == "#" {
            index += 1
            guard let first = peek(), Self.startsKey(first) else {
                throw FormatError("expected a key name after '#' at position \(start)", position: start)
            }
            return word(start: start, escaped: true)
        }
        if Self.isDigit(character) || (character == "-" && Self.isDigit(peek(1))) {
            return try number(start: start)
        }
        switch character {
        case "'", "\"": return try string(start: start, quote: character)
        case "%": return try specifier(start: start)
        case "[": return try modifier(start: start)
        default: return try symbol(start: start, character)
        }
    }

    private static func startsKey(_ character: Character) -> Bool {
        character.isLetter || character == "_"
    }

    private static func isDigit(_ character: Character?) -> Bool {
        character.map { $0.isASCII && $0.isNumber } ?? false
    }

    private mutating func word(start: Int, escaped: Bool) -> FormatToken {
        let nameStart = index
        while true {
            while let character = peek(), character.isLetter || character.isNumber || character == "_" {
                index += 1
            }
            // A key path through to-one relationships: `owner.name`.
            guard peek() == ".", let next = peek(1), next.isLetter || next == "_" else { break }
            index += 1
        }
        let name = String(characters[nameStart..<index])
        if !escaped {
            let upper = name.uppercased()
            if let keyword = FormatKeyword(rawValue: upper) {
                return FormatToken(kind: .keyword(keyword), position: start, text: name)
            }
            if Self.unsupportedWords.contains(upper) {
                return FormatToken(kind: .unsupported(name), position: start, text: name)
            }
        }
        return FormatToken(kind: .identifier(name), position: start, text: text(from: start))
    }

    private mutating func number(start: Int) throws(FormatError) -> FormatToken {
        if peek() == "-" { index += 1 }
        var isDecimal = false
        while Self.isDigit(peek()) { index += 1 }
        if peek() == ".", Self.isDigit(peek(1)) {
            isDecimal = true
            index += 1
            while Self.isDigit(peek()) { index += 1 }
        }
        if peek() == "e" || peek() == "E",
            Self.isDigit(peek(1)) || ((peek(1) == "+" || peek(1) == "-") && Self.isDigit(peek(2)))
        {
            isDecimal = true
            index += 2
            while Self.isDigit(peek()) { index += 1 }
        }
        if let character = peek(), character.isLetter || character == "_" {
            throw FormatError(
                "unexpected character '\(character)' at position \(index), right after a number", position: index)
        }
        let literal = text(from: start)
        if isDecimal {
            guard let value = Double(literal), value.isFinite else {
                throw FormatError("number '\(literal)' is out of range at position \(start)", position: start)
            }
            return FormatToken(kind: .decimal(value), position: start, text: literal)
        }
        guard let value = Int64(literal) else {
            throw FormatError("integer '\(literal)' does not fit in 64 bits at position \(start)", position: start)
        }
        return FormatToken(kind: .integer(value), position: start, text: literal)
    }

    private mutating func string(start: Int, quote: Character) throws(FormatError) -> FormatToken {
        index += 1
        var value = ""
        while let character = peek() {
            index += 1
            if character == quote {
                return FormatToken(kind: .string(value), position: start, text: text(from: start))
            }
            guard character == "\\" else {
                value.append(character)
                continue
            }
            guard let escaped = peek() else { break }
            index += 1
            switch escaped {
            case "\\", "'", "\"": value.append(escaped)
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            // Kept with their backslash, so that LIKE reads them as a literal `*` or `?`.
            case "*", "?": value.append("\\"); value.append(escaped)
            default:
                throw FormatError(
                    "unknown escape '\\\(escaped)' at position \(index - 2) (supported: \\\\ \\' \\\" \\n \\t \\r \\0 \\* \\?)",
                    position: index - 2)
            }
        }
        throw FormatError("unterminated string starting at position \(start)", position: start)
    }

    private mutating func specifier(start: Int) throws(FormatError) -> FormatToken {
        index += 1
        var name = ""
        while peek() == "l", name.count < 2 {
            name.append("l")
            index += 1
        }
        if let character = peek(), !character.isWhitespace {
            name.append(character)
            index += 1
        }
        guard let specifier = Self.specifiers[name] else {
            let written = name.isEmpty ? "%" : "%\(name)"
            throw FormatError(
                "unknown format specifier '\(written)' at position \(start) "
                    + "(supported: %K, %@, %d, %i, %u, %ld, %lld, %f, %lf)",
                position: start)
        }
        return FormatToken(kind: .specifier(specifier), position: start, text: text(from: start))
    }

    private mutating func modifier(start: Int) throws(FormatError) -> FormatToken {
        index += 1
        var options: SQLExpression.TextOptions = []
        while let character = peek(), character != "]" {
            switch character {
            case "c", "C": options.insert(.caseInsensitive)
            case "d", "D": options.insert(.diacriticInsensitive)
            case _ where character.isLetter:
                throw FormatError(
                    "unknown modifier '\(character)' at position \(index) (supported: [c], [d], [cd])", position: index)
            default:
                throw FormatError("unterminated modifier '[' at position \(start)", position: start)
            }
            index += 1
        }
        guard peek() == "]" else {
            throw FormatError("unterminated modifier '[' at position \(start)", position: start)
        }
        index += 1
        if options.isEmpty {
            throw FormatError("empty modifier '[]' at position \(start) (supported: [c], [d], [cd])", position: start)
        }
        return FormatToken(kind: .modifier(options), position: start, text: text(from: start))
    }

    private mutating func symbol(start: Int, _ character: Character) throws(FormatError) -> FormatToken {
        index += 1
        let following = peek()
        let kind: FormatToken.Kind
        switch (character, following) {
        case ("=", "="), ("=", "<"), ("=", ">"), ("!", "="), ("<", "="), ("<", ">"), (">", "="), ("&", "&"), ("|", "|"):
            index += 1
            switch (character, following) {
            case ("=", "="): kind = .comparison(.equal)
            case ("=", "<"), ("<", "="): kind = .comparison(.lessOrEqual)
            case ("=", ">"), (">", "="): kind = .comparison(.greaterOrEqual)
            case ("!", "="), ("<", ">"): kind = .comparison(.notEqual)
            case ("&", "&"): kind = .and
            default: kind = .or
            }
        case ("=", _): kind = .comparison(.equal)
        case ("<", _): kind = .comparison(.less)
        case (">", _): kind = .comparison(.greater)
        case ("!", _): kind = .not
        case ("(", _): kind = .leftParen
        case (")", _): kind = .rightParen
        case ("{", _): kind = .leftBrace
        case ("}", _): kind = .rightBrace
        case (",", _): kind = .comma
        case (".", _):
            throw FormatError(
                "unexpected '.' at position \(start): a key path joins field names (owner.name)", position: start)
        default:
            throw FormatError("unexpected character '\(character)' at position \(start)", position: start)
        }
        return FormatToken(kind: kind, position: start, text: text(from: start))
    }
}
