// Filters written as format strings, in the spirit of NSPredicate's:
//
//     From<Person>().where("name BEGINSWITH[c] %@ AND age BETWEEN {%d, %d}", "ad", 18, 65)

extension Where {
    /// A filter parsed from a format string in the spirit of `NSPredicate(format:)`.
    ///
    /// ```swift
    /// Where<Person>("%K > %d", "age", 30)
    /// Where<Person>("name BEGINSWITH[c] %@ AND age BETWEEN {%d, %d}", "ad", 18, 65)
    /// Where<Person>("email == nil OR NOT (age IN %@)", [18, 21])
    /// ```
    /// The format string becomes the same filter the key-path operators build, with the same
    /// semantics: `==` and `!=` treat `nil` as Swift does, `NOT` of a comparison with a missing value is
    /// `true`, and text tests use Swift's Unicode case and diacritic folding. Every value — literal or
    /// argument — reaches SQLite as a bound parameter, never as SQL text.
    ///
    /// ## Grammar
    ///
    /// Keywords are case-insensitive; key names are not. Precedence, loosest first: `OR`, `AND`,
    /// `NOT`, then comparisons.
    ///
    /// | Form | Meaning |
    /// |---|---|
    /// | `p OR q`, `p \|\| q` | either predicate matches |
    /// | `p AND q`, `p && q` | both predicates match |
    /// | `NOT p`, `!p` | the predicate does not match |
    /// | `( p )` | grouping |
    /// | `TRUEPREDICATE`, `FALSEPREDICATE` | every object, no object |
    /// | `a == b`, `a = b` | equal (`key == nil` tests for a missing value) |
    /// | `a != b`, `a <> b` | not equal (`key != nil` tests for a present value) |
    /// | `a < b`, `a <= b`, `a =< b` | less than, at most |
    /// | `a > b`, `a >= b`, `a => b` | greater than, at least |
    /// | `a IN {v, …}`, `a IN %@` | one of the values: a list of values, or an array, set, `ClosedRange` or `Range` argument |
    /// | `a BETWEEN {low, high}`, `a BETWEEN %@` | `low <= a <= high`; the argument is an array of two or a `ClosedRange` |
    /// | `a BEGINSWITH b`, `a ENDSWITH b`, `a CONTAINS b` | text starts with, ends with, contains |
    /// | `a LIKE b` | text matches a pattern: `*` any run of characters, `?` one character, `\*` `\?` literal |
    /// | `a ==[c] b`, `a !=[c] b` | text equality ignoring case |
    /// | `[c]`, `[d]`, `[cd]` after `==`, `!=`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE` | ignore case, diacritics, both |
    /// | `a NOT IN …`, `a NOT BETWEEN …`, `a NOT LIKE …`, … | shorthand for `NOT (a IN …)` and so on |
    ///
    /// Operands:
    ///
    /// | Operand | Meaning |
    /// |---|---|
    /// | `age`, `#in` | a stored field of `E` by its property name, or `id`; `#` escapes a name that is a keyword |
    /// | `owner.name`, `owner.company.city` | a field reached through to-one relationships (`nil` when a relationship is) |
    /// | `%K` | a key or key path given as a `String` argument |
    /// | `%@` | any ``DatabaseValueConvertible`` argument (`nil` is `NULL`); for `IN` and `BETWEEN`, an array, a set or a range of them |
    /// | `%d` `%i` `%u` `%ld` `%lld` (and `%li` `%lu` `%lli` `%llu`) | an integer argument (any `BinaryInteger`, or a `Bool` as 0 or 1), or `nil` |
    /// | `%f` `%lf` | a floating-point argument (any `BinaryFloatingPoint`; integers are converted), or `nil` |
    /// | `42`, `-7`, `3.5`, `1e3` | integer and decimal literals |
    /// | `'text'`, `"text"` | string literals; escapes `\\` `\'` `\"` `\n` `\t` `\r` `\0`, and `\*` `\?` kept for `LIKE` |
    /// | `nil`, `NULL` | a missing value |
    /// | `TRUE`, `YES`, `FALSE`, `NO` | booleans |
    ///
    /// A comparison with the key on the right (`30 < age`) is flipped (`age > 30`). Only `==` and `!=`
    /// accept `nil`; text tests need text on both sides (a `String`, `URL`, `Decimal` or `String`-backed
    /// enum field, or a text value). Not supported: key paths through to-many relationships, aggregates
    /// (`ANY`, `ALL`, `SOME`, `NONE`), `MATCHES`, `SELF`, `SUBQUERY` and functions.
    ///
    /// ## Errors
    ///
    /// The initializer cannot throw: a malformed format string, an unknown key, a wrong number of
    /// arguments, an argument the key's column cannot hold (text for an integer key, a number for a
    /// text key; numbers compare with integer and real keys alike) or an ordering (`<`, `BETWEEN`, `IN`
    /// a range) against a `UInt64` or `UInt` above `Int64.max` (stored as a negative number) makes the fetch that uses the filter
    /// throw a ``StrataError`` with code ``StrataError/Code/invalidArgument``. Its message gives the reason and
    /// the character offset, followed by the format string and a caret under the offending spot:
    /// ```
    /// Format string of Where<Person>: unknown key 'agee' at position 0 (known: id, name, age, email)
    ///     agee > 30
    ///     ^
    /// ```
    /// Use ``init(validating:_:)`` to get that error where the filter is made, for example when the
    /// format string comes from user input.
    ///
    /// - Parameters:
    ///   - format: The predicate, in the grammar above.
    ///   - arguments: One argument per format specifier, in order. They are converted to database
    ///     values at once; none is kept.
    public init(_ format: String, _ arguments: (any Sendable)?...) {
        self.init(format: format, arguments: arguments)
    }

