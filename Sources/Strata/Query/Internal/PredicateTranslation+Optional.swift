import Foundation

// Optionals in a `#Predicate`: optional chaining and `if let` (`OptionalFlatMap`), `??`, and `!`.
// `== nil` and `!= nil` are equalities with a `nil` constant (see `PredicateTranslation+Comparison`).

extension PredicateExpressions.OptionalFlatMap: SQLTranslatablePredicateExpression {
    /// `wrapped.flatMap { transform }`: `nil` when `wrapped` is `nil`, the transform of the unwrapped
    /// value otherwise. The transform is translated with its variable standing for the unwrapped value.
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        let optional = try translator.translate(wrapped)
        let scope = translator.binding(variable.key, to: translator.unwrapped(optional))
        let transformed = try scope.translate(transform)
        let isNil = try translator.isNil(optional)
        if case .constant(let value) = isNil { return value ? .null(Result.self) : transformed }
        return .choice(isNil, .null(Result.self), transformed)
    }
}

extension PredicateExpressions.NilCoalesce: SQLTranslatablePredicateExpression {
    /// `lhs ?? rhs`: `rhs` when `lhs` is `nil`, the unwrapped `lhs` otherwise.
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        let optional = try translator.translate(lhs)
        let fallback = try translator.translate(rhs)
        let isNil = try translator.isNil(optional)
        if case .constant(let value) = isNil { return value ? fallback : translator.unwrapped(optional) }
        return .choice(isNil, fallback, translator.unwrapped(optional))
    }
}

extension PredicateExpressions.ForcedUnwrap: SQLTranslatablePredicateExpression {
    /// `inner!`: the unwrapped value. Where Swift's `evaluate` would throw because the value is `nil`,
    /// SQL reads `NULL` instead and does not throw: such an object fails `==`, `<` and text tests, and
    /// passes `!=`.
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        translator.unwrapped(try translator.translate(inner))
    }
}
