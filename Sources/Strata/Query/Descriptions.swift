// How queries describe themselves: as the user wrote them, in the format-string language for filters.

extension Where: CustomStringConvertible {
    /// The filter in the format-string language of ``Where/init(_:_:)``, with its values:
    /// `age >= 18 AND name CONTAINS[c] "ad"`, `owner.name == "Ada"`, `ANY pets.age > 10`,
    /// `isDone == TRUE`.
    ///
    /// The text parses back (``Where/init(validating:_:)``) to a filter that matches the same objects,
    /// except `ANY` / `ALL` over to-many relationships, which format strings lack, and values the language
    /// has no literal for: bytes (`Data`, `UUID`) print as `<16 bytes>`, which does not parse, and an
    /// infinite `Double` as `inf` or `-inf`, which would parse as a key named `inf`; pass such values as
    /// `%@` arguments instead.
    public var description: String { expression.formatText() }
}

extension OrderBy: CustomStringConvertible {
    /// The sort keys in order: `name ascending, age descending`; text compared otherwise than by its
    /// bytes says how (`name ascending (case-insensitive)`).
    public var description: String {
        terms.map { term in
            switch term.column {
            case .success(let column):
                var text = column.path + (term.ascending ? " ascending" : " descending")
                switch term.collation {
                case nil: break
                case Collation.caseInsensitive?: text += " (case-insensitive)"
                case Collation.localized?: text += " (localized standard)"
                case let other?: text += " (\(other))"
                }
                return text
            case .failure(let error):
                return "<invalid: \(error.message)>"
            }
        }.joined(separator: ", ")
    }
}

extension From: CustomStringConvertible {
    /// The fetch as it was built: `From<Person> where age >= 18 order by name ascending limit 10`, with
    /// sections (`section by age`), prefetched relationships, offset and batch size when set.
    public var description: String {
        var text = "From<\(E.entityDescription.typeName)>"
        if let predicate { text += " where \(predicate)" }
        if let sections {
            switch sections.column {
            case .success(let column): text += " section by \(column.path)"
            case .failure(let error): text += " section by <invalid: \(error.message)>"
            }
        }
        if !order.terms.isEmpty { text += " order by \(order)" }
        if !prefetches.isEmpty { text += " prefetching " + prefetches.map(\.property).joined(separator: ", ") }
        if let limit { text += " limit \(limit)" }
        if let offset { text += " offset \(offset)" }
        if let batchSize { text += " batch size \(batchSize)" }
        return text
    }
}
