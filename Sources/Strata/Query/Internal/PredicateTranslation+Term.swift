import Foundation

/// What a `#Predicate` sub-expression means in SQL while the predicate is being translated.
///
/// SQL `NULL` stands for Swift's `nil` only where the Swift type is optional. Optional chaining,
/// `??` and `?:` become a ``choice(_:_:_:)`` instead of SQL that relies on `NULL` propagation, so that
/// every test keeps Swift's two-valued meaning: consumers apply themselves to each branch, guarded by
/// the branch's test (see ``PredicateTranslator/distribute(_:_:)``).
indirect enum PredicateTerm {
    /// The object the predicate tests (`$0`); only key paths can read it.
    case entity
    /// A value known before the query runs (a literal or a captured value), possibly `nil`.
    case constant(Any)
    /// A value SQL computes, such as a column.
    case scalar(SQLExpression)
    /// A test SQL computes: `1` or `0`. Its Swift type is `Bool`, never optional.
    case condition(SQLExpression)
    /// `test ? whenTrue : whenFalse`, where `test` is a condition that is never `NULL`.
    case choice(SQLExpression, PredicateTerm, PredicateTerm)
    /// A range built in the predicate (`a...b` when closed, `a..<b` otherwise).
    case range(lower: PredicateTerm, upper: PredicateTerm, closed: Bool)
    /// The `ComparisonResult` of `caseInsensitiveCompare(_:)` between two texts (Apple platforms).
    case caseInsensitiveComparison(PredicateTerm, PredicateTerm)

    /// A `nil` of type `Wrapped?`.
    static func null<Wrapped>(_ type: Wrapped.Type) -> PredicateTerm {
        .constant(Wrapped?.none as Any)
    }

    /// Whether this is a constant `nil`.
    var isNilConstant: Bool {
        if case .constant(let value) = self { return PredicateValue.unwrap(value) == nil }
        return false
    }

    /// A short description for internal error messages.
    var summary: String {
        switch self {
        case .entity: "the object itself"
        case .constant(let value): "a constant of type \(type(of: value))"
        case .scalar: "a SQL value"
        case .condition: "a SQL condition"
        case .choice: "a conditional value"
        case .range: "a range"
        case .caseInsensitiveComparison: "a case-insensitive comparison"
        }
    }
}

/// Values captured by a predicate, seen through `Any`.
enum PredicateValue {
    /// The value with every level of `Optional` removed, or `nil` when one of them is `nil`.
    static func unwrap(_ value: Any) -> Any? {
        guard let optional = value as? any PredicateOptional else { return value }
        return optional.predicateWrapped.flatMap(unwrap)
    }
}

/// Lets translation see through an `Optional` held in `Any`.
protocol PredicateOptional {
    /// The wrapped value, or `nil`.
    var predicateWrapped: Any? { get }
}

extension Optional: PredicateOptional {
    var predicateWrapped: Any? {
        switch self {
        case .none: nil
        case .some(let wrapped): wrapped
        }
    }
}

// MARK: - Conversions

extension PredicateTranslator {
    /// The term as a SQL condition; it must have Swift type `Bool`.
    func condition(_ term: PredicateTerm) throws(StrataError) -> SQLExpression {
        try distribute(term) { (term) throws(StrataError) -> SQLExpression in
            switch term {
            case .condition(let test):
                return test
            case .scalar(let value):
                // A stored Bool is 0 or 1.
                return .compare(value, .equal, .constant(true))
            case .constant(let value):
                guard let bool = PredicateValue.unwrap(value) as? Bool else {
                    throw internalFailure("a non-Boolean value used as a test", term)
                }
                return .constant(bool)
            case .entity, .choice, .range, .caseInsensitiveComparison:
                throw internalFailure("a value used as a test", term)
            }
        }
    }

    /// The term as a SQL value, for a term that is not a choice (distribute over choices first).
    func sqlValue(_ term: PredicateTerm) throws(StrataError) -> SQLExpression {
        switch term {
        case .scalar(let value), .condition(let value):
            return value
        case .constant(let value):
            return .value(try databaseValue(of: value))
        case .entity:
            throw failure(
                "comparison of the object itself ($0)",
                "compare its stored fields or its ID instead (`$0.id == id`).")
        case .range:
            throw failure("use of a range as a value", "a range can only test membership, with `contains(_:)`.")
        case .caseInsensitiveComparison:
            throw failure(
                "use of caseInsensitiveCompare(_:)",
                "its result can only be compared with `==` or `!=` to a captured `ComparisonResult.orderedSame`.")
        case .choice:
            throw internalFailure("a conditional value", term)
        }
    }

    /// A SQL value for a text operand; substrings and characters become text.
    func textValue(_ term: PredicateTerm) throws(StrataError) -> SQLExpression {
        if case .constant(let value) = term, let unwrapped = PredicateValue.unwrap(value) {
            if let text = unwrapped as? any StringProtocol { return .value(.text(String(text))) }
            if let character = unwrapped as? Character { return .value(.text(String(character))) }
        }
        return try sqlValue(term)
    }

