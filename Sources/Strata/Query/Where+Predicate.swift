public import Foundation

// Filters written with Foundation's `#Predicate` macro:
//
//     From<Person>().where(#Predicate<Person> { $0.age >= 18 && $0.name.contains("ad") })

extension Where {
    /// A filter translated from Foundation's `Predicate`, as the `#Predicate` macro builds it.
    ///
    /// ```swift
    /// let minimumAge = 18
    /// let adults = Where(#Predicate<Person> { $0.age >= minimumAge && $0.name.contains("ad") })
    /// let reachable = Where(#Predicate<Person> { $0.email != nil && ($0.email ?? "").starts(with: "ada@") })
    /// let chosen = Where(#Predicate<Person> { [18, 21, 65].contains($0.age) || (30...39).contains($0.age) })
    /// ```
    /// The predicate is translated to SQL once, when the filter is made; the database evaluates it, and
    /// every value it captures reaches SQLite as a bound parameter. A fetch returns the objects for which
    /// `predicate.evaluate(object)` is `true`.
    ///
    /// ## What translates
    ///
    /// | In the predicate | In SQL |
    /// |---|---|
    /// | `$0.field`, `$0.id` | the column of a stored field, or the ID |
    /// | literals and captured values of stored types | bound values |
    /// | `==`, `!=` between fields and values, or two fields | `IS`, `IS NOT` (null-safe, as Swift's optionals) |
    /// | `<`, `<=`, `>`, `>=` on integers, floating point numbers, texts, dates, UUIDs and IDs (a `UInt64` or `UInt` bound above `Int64.max` throws: SQL would order it as negative) | `<`, `<=`, `>`, `>=` |
    /// | `&&`, `\|\|`, `!`, `true`, `false`, `c ? a : b` | `AND`, `OR`, `NOT`, constants, guarded alternatives |
    /// | `== nil`, `!= nil`, `?.` (and `if let`), `??`, `!` on optional fields | `IS NULL` tests that keep Swift's meaning |
    /// | `text.contains(other)`, `text.starts(with: prefix)`, `text.isEmpty` | Swift's own string operations, run by SQLite |
    /// | `text.localizedStandardContains(other)` (Apple platforms) | contains, ignoring case and diacritics |
    /// | `text.caseInsensitiveCompare(other) == same`, with `let same = ComparisonResult.orderedSame` (Apple platforms) | equality ignoring case |
    /// | `[1, 2, 3].contains($0.age)` with any captured array or set | `IN` |
    /// | `(1...5).contains($0.age)`, `(1..<5).contains(…)`, captured partial ranges | `BETWEEN`, `>=` and `<` |
    ///
    /// Texts compare by their Unicode scalars, as Swift compares NFC-normalized text: store text in one
    /// normalization form (Swift strings made from literals and most input are NFC) for `==` and `<` to
    /// agree with Swift's on every string. `hasPrefix`, `hasSuffix` and `lowercased()` are not accepted by
    /// the `#Predicate` macro itself; write `starts(with:)`, or use ``Where`` factories such as
    /// ``Where/hasSuffix(_:_:caseInsensitive:diacriticInsensitive:)-(KeyPath<E,String>,_,_,_)``.
    ///
    /// An enum field compares with `==` and `!=` (and `contains` on a list of cases) when the enum is
    /// `Codable`: `#Predicate` captures only `Codable` values, and takes a case only as a captured value
    /// (`let draft = Status.draft`, then `$0.status == draft`). `<`, `<=`, `>` and `>=` on an enum field
    /// throw ``StrataError/Code/unsupportedQuery``.
    ///
    /// ## What does not
    ///
    /// Arithmetic (`+`, `-`, `*`, `/`, `%`), casts (`as?`, `as!`, `is`), subscripts, closures over
    /// sequences (`contains(where:)`, `allSatisfy`, `filter`), `min()`, `max()`, regular expressions,
    /// key paths into the objects of a to-many relationship (its `count` translates: `$0.pets.count > 2`;
    /// so does a to-one chain such as `$0.owner?.name`, which a `nil` owner fails) or computed
    /// properties, and properties of a field's value other
    /// than a text's `isEmpty` (`$0.name.count`). Such a predicate is never evaluated in memory instead:
    /// the fetch throws ``StrataError/Code/unsupportedQuery``, naming the construct and the entity. Values
    /// computed before the predicate and captured by it always translate.
    public init(_ predicate: Predicate<E>) {
        self.init(PredicateTranslator<E>.translate(predicate))
    }
}

extension From {
    /// Keeps only the objects for which a `#Predicate` is true; combined with an earlier filter by AND.
    ///
    /// ```swift
    /// let adults = try await stack.fetchAll(
    ///     From<Person>().where(#Predicate { $0.age >= 18 && $0.name.contains("ad") }))
    /// ```
    /// See ``Where/init(_:)-(Predicate<E>)`` for what translates to SQL; anything else makes the fetch
    /// throw ``StrataError/Code/unsupportedQuery``.
    public func `where`(_ predicate: Predicate<E>) -> From<E> {
        self.where(Where(predicate))
    }
}