    /// A filter parsed from a format string, throwing at once when the format string is not valid.
    ///
    /// Takes the same grammar as ``init(_:_:)``, which reports a malformed format string only when
    /// the filter is used. Validate format strings you do not write yourself:
    /// ```swift
    /// do {
    ///     let filter = try Where<Person>(validating: searchField.text, minimumAge)
    /// } catch {
    ///     showProblem(error.message)   // "unknown key 'agee' at position 0 (known: …)"
    /// }
    /// ```
    /// - Throws: ``StrataError`` with code ``StrataError/Code/invalidArgument``, whose message gives
    ///   the reason and the position.
    public init(validating format: String, _ arguments: (any Sendable)?...) throws(StrataError) {
        self.init(format: format, arguments: arguments)
        if case .invalid(let error) = expression {
            throw error
        }
    }

    /// Parses `format`; an invalid format string gives an invalid expression that throws when rendered.
    init(format: String, arguments: [(any Sendable)?]) {
        do throws(FormatError) {
            // IDs among the arguments (alone or in collections) are checked against the store queried.
            self.init(try FormatParser.parse(format, arguments: arguments, entity: E.self)
                .checkingStores(of: FormatArgument.ids(in: arguments)))
        } catch {
            self.init(.invalid(Self.formatError(error, in: format)))
        }
    }

    /// A ``StrataError`` for a format error: the message, then the format string with a caret line.
    private static func formatError(_ error: FormatError, in format: String) -> StrataError {
        let entity = E.entityDescription
        var message = "Format string of Where<\(entity.typeName)>: \(error.message)"
        // Control characters would break the alignment of the caret line.
        let shown = String(format.map { $0.isWhitespace ? " " : $0 })
        message += "\n    " + shown
        if let position = error.position {
            message += "\n    " + String(repeating: " ", count: position) + "^"
        }
        return StrataError(.invalidArgument, message, entity: entity.name, field: error.key)
    }
}

extension From {
    /// Keeps only the objects that match a format string; combined with an existing filter by AND.
    ///
    /// ```swift
    /// From<Person>().where("name BEGINSWITH[c] %@ AND age >= %d", "ad", 18)
    /// ```
    /// See ``Where/init(_:_:)`` for the grammar and how errors are reported.
    public func `where`(_ format: String, _ arguments: (any Sendable)?...) -> From<E> {
        self.where(Where<E>(format: format, arguments: arguments))
    }
}