    /// The stored form of a captured value; `nil` is `NULL`.
    func databaseValue(of value: Any) throws(StrataError) -> DatabaseValue {
        guard let unwrapped = PredicateValue.unwrap(value) else { return .null }
        guard let convertible = unwrapped as? any DatabaseValueConvertible else {
            throw failure(
                "value of type \(type(of: unwrapped))",
                "only values of the types Strata stores (DatabaseValueConvertible) can be compared with fields.")
        }
        if unwrapped is any StoreTaggedValue { capturedIDs.values.append(unwrapped) }
        return convertible.databaseValue
    }

    /// A condition that is true when the optional term is `nil`.
    func isNil(_ term: PredicateTerm) throws(StrataError) -> SQLExpression {
        try distribute(term) { (term) throws(StrataError) -> SQLExpression in
            switch term {
            case .constant:
                return .constant(term.isNilConstant)
            case .scalar(let value):
                if case .column(let column) = value, !column.isOptional { return .constant(false) }
                return .isNull(value, negated: false)
            case .condition:
                return .constant(false)
            case .entity, .choice, .range, .caseInsensitiveComparison:
                throw internalFailure("a test for nil", term)
            }
        }
    }

    /// The value inside an optional term, for where it is known not to be `nil` (after `?.`, `??`, `!`).
    /// A branch that is a constant `nil` is dropped: it cannot be taken where the value is not `nil`.
    func unwrapped(_ term: PredicateTerm) -> PredicateTerm {
        switch term {
        case .constant(let value):
            return .constant(PredicateValue.unwrap(value) ?? value)
        case .choice(let test, let whenTrue, let whenFalse):
            if whenTrue.isNilConstant { return unwrapped(whenFalse) }
            if whenFalse.isNilConstant { return unwrapped(whenTrue) }
            return .choice(test, unwrapped(whenTrue), unwrapped(whenFalse))
        default:
            return term
        }
    }

    // MARK: Choices

    /// Builds SQL for a term by building it for each branch of a choice, guarded by the branch's test:
    /// `f(t ? a : b)` is `(t AND f(a)) OR (NOT t AND f(b))`. Exact because `t` is never `NULL`, and a
    /// branch not taken is `0 AND …`, which is `0` even where the branch's SQL is `NULL`.
    func distribute(
        _ term: PredicateTerm, _ build: (PredicateTerm) throws(StrataError) -> SQLExpression
    ) throws(StrataError) -> SQLExpression {
        guard case .choice(let test, let whenTrue, let whenFalse) = term else { return try build(term) }
        let taken = PredicateSQL.and(test, try distribute(whenTrue, build))
        let notTaken = PredicateSQL.and(PredicateSQL.not(test), try distribute(whenFalse, build))
        return PredicateSQL.or(taken, notTaken)
    }

    /// ``distribute(_:_:)`` over two terms.
    func distribute(
        _ lhs: PredicateTerm, _ rhs: PredicateTerm,
        _ build: (PredicateTerm, PredicateTerm) throws(StrataError) -> SQLExpression
    ) throws(StrataError) -> SQLExpression {
        try distribute(lhs) { (lhs) throws(StrataError) -> SQLExpression in
            try distribute(rhs) { (rhs) throws(StrataError) -> SQLExpression in try build(lhs, rhs) }
        }
    }
}

/// Builders of SQL conditions that fold constants, so translated predicates stay small.
enum PredicateSQL {
    /// `lhs AND rhs`. Folding keeps SQL's meaning: `x AND 1` is `x` and `x AND 0` is `0`, even for `NULL`.
    static func and(_ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        switch (lhs, rhs) {
        case (.constant(false), _), (_, .constant(false)): .constant(false)
        case (.constant(true), _): rhs
        case (_, .constant(true)): lhs
        default: .and(lhs, rhs)
        }
    }

    /// `lhs OR rhs`. Folding keeps SQL's meaning: `x OR 0` is `x` and `x OR 1` is `1`, even for `NULL`.
    static func or(_ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        switch (lhs, rhs) {
        case (.constant(true), _), (_, .constant(true)): .constant(true)
        case (.constant(false), _): rhs
        case (_, .constant(false)): lhs
        default: .or(lhs, rhs)
        }
    }

    /// Swift's `!`. Null-safe tests flip their operator; anything else becomes `NOT coalesce(x, 0)`.
    static func not(_ operand: SQLExpression) -> SQLExpression {
        switch operand {
        case .constant(let value): .constant(!value)
        case .isNull(let value, let negated): .isNull(value, negated: !negated)
        case .compare(let lhs, .equal, let rhs): .compare(lhs, .notEqual, rhs)
        case .compare(let lhs, .notEqual, let rhs): .compare(lhs, .equal, rhs)
        default: .not(operand)
        }
    }
}
