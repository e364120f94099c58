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

extension PredicateExpressions.UnaryMinus: SQLTranslatablePredicateExpression {
    /// `-100` in `$0.balance > -100` is a literal to the user, and to Swift a prefix minus applied to
    /// 100: a number known before the query runs is negated here. The negation of anything SQL computes
    /// is arithmetic, which is not translated.
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        let operand = try translator.translate(wrapped)
        guard case .constant(let value) = operand, let number = value as? Wrapped.Output else {
            throw translator.failure(
                "construct \(PredicateConstructName.describe(self)) of \(operand.summary)",
                "only a number known before the query runs (a literal or a captured value) can be negated; "
                    + "arithmetic on fields is not translated. Compare with a value computed before the predicate.")
        }
        if let integer = number as? any FixedWidthInteger, Self.isMinimum(integer) {
            throw translator.failure("prefix `-` of \(number)", "its negation does not fit in \(Wrapped.Output.self).")
        }
        return .constant(-number)
    }

    private static func isMinimum<I: FixedWidthInteger>(_ integer: I) -> Bool {
        integer == I.min
    }
}

extension PredicateExpressions.NilLiteral: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        .null(Wrapped.self)
    }
}

extension PredicateExpressions.KeyPath: SQLTranslatablePredicateExpression {
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        // `$0.pets.count`: the count of a to-many relationship, which is no column on its own.
        if let link = root as? any PredicateEntityKeyPath, let inner = link.keyPathFromEntity(in: translator),
            let path = inner.appending(path: keyPath) as? PartialKeyPath<E>,
            case .success(let column) = ColumnResolver.column(for: path), case .toManyCount = column.kind
        {
            return .scalar(.column(column))
        }
        let base = try translator.translate(root)
        if let id = Root.Output.self as? any EntityIDNavigation.Type {
            // `$0.owner?.name`: the key path reads a field of the object an ID names.
            return try translator.navigate(from: base, keyPath, into: id.entityType)
        }
        switch base {
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
                        + "translates (`count` counts Characters, which SQL cannot). For an enum's `rawValue`, compare "
                        + "the field with a case captured in a local (`let sad = Mood.sad` … `$0.mood == sad`).")
            }
            return .condition(try translator.distribute(term) { (text) throws(StrataError) -> SQLExpression in
                .compare(try translator.sqlValue(text), .equal, .value(.text("")))
            })
        }
    }
}

/// A key path expression that may read the predicate's object directly (`$0.pets`).
protocol PredicateEntityKeyPath {
    /// The key path, when its root is the object the predicate tests; `nil` otherwise.
    func keyPathFromEntity<E: Entity>(in translator: PredicateTranslator<E>) -> AnyKeyPath?
}

extension PredicateExpressions.KeyPath: PredicateEntityKeyPath {
    func keyPathFromEntity<E: Entity>(in translator: PredicateTranslator<E>) -> AnyKeyPath? {
        guard let base = try? translator.translate(root), case .entity = base else { return nil }
        return keyPath
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

/// Lets translation see which entity an `EntityID` type names.
protocol EntityIDNavigation {
    static var entityType: any Entity.Type { get }
}

extension EntityID: EntityIDNavigation {
    static var entityType: any Entity.Type { E.self }
}

extension PredicateTranslator {
    /// The field of a related object that `keyPath` reads from the ID `base` (`$0.owner?.name`): a
    /// subquery that follows the relationship.
    func navigate<T: Entity>(
        from base: PredicateTerm, _ keyPath: AnyKeyPath, into target: T.Type
    ) throws(StrataError) -> PredicateTerm {
        guard case .scalar(.column(let reference)) = base, reference.kind == .column,
            reference.isToOne || reference.isOwnID
        else {
            throw failure(
                "key path \(PredicateKeyPathName.describe(keyPath)) on an ID that is not a relationship",
                "fields of a related object can be read through a to-one relationship (@Relationship) "
                    + "(`$0.owner?.name`), not through a captured, computed or plain stored ID; compare the ID "
                    + "instead (`$0.owner == ownerID`).")
        }
        guard let chained = Navigation.memberThroughID(keyPath, of: T.self) else {
            throw failure(
                "key path \(PredicateKeyPathName.describe(keyPath)) through \(T.self).ID",
                "only \(T.self)'s stored fields, ID, derived fields and to-many counts can be read through a "
                    + "relationship; the ID's own properties (rawValue, isSaved, object) have no meaning in SQL.")
        }
        var column: ColumnRef
        switch ColumnResolver.column(for: chained) {
        case .success(let resolved): column = resolved
        case .failure(let error):
            throw failure("key path \(PredicateKeyPathName.describe(keyPath))", error.message, field: error.field)
        }
        column.through = reference.through
        if !reference.isOwnID {
            // The ID is held in a column of the object: follow it. (An object's own ID leads back to it.)
            column.through.append(ToOneHop(column: reference.column, target: T.entityDescription.name, property: reference.property))
        }
        return .scalar(.column(column))
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
