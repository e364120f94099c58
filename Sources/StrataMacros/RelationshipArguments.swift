import SwiftDiagnostics
import SwiftSyntax

/// The arguments of a `@Relationship` attribute, read from syntax.
struct RelationshipArguments {
    /// The delete rule spelled as Swift code (`.cascade`), or `nil` for the default, `.nullify`.
    private(set) var deleteRule: String?
    /// The name of the inverse relationship: the last component of the `inverse:` key path.
    private(set) var inverse: String?
    /// The `renamedFrom:` argument: the relationship's name in the version before.
    private(set) var renamedFrom: String?

    /// The delete rules, as `DeleteRule` names them.
    static let knownDeleteRules = ["nullify", "cascade", "deny"]

    /// Reads the arguments of `attribute`, adding a diagnostic for each one it cannot use.
    init(attribute: AttributeSyntax, diagnostics: inout [Diagnostic]) {
        for argument in attribute.argumentList {
            switch argument.label?.text {
            case "deleteRule":
                guard let rule = Self.deleteRule(argument.expression) else {
                    diagnostics.append(
                        Diagnostic(
                            node: argument.expression,
                            message: StrataDiagnostic.invalidDeleteRule(argument.expression.trimmedDescription)))
                    continue
                }
                deleteRule = rule == "nullify" ? nil : "." + rule
            case "inverse":
                if argument.expression.is(NilLiteralExprSyntax.self) { continue }
                guard let keyPath = KeyPathLiteral(argument.expression) else {
                    diagnostics.append(
                        Diagnostic(node: argument.expression, message: StrataDiagnostic.inverseNotKeyPath))
                    continue
                }
                inverse = keyPath.name
            case "renamedFrom":
                renamedFrom = RenamedFrom.value(of: argument, diagnostics: &diagnostics)
            default:
                continue
            }
        }
    }

    /// `cascade` for `.cascade`, `DeleteRule.cascade` or `Strata.DeleteRule.cascade`; `nil` for anything else.
    private static func deleteRule(_ expression: ExprSyntax) -> String? {
        guard let access = expression.as(MemberAccessExprSyntax.self), access.declName.argumentNames == nil,
            knownDeleteRules.contains(access.declName.baseName.text)
        else { return nil }
        if let base = access.base {
            let spelling = base.trimmedDescription.filter { !$0.isWhitespace }
            guard spelling == "DeleteRule" || spelling == "Strata.DeleteRule" else { return nil }
        }
        return access.declName.baseName.text
    }
}
