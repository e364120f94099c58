import Foundation

// Membership and text tests in a `#Predicate`: `[1, 2].contains($0.age)`, `(1...5).contains($0.age)`,
// `$0.name.contains("ad")`, `$0.name.starts(with: "A")`.

extension PredicateExpressions.SequenceContains: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        let sequence = try translator.translate(sequence)
        let element = try translator.translate(element)
        return try translator.sequenceMembership(element, in: sequence, as: LHS.Output.self)
    }
}

extension PredicateExpressions.ClosedRange: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        .range(lower: try translator.translate(lower), upper: try translator.translate(upper), closed: true)
    }
}

extension PredicateExpressions.Range: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        .range(lower: try translator.translate(lower), upper: try translator.translate(upper), closed: false)
    }
}

extension PredicateExpressions.RangeExpressionContains: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        let range = try translator.translate(range)
        let element = try translator.translate(element)
        return .condition(try translator.rangeMembership(element, in: range, bound: Element.Output.self))
    }
}

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        guard Base.Output.self is any StringProtocol.Type, Other.Output.self is any StringProtocol.Type else {
            throw translator.failure(
                "contains(_:) of a \(Other.Output.self) in a \(Base.Output.self)",
                "only a text can be searched for another text.")
        }
        return try translator.textTest(.contains, translator.translate(base), translator.translate(other))
    }
}

extension PredicateExpressions.SequenceStartsWith: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        guard Base.Output.self is any StringProtocol.Type, Prefix.Output.self is any StringProtocol.Type else {
            throw translator.failure(
                "starts(with:) of a \(Base.Output.self)", "only a text can be tested for a prefix.")
        }
        return try translator.textTest(.beginsWith, translator.translate(base), translator.translate(prefix))
    }
}

#if canImport(Darwin)
// Foundation on Apple platforms has these expressions; swift-foundation on Linux does not, so the
// translations live in `localizedStandardContains(_:_:)` and `caseInsensitiveComparison`, tested there.

extension PredicateExpressions.StringLocalizedStandardContains: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        try translator.localizedStandardContains(translator.translate(root), translator.translate(other))
    }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        .caseInsensitiveComparison(try translator.translate(root), try translator.translate(other))
    }
}
#endif

extension PredicateTranslator {
    /// A text test through the SQL function that runs Swift's own string operations.
    func textTest(
        _ test: SQLExpression.TextTest, _ text: PredicateTerm, _ other: PredicateTerm,
        _ options: SQLExpression.TextOptions = []
    ) throws(StrataError) -> PredicateTerm {
        .condition(try distribute(text, other) { (text, other) throws(StrataError) -> SQLExpression in
            let text = try textValue(text)
            let other = try textValue(other)
            if case .value(.text(let left)) = text, case .value(.text(let right)) = other {
                return .constant(TextFunction.evaluate(test.rawValue, left, right, options))
            }
            return .text(test, text, other, options)
        })
    }

    /// `text.localizedStandardContains(other)`: contains, ignoring case and diacritics. Unlike
    /// `contains(_:)`, it is false for an empty `other`, as Foundation's search for an empty text is.
    func localizedStandardContains(_ text: PredicateTerm, _ other: PredicateTerm) throws(StrataError) -> PredicateTerm {
        let options: SQLExpression.TextOptions = [.caseInsensitive, .diacriticInsensitive]
        return .condition(try distribute(text, other) { (text, other) throws(StrataError) -> SQLExpression in
            let other = try textValue(other)
            if case .value(.text(let needle)) = other, needle.isEmpty { return .constant(false) }
            let contains = SQLExpression.text(.contains, try textValue(text), other, options)
            if case .value = other { return contains }
            return PredicateSQL.and(.compare(other, .notEqual, .value(.text(""))), contains)
        })
    }

