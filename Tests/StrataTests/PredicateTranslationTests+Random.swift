import Foundation
import Testing
@testable import Strata

// MARK: - Random predicates

/// A piece of a predicate, built as the `#Predicate` macro builds it, over the predicate's variable.
private typealias PredicateLeaf = @Sendable (PredicateExpressions.Variable<PredicateItem>) -> any StandardPredicateExpression<Bool>

private typealias P = PredicateExpressions

/// Leaves whose translations involve `NULL`: nil tests, optional chaining, `??`, `!`, `?:`, text tests.
private let predicateLeaves: [PredicateLeaf] = [
    { P.build_Comparison(lhs: P.build_KeyPath(root: $0, keyPath: \.age), rhs: P.build_Arg(30), op: .greaterThan) },
    { P.build_Equal(lhs: P.build_KeyPath(root: $0, keyPath: \.nickname), rhs: P.build_NilLiteral()) },
    { P.build_Equal(
        lhs: P.build_flatMap(P.build_KeyPath(root: $0, keyPath: \.nickname)) { P.build_contains($0, P.build_Arg("a")) },
        rhs: P.build_Arg(Bool?.some(true))) },
    { P.build_Comparison(
        lhs: P.build_NilCoalesce(lhs: P.build_KeyPath(root: $0, keyPath: \.rating), rhs: P.build_Arg(0)),
        rhs: P.build_Arg(3), op: .greaterThanOrEqual) },
    { P.build_KeyPath(root: $0, keyPath: \.isActive) },
    { P.build_NilCoalesce(lhs: P.build_KeyPath(root: $0, keyPath: \.isVerified), rhs: P.build_Arg(false)) },
    { P.build_starts(P.build_KeyPath(root: $0, keyPath: \.name), with: P.build_Arg("A")) },
    { P.build_contains(P.build_Arg([17, 41]), P.build_KeyPath(root: $0, keyPath: \.age)) },
    { P.build_contains(P.build_ClosedRange(lower: P.build_Arg(10), upper: P.build_Arg(50)), P.build_KeyPath(root: $0, keyPath: \.age)) },
    { item in
        P.build_Conditional(
            P.build_KeyPath(root: item, keyPath: \.isActive),
            P.build_Comparison(lhs: P.build_KeyPath(root: item, keyPath: \.age), rhs: P.build_Arg(40), op: .greaterThan),
            P.build_NotEqual(lhs: P.build_KeyPath(root: item, keyPath: \.nickname), rhs: P.build_NilLiteral()))
    },
    { P.build_NotEqual(
        lhs: P.build_flatMap(P.build_KeyPath(root: $0, keyPath: \.nickname)) { P.build_KeyPath(root: $0, keyPath: \.isEmpty) },
        rhs: P.build_Arg(Bool?.some(false))) },
    { item in
        P.build_Conjunction(
            lhs: P.build_NotEqual(lhs: P.build_KeyPath(root: item, keyPath: \.rating), rhs: P.build_NilLiteral()),
            rhs: P.build_Comparison(
                lhs: P.build_ForcedUnwrap(P.build_KeyPath(root: item, keyPath: \.rating)), rhs: P.build_Arg(2), op: .greaterThan))
    },
    { P.build_Equal(
        lhs: P.build_NilCoalesce(lhs: P.build_KeyPath(root: $0, keyPath: \.optionalMood), rhs: P.build_KeyPath(root: $0, keyPath: \.mood)),
        rhs: P.build_Arg(PredicateMood.busy)) },
]

/// A random tree of `&&`, `||` and `!` over the leaves.
private func randomPredicateTree(
    _ item: PredicateExpressions.Variable<PredicateItem>, depth: Int, _ random: inout SeededGenerator
) -> any StandardPredicateExpression<Bool> {
    func and(_ lhs: some StandardPredicateExpression<Bool>, _ rhs: some StandardPredicateExpression<Bool>) -> any StandardPredicateExpression<Bool> {
        P.build_Conjunction(lhs: lhs, rhs: rhs)
    }
    func or(_ lhs: some StandardPredicateExpression<Bool>, _ rhs: some StandardPredicateExpression<Bool>) -> any StandardPredicateExpression<Bool> {
        P.build_Disjunction(lhs: lhs, rhs: rhs)
    }
    func not(_ operand: some StandardPredicateExpression<Bool>) -> any StandardPredicateExpression<Bool> {
        P.build_Negation(operand)
    }
    guard depth > 0, Int.random(in: 0..<4, using: &random) != 0 else {
        return predicateLeaves[Int.random(in: 0..<predicateLeaves.count, using: &random)](item)
    }
    switch Int.random(in: 0..<3, using: &random) {
    case 0: return and(randomPredicateTree(item, depth: depth - 1, &random), randomPredicateTree(item, depth: depth - 1, &random))
    case 1: return or(randomPredicateTree(item, depth: depth - 1, &random), randomPredicateTree(item, depth: depth - 1, &random))
    default: return not(randomPredicateTree(item, depth: depth - 1, &random))
    }
}

extension PredicateTranslationTests {
    @Test("random combinations of optionals, ?:, text tests, &&, || and ! match Swift's evaluation")
    func randomCombinations() async throws {
        let (stack, all) = try await predicateStack()
        for seed in UInt64(1)...300 {
            var random = SeededGenerator(state: seed)
            let predicate = Predicate<PredicateItem> { randomPredicateTree($0, depth: 4, &random) }
            let expected = try all.filter { try predicate.evaluate($0) }.map(\.name)
            let fetched = try await stack.fetchAll(From<PredicateItem>().where(predicate)).map(\.name)
            #expect(fetched.sorted() == expected.sorted(), "seed \(seed): \(predicate)")
        }
    }
}

// MARK: - Stand-ins for Apple-only expressions

/// Apple's `PredicateExpressions.StringLocalizedStandardContains`, which Linux's Foundation lacks.
struct LocalizedStandardContainsStandIn<Root: StandardPredicateExpression<String>, Other: StandardPredicateExpression<String>>:
    StandardPredicateExpression, SQLTranslatablePredicateExpression
{
    let root: Root
    let other: Other

    func evaluate(_ bindings: PredicateBindings) throws -> Bool {
        try root.evaluate(bindings).localizedStandardContains(other.evaluate(bindings))
    }

    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        try translator.localizedStandardContains(translator.translate(root), translator.translate(other))
    }
}

/// Apple's `PredicateExpressions.StringCaseInsensitiveCompare`, which Linux's Foundation lacks.
struct CaseInsensitiveCompareStandIn<Root: StandardPredicateExpression<String>, Other: StandardPredicateExpression<String>>:
    StandardPredicateExpression, SQLTranslatablePredicateExpression
{
    let root: Root
    let other: Other

    func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
        try root.evaluate(bindings).caseInsensitiveCompare(other.evaluate(bindings))
    }

    func sqlTerm<E: Entity>(in translator: PredicateTranslator<E>) throws(StrataError) -> PredicateTerm {
        .caseInsensitiveComparison(try translator.translate(root), try translator.translate(other))
    }
}
