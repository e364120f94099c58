/// A text test.
enum TextTest: String, Sendable {
    /// The left text contains the right one.
    case contains
    /// The left text starts with the right one.
    case beginsWith
    /// The left text ends with the right one.
    case endsWith
    /// The left text equals the right one (used with folding options).
    case equals
    /// The left text matches a pattern with `*` (any run of characters) and `?` (one character).
    case like
}

/// How text is compared: `[c]` and `[d]` in format strings.
struct TextOptions: OptionSet, Sendable, Hashable {
    let rawValue: Int
    /// Letters compare without regard to case.
    static let caseInsensitive = TextOptions(rawValue: 1)
    /// Letters compare without regard to diacritics.
    static let diacriticInsensitive = TextOptions(rawValue: 2)
}