    /// `sequence.contains(element)`: SQL `IN` for a list known before the query, or a text test for a
    /// `Character` in a text field.
    func sequenceMembership<S: Sequence>(
        _ element: PredicateTerm, in sequence: PredicateTerm, as type: S.Type
    ) throws(StrataError) -> PredicateTerm where S.Element: Equatable {
        if case .constant(let value) = sequence {
            guard let values = value as? S else { throw internalFailure("contains(_:)", sequence) }
            if case .constant(let value) = element, let value = value as? S.Element {
                return .condition(.constant(values.contains(value)))
            }
            var list: [DatabaseValue] = []
            for value in values { list.append(try databaseValue(of: value)) }
            return .condition(try distribute(element) { (element) throws(StrataError) -> SQLExpression in
                if case .constant(let value) = element, let value = value as? S.Element {
                    return .constant(values.contains(value))
                }
                return .inList(try sqlValue(element), list, negated: false)
            })
        }
        switch sequence {
        case .scalar, .choice:
            if S.self is any StringProtocol.Type { return try textTest(.contains, sequence, element) }
        default:
            break
        }
        throw failure(
            "contains(_:) on a \(S.self) that is not a list of values",
            "membership translates for an array, set or other sequence captured by the predicate "
                + "(`[1, 2].contains($0.age)`), and for a Character in a text field.")
    }

    /// `range.contains(element)`: `BETWEEN` for a closed range, `>=` and `<` for a half-open one.
    func rangeMembership<Bound: Comparable>(
        _ element: PredicateTerm, in range: PredicateTerm, bound: Bound.Type
    ) throws(StrataError) -> SQLExpression {
        let lower: PredicateTerm?
        let upper: PredicateTerm?
        let closed: Bool
        switch range {
        case .range(let low, let high, let isClosed):
            (lower, upper, closed) = (low, high, isClosed)
        case .constant(let value):
            if let range = value as? ClosedRange<Bound> {
                (lower, upper, closed) = (.constant(range.lowerBound), .constant(range.upperBound), true)
            } else if let range = value as? Range<Bound> {
                (lower, upper, closed) = (.constant(range.lowerBound), .constant(range.upperBound), false)
            } else if let range = value as? PartialRangeFrom<Bound> {
                (lower, upper, closed) = (.constant(range.lowerBound), nil, false)
            } else if let range = value as? PartialRangeThrough<Bound> {
                (lower, upper, closed) = (nil, .constant(range.upperBound), true)
            } else if let range = value as? PartialRangeUpTo<Bound> {
                (lower, upper, closed) = (nil, .constant(range.upperBound), false)
            } else {
                throw failure(
                    "contains(_:) on a \(type(of: value))",
                    "only ClosedRange, Range and partial ranges translate.")
            }
        default:
            throw internalFailure("contains(_:) on a range", range)
        }
        if closed, let lower, let upper {
            return try between(element, lower, upper, bound: Bound.self)
        }
        let above = try lower.map { (lower) throws(StrataError) in
            try ordering(element, .greaterOrEqual, lower, as: Bound.self)
        }
        let below = try upper.map { (upper) throws(StrataError) in
            try ordering(element, closed ? .lessOrEqual : .less, upper, as: Bound.self)
        }
        return PredicateSQL.and(above ?? .constant(true), below ?? .constant(true))
    }

    /// `lower <= element && element <= upper`, as SQL `BETWEEN`.
    private func between<Bound: Comparable>(
        _ element: PredicateTerm, _ lower: PredicateTerm, _ upper: PredicateTerm, bound: Bound.Type
    ) throws(StrataError) -> SQLExpression {
        try requireOrdered(Bound.self)
        return try distribute(element) { (element) throws(StrataError) -> SQLExpression in
            try distribute(lower, upper) { (lower, upper) throws(StrataError) -> SQLExpression in
                if case .constant(let value) = element, case .constant(let low) = lower, case .constant(let high) = upper,
                    let value = value as? Bound, let low = low as? Bound, let high = high as? Bound
                {
                    return .constant(low <= value && value <= high)
                }
                try requireOrderedBounds(element, lower, upper)
                return .between(try sqlValue(element), try sqlValue(lower), try sqlValue(upper))
            }
        }
    }
}
