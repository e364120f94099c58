import Foundation

// The leaves of a `#Predicate` (its input, captured values, `nil`, key paths) and its logic
// (`&&`, `||`, `!`, `?:`).

extension PredicateExpressions.Variable: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        guard let term = translator.term(for: key) else {
            throw translator.failure(
                "use of a variable it does not bind",
                "only the predicate's input and values unwrapped by optional chaining can be read.")
        }
        return term
    }
}

extension PredicateExpressions.Value: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        .constant(value)
    }
}

extension PredicateExpressions.NilLiteral: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        .null(Wrapped.self)
    }
}

extension PredicateExpressions.KeyPath: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        switch try translator.translate(root) {
        case .entity:
            return try translator.column(keyPath)
        case .constant(let value):
            // A property of a captured value: read it now, it is a constant of the query.
            guard let root = value as? Root.Output else {
                throw translator.internalFailure("key path \(keyPath)", .constant(value))
            }
            return .constant(root[keyPath: keyPath])
        case let term:
            // A property of a field's value: only a text's `isEmpty` has an exact SQL meaning.
            guard (keyPath as AnyKeyPath) == (\String.isEmpty as AnyKeyPath) else {
                throw translator.failure(
                    "key path \(PredicateKeyPathName.describe(keyPath)) on a field's value",
                    "only stored fields and the ID are columns; of a text field's properties, only `isEmpty` "
                        + "translates (`count` counts Characters, which SQL cannot).")
            }
            return .condition(try translator.distribute(term) { (text) throws(StrataError) -> SQLExpression in
                .compare(try translator.sqlValue(text), .equal, .value(.text("")))
            })
        }
    }
}

extension PredicateTranslator {
    /// The column a key path of the entity reads.
    func column(_ keyPath: AnyKeyPath) throws(StrataError) -> PredicateTerm {
        guard let entityKeyPath = keyPath as? PartialKeyPath<E> else {
            throw internalFailure("key path \(keyPath)", .entity)
        }
        switch ColumnResolver.column(for: entityKeyPath) {
        case .success(let column):
            return .scalar(.column(column))
        case .failure(let error):
            throw failure("key path \(PredicateKeyPathName.describe(keyPath))", error.message, field: error.field)
        }
    }
}

/// Names key paths in error messages; Linux prints a computed property as `<computed 0x… (Int)>`.
enum PredicateKeyPathName {
    /// `\String.count`, `\Person.name`, or "to a computed Int property of Person".
    static func describe(_ keyPath: AnyKeyPath) -> String {
        let known: [AnyKeyPath: String] = [
            \String.count: "\\String.count", \String.isEmpty: "\\String.isEmpty",
            \String.first: "\\String.first", \String.last: "\\String.last",
        ]
        if let name = known[keyPath] { return name }
        let text = "\(keyPath)"
        guard text.contains("<computed") else { return text }
        let type = type(of: keyPath)
        return "to a computed \(type.valueType) property of \(type.rootType)"
    }
}

extension PredicateExpressions.Conjunction: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        let lhs = try translator.condition(translator.translate(lhs))
        let rhs = try translator.condition(translator.translate(rhs))
        return .condition(PredicateSQL.and(lhs, rhs))
    }
}

extension PredicateExpressions.Disjunction: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        let lhs = try translator.condition(translator.translate(lhs))
        let rhs = try translator.condition(translator.translate(rhs))
        return .condition(PredicateSQL.or(lhs, rhs))
    }
}

extension PredicateExpressions.Negation: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        .condition(PredicateSQL.not(try translator.condition(translator.translate(wrapped))))
    }
}

extension PredicateExpressions.Conditional: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        let test = try translator.condition(translator.translate(test))
        let whenTrue = try translator.translate(trueBranch)
        let whenFalse = try translator.translate(falseBranch)
        if case .constant(let value) = test { return value ? whenTrue : whenFalse }
        return .choice(test, whenTrue, whenFalse)
    }
}
