// Filters that need more than one operand: membership, ranges and text tests.
//
//     From<Person>().where(.in(\.age, [18, 21]) && .contains(\.name, "ad", caseInsensitive: true))

extension Where {
    /// The field's value is one of `values` (SQL `IN`). An empty list matches nothing.
    ///
    /// Each value is a bound parameter, and SQLite binds a limited number in one statement
    /// (`SQLITE_LIMIT_VARIABLE_NUMBER`, 32,766 in SQLite's default build since 3.32): a longer list makes
    /// the fetch throw ``StrataError/Code/unsupportedQuery``. Split such a list over several fetches.
    public static func `in`<V: DatabaseValueConvertible, S: Sequence>(_ keyPath: KeyPath<E, V>, _ values: S) -> Where<E>
    where S.Element == V {
        Where(.membership(column(keyPath), values, negated: false))
    }

    /// The field's value is none of `values` (SQL `NOT IN`). An empty list matches everything.
    ///
    /// As for `Where.in`, a list longer than SQLite binds in one statement (32,766 values in its
    /// default build) makes the fetch throw ``StrataError/Code/unsupportedQuery``.
    public static func notIn<V: DatabaseValueConvertible, S: Sequence>(_ keyPath: KeyPath<E, V>, _ values: S) -> Where<E>
    where S.Element == V {
        Where(.membership(column(keyPath), values, negated: true))
    }

    /// The field lies in the closed range, both ends included (SQL `BETWEEN`).
    ///
    /// `UInt64` and `UInt` values above `Int64.max` are stored as negative numbers: such a bound makes the
    /// fetch throw ``StrataError/Code/unsupportedQuery``, and such a stored value compares as negative.
    public static func between<V: DatabaseValueConvertible & Comparable>(_ keyPath: KeyPath<E, V>, _ range: ClosedRange<V>) -> Where<E> {
        if let refusal = TextStoredNumbers.refusal(keyPath, "filter it with between")
            ?? UnsignedBounds.refusal(keyPath, "between", [range.lowerBound, range.upperBound])
        {
            return Where(.invalid(refusal))
        }
        return Where(
            SQLExpression.between(column(keyPath), .value(range.lowerBound.databaseValue), .value(range.upperBound.databaseValue))
                .checkingStores(of: [range.lowerBound, range.upperBound]))
    }

    /// The text field contains `substring`.
    public static func contains(
        _ keyPath: KeyPath<E, String>, _ substring: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Where<E> {
        text(.contains, keyPath, substring, caseInsensitive, diacriticInsensitive)
    }

    /// The optional text field holds a text that contains `substring`.
    public static func contains(
        _ keyPath: KeyPath<E, String?>, _ substring: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Where<E> {
        text(.contains, keyPath, substring, caseInsensitive, diacriticInsensitive)
    }

    /// The text field starts with `prefix`.
    public static func hasPrefix(
        _ keyPath: KeyPath<E, String>, _ prefix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Where<E> {
        text(.beginsWith, keyPath, prefix, caseInsensitive, diacriticInsensitive)
    }

    /// The optional text field holds a text that starts with `prefix`.
    public static func hasPrefix(
        _ keyPath: KeyPath<E, String?>, _ prefix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Where<E> {
        text(.beginsWith, keyPath, prefix, caseInsensitive, diacriticInsensitive)
    }

    /// The text field ends with `suffix`.
    public static func hasSuffix(
        _ keyPath: KeyPath<E, String>, _ suffix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Where<E> {
        text(.endsWith, keyPath, suffix, caseInsensitive, diacriticInsensitive)
    }

    /// The optional text field holds a text that ends with `suffix`.
    public static func hasSuffix(
        _ keyPath: KeyPath<E, String?>, _ suffix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Where<E> {
        text(.endsWith, keyPath, suffix, caseInsensitive, diacriticInsensitive)
    }

    /// The text field matches `pattern`, where `*` stands for any run of characters and `?` for exactly
    /// one (NSPredicate's `LIKE`). Case-sensitive unless asked otherwise.
    ///
    /// A backslash makes the character after it literal: `\*` matches an asterisk, `\?` a question mark
    /// and `\\` a backslash: `#"Why\?*"#` (or `"Why\\?*"`) matches the texts that start with "Why?".
    public static func like(
        _ keyPath: KeyPath<E, String>, _ pattern: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Where<E> {
        text(.like, keyPath, pattern, caseInsensitive, diacriticInsensitive)
    }

    /// The optional text field holds a text that matches `pattern` (see ``like(_:_:caseInsensitive:diacriticInsensitive:)-(KeyPath<E,String>,_,_,_)``).
    public static func like(
        _ keyPath: KeyPath<E, String?>, _ pattern: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Where<E> {
        text(.like, keyPath, pattern, caseInsensitive, diacriticInsensitive)
    }

    /// The text field equals `other` when case (and, if asked, diacritics) are ignored.
    public static func equals(
        _ keyPath: KeyPath<E, String>, _ other: String, caseInsensitive: Bool, diacriticInsensitive: Bool = false
    ) -> Where<E> {
        text(.equals, keyPath, other, caseInsensitive, diacriticInsensitive)
    }

    private static func text<V>(
        _ test: SQLExpression.TextTest, _ keyPath: KeyPath<E, V>, _ operand: String, _ caseInsensitive: Bool,
        _ diacriticInsensitive: Bool
    ) -> Where<E> {
        var options: SQLExpression.TextOptions = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        return Where(.text(test, column(keyPath), .value(.text(operand)), options))
    }
}
