import Foundation

// `==`, `!=`, `<`, `<=`, `>`, `>=` in a `#Predicate`.

extension PredicateExpressions.Equal: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        .condition(try translator.equality(translator.translate(lhs), translator.translate(rhs), as: LHS.Output.self))
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        let equal = try translator.equality(translator.translate(lhs), translator.translate(rhs), as: LHS.Output.self)
        return .condition(PredicateSQL.not(equal))
    }
}

extension PredicateExpressions.Comparison: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        let operators: [PredicateExpressions.ComparisonOperator: SQLExpression.Comparison] = [
            .lessThan: .less, .lessThanOrEqual: .lessOrEqual, .greaterThan: .greater, .greaterThanOrEqual: .greaterOrEqual,
        ]
        guard let comparison = operators[op] else {
            throw translator.failure("comparison operator \(op)", "only <, <=, > and >= are known.")
        }
        let lhs = try translator.translate(lhs)
        let rhs = try translator.translate(rhs)
        return .condition(try translator.ordering(lhs, comparison, rhs, as: LHS.Output.self))
    }
}

/// The types whose stored form sorts in SQL exactly as Swift's `<` orders them: integers, floating
/// point numbers, texts (by Unicode scalars, as Swift orders NFC text), dates, UUIDs (by bytes) and IDs.
/// `UInt64` and `UInt` only up to `Int64.max`: larger values are stored as negative numbers, so a
/// comparison with one as its bound is refused (``PredicateTranslator/requireOrderedBounds(_:)``), and a
/// stored one sorts as negative.
///
/// Not here: `Decimal` (stored as text, which sorts "10" before "9") and `Comparable` enums (whose `<`
/// is the enum's own, not its raw value's).
protocol SQLOrderedValue {}

extension Int: SQLOrderedValue {}
extension Int8: SQLOrderedValue {}
extension Int16: SQLOrderedValue {}
extension Int32: SQLOrderedValue {}
extension Int64: SQLOrderedValue {}
extension UInt: SQLOrderedValue {}
extension UInt8: SQLOrderedValue {}
extension UInt16: SQLOrderedValue {}
extension UInt32: SQLOrderedValue {}
extension UInt64: SQLOrderedValue {}
extension Double: SQLOrderedValue {}
extension Float: SQLOrderedValue {}
extension String: SQLOrderedValue {}
extension Date: SQLOrderedValue {}
extension UUID: SQLOrderedValue {}
extension EntityID: SQLOrderedValue {}

extension PredicateTranslator {
    /// `lhs == rhs` with Swift's meaning: two `nil`s are equal, `nil` differs from every value.
    func equality<T: Equatable>(
        _ lhs: PredicateTerm, _ rhs: PredicateTerm, as type: T.Type
    ) throws(StrataError) -> SQLExpression {
        try distribute(lhs, rhs) { (lhs, rhs) throws(StrataError) -> SQLExpression in
            switch (lhs, rhs) {
            case (.constant(let left), .constant(let right)):
                if let left = left as? T, let right = right as? T { return .constant(left == right) }
            case (.caseInsensitiveComparison(let text, let other), .constant(let result)),
                (.constant(let result), .caseInsensitiveComparison(let text, let other)):
                return try caseInsensitiveEquality(text, other, result)
            default:
                break
            }
            if lhs.isNilConstant { return try isNil(rhs) }
            if rhs.isNilConstant { return try isNil(lhs) }
            // `IS` is null-safe: NULL IS NULL is true, NULL IS 3 is false, as with Swift's optionals.
            return .compare(try sqlValue(lhs), .equal, try sqlValue(rhs))
        }
    }

    /// `lhs <op> rhs` for a type whose stored form sorts like its values.
    func ordering<T: Comparable>(
        _ lhs: PredicateTerm, _ comparison: SQLExpression.Comparison, _ rhs: PredicateTerm, as type: T.Type
    ) throws(StrataError) -> SQLExpression {
        try requireOrdered(T.self)
        return try distribute(lhs, rhs) { (lhs, rhs) throws(StrataError) -> SQLExpression in
            if case .constant(let left) = lhs, case .constant(let right) = rhs,
                let left = left as? T, let right = right as? T
            {
                return .constant(Self.compare(left, comparison, right))
            }
            try requireOrderedBounds(lhs, rhs)
            return .compare(try sqlValue(lhs), comparison, try sqlValue(rhs))
        }
    }

    /// Throws unless values of `type` sort in SQL as they do in Swift.
    func requireOrdered<T>(_ type: T.Type) throws(StrataError) {
        guard type is any SQLOrderedValue.Type else {
            throw failure(
                "ordering comparison of \(T.self) values",
                "\(T.self) is not stored in a form that sorts like its values; order by integers, floating point "
                    + "numbers, texts, dates, UUIDs or IDs (compare equality, or use contains(_:) on a list).")
        }
    }

    /// Throws when a constant among `terms`, operands of an ordering comparison, is an unsigned integer
    /// above `Int64.max`, which SQL would order as a negative number (see ``UnsignedBounds``).
    func requireOrderedBounds(_ terms: PredicateTerm...) throws(StrataError) {
        for case .constant(let value) in terms where UnsignedBounds.isBeyondInt64(value) {
            throw failure("ordering comparison with \(PredicateValue.unwrap(value) ?? value)", UnsignedBounds.reason)
        }
    }

    /// Swift's answer for two constants.
    static func compare<T: Comparable>(_ lhs: T, _ comparison: SQLExpression.Comparison, _ rhs: T) -> Bool {
        switch comparison {
        case .equal: lhs == rhs
        case .notEqual: lhs != rhs
        case .less: lhs < rhs
        case .lessOrEqual: lhs <= rhs
        case .greater: lhs > rhs
        case .greaterOrEqual: lhs >= rhs
        }
    }

    /// `text.caseInsensitiveCompare(other) == result`, for `result == .orderedSame`.
    private func caseInsensitiveEquality(
        _ text: PredicateTerm, _ other: PredicateTerm, _ result: Any
    ) throws(StrataError) -> SQLExpression {
        guard let result = PredicateValue.unwrap(result) as? ComparisonResult, result == .orderedSame else {
            throw failure(
                "comparison of caseInsensitiveCompare(_:) with \(result)",
                "only `== .orderedSame` and `!= .orderedSame` translate (case-insensitive equality).")
        }
        return try distribute(text, other) { (text, other) throws(StrataError) -> SQLExpression in
            .text(.equals, try textValue(text), try textValue(other), [.caseInsensitive])
        }
    }
}
