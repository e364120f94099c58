import Foundation

/// A `#Predicate` expression that has a meaning in SQL.
///
/// Foundation's `PredicateExpressions` types conform in the `PredicateTranslation+*.swift` files. A
/// conformance translates its operands through the translator (never through its own generic
/// constraints), so an operand without a translation is reported by name, however deep it sits.
protocol SQLTranslatablePredicateExpression {
    /// What this expression means in SQL, its operands translated by `translator`.
    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm
}

/// Translates Foundation's `Predicate` over an entity into the ``SQLExpression`` every filter becomes.
///
/// Translation never evaluates the predicate and never falls back to filtering in memory: an
/// expression without an exact SQL meaning becomes ``SQLExpression/invalid(_:)``, and the fetch throws
/// ``StrataError/Code/unsupportedQuery`` naming the construct.
struct PredicateTranslator<E: Entity> {
    /// What each variable in scope stands for: the predicate's input is the entity; a variable bound by
    /// optional chaining (`$0.email?.…`) is the unwrapped value.
    private let variables: [PredicateExpressions.VariableID: PredicateTerm]
    /// The captured IDs the predicate compares with, noted as they become SQL values.
    let capturedIDs: CapturedIDs

    /// The captured values that are IDs: the query checks their stores (``SQLExpression/storeChecked(_:_:)``).
    /// A class, so that the nested translators of one predicate share it; it lives for one translation.
    final class CapturedIDs {
        var values: [Any] = []
    }

    private init(variables: [PredicateExpressions.VariableID: PredicateTerm], capturedIDs: CapturedIDs) {
        self.variables = variables
        self.capturedIDs = capturedIDs
    }

    /// The filter `predicate` describes, or an invalid expression carrying the reason it has none.
    static func translate(_ predicate: Predicate<E>) -> SQLExpression {
        let translator = PredicateTranslator(variables: [predicate.variable.key: .entity], capturedIDs: CapturedIDs())
        do {
            return try translator.condition(translator.translate(predicate.expression))
                .checkingStores(of: translator.capturedIDs.values)
        } catch {
            return .invalid(error)
        }
    }

    /// The meaning of one sub-expression.
    func translate<X: PredicateExpression>(_ expression: X) throws(StrataError) -> PredicateTerm {
        guard let translatable = expression as? any SQLTranslatablePredicateExpression else {
            throw unsupported(expression)
        }
        return try translatable.sqlTerm(in: self)
    }

    /// What a variable stands for, or `nil` when no enclosing expression binds it.
    func term(for variable: PredicateExpressions.VariableID) -> PredicateTerm? {
        variables[variable]
    }

    /// A translator for a nested scope in which `variable` stands for `term`.
    func binding(_ variable: PredicateExpressions.VariableID, to term: PredicateTerm) -> PredicateTranslator<E> {
        var variables = self.variables
        variables[variable] = term
        return PredicateTranslator(variables: variables, capturedIDs: capturedIDs)
    }

    // MARK: Errors

    /// An error saying that `subject` has no SQL translation, and why.
    func failure(_ subject: String, _ reason: String, field: String? = nil) -> StrataError {
        let entity = E.entityDescription.name
        return StrataError(
            .unsupportedQuery,
            "#Predicate \(subject) cannot be translated to SQL (in a filter of \(entity)): \(reason)",
            entity: entity, field: field)
    }

    /// The error for an expression type that has no SQL translation.
    func unsupported(_ expression: Any) -> StrataError {
        failure(
            "construct \(PredicateConstructName.describe(expression))",
            "Strata translates comparisons, &&, ||, !, ?:, optionals (== nil, ?., ??, !), text contains and "
                + "starts(with:), and contains(_:) on a list or range of values. Compute other values before "
                + "the predicate, or filter the fetched objects in Swift.")
    }

    /// An error for a combination the type checker should have ruled out; it names the term for a bug report.
    func internalFailure(_ what: String, _ term: PredicateTerm) -> StrataError {
        failure(what, "Strata did not expect \(term.summary) here; please report this predicate.")
    }
}

/// Names `#Predicate` constructs in error messages: `PredicateExpressions.Arithmetic (`+`)`.
enum PredicateConstructName {
    /// The expression's type without module or generic arguments, and the operator it stands for.
    static func describe(_ expression: Any) -> String {
        let name = typeName(of: expression)
        if let describing = expression as? any PredicateConstructDescribing {
            return "\(name) (\(describing.predicateConstructDetail))"
        }
        let base = name.split(separator: ".").last.map(String.init) ?? name
        if let detail = details[base], name.hasPrefix("PredicateExpressions.") {
            return "\(name) (\(detail))"
        }
        return name
    }

    /// `PredicateExpressions.Arithmetic` for `FoundationEssentials.PredicateExpressions.Arithmetic<…>`.
    static func typeName(of value: Any) -> String {
        let full = String(reflecting: type(of: value))
        let unqualified = full.prefix { $0 != "<" }
        let parts = unqualified.split(separator: ".")
        return parts.count > 1 ? parts.dropFirst().joined(separator: ".") : String(unqualified)
    }

    /// What the source code said, for constructs whose type name alone does not tell.
    private static let details: [String: String] = [
        "FloatDivision": "`/`", "IntDivision": "`/`", "IntRemainder": "`%`", "UnaryMinus": "prefix `-`",
        "SequenceContainsWhere": "`contains(where:)`", "SequenceAllSatisfy": "`allSatisfy(_:)`",
        "Filter": "`filter(_:)`", "SequenceMaximum": "`max()`", "SequenceMinimum": "`min()`",
        "StringContainsRegex": "`contains(_:)` with a regular expression",
        "CollectionIndexSubscript": "subscript `[index]`", "CollectionRangeSubscript": "subscript `[range]`",
        "DictionaryKeySubscript": "subscript `[key]`", "DictionaryKeyDefaultValueSubscript": "subscript `[key, default:]`",
        "ConditionalCast": "`as?`", "ForceCast": "`as!`", "TypeCheck": "`is`",
        "ExpressionEvaluate": "`evaluate(_:)`", "PredicateEvaluate": "`evaluate(_:)`",
        "StringLocalizedCompare": "`localizedCompare(_:)`",
    ]
}

/// An expression whose name in an error message needs the operator it holds.
protocol PredicateConstructDescribing {
    /// The operator, in backticks: "`+`".
    var predicateConstructDetail: String { get }
}

extension PredicateExpressions.Arithmetic: PredicateConstructDescribing {
    var predicateConstructDetail: String {
        let symbols: [PredicateExpressions.ArithmeticOperator: String] = [.add: "+", .subtract: "-", .multiply: "*"]
        return "`\(symbols[op] ?? "\(op)")`"
    }
}
