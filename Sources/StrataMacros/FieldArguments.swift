import SwiftDiagnostics
import SwiftSyntax

/// The arguments of one `@Field` attribute, read from syntax.
struct FieldArguments {
    /// The `column:` argument, when it is a string literal.
    var column: String?
    /// The `column:` argument expression, where column diagnostics point.
    var columnExpression: ExprSyntax?
    /// The options, spelled `.unique` / `.indexed`, in declaration order without repeats.
    var options: [String] = []
    /// The `dynamicInitialValue:` argument.
    var dynamicInitialValue: ExprSyntax?
    /// The `renamedFrom:` argument: the field's name in the version before.
    var renamedFrom: String?

    /// The options a `@Field` attribute accepts.
    static let knownOptions = ["unique", "indexed"]

    /// The arguments of a property without a `@Field` attribute.
    init() {}

    /// Reads the arguments of `attribute`, adding a diagnostic for each one it cannot use.
    init(attribute: AttributeSyntax, diagnostics: inout [Diagnostic]) {
        for argument in attribute.argumentList {
            switch argument.label?.text {
            case "column":
                columnExpression = argument.expression
                switch StringLiteral.value(of: argument.expression) {
                case .absent:
                    columnExpression = nil
                case .string(let name):
                    column = name
                case .notLiteral:
                    diagnostics.append(
                        Diagnostic(node: argument.expression, message: StrataDiagnostic.columnNotLiteral))
                }
            case "dynamicInitialValue":
                dynamicInitialValue = argument.expression
            case "renamedFrom":
                renamedFrom = RenamedFrom.value(of: argument, diagnostics: &diagnostics)
            default:
                guard let option = Self.option(argument.expression) else {
                    diagnostics.append(
                        Diagnostic(
                            node: argument.expression,
                            message: StrataDiagnostic.invalidFieldOption(argument.expression.trimmedDescription)))
                    continue
                }
                if !options.contains(option) { options.append(option) }
            }
        }
    }

    /// `.unique` for `.unique`, `FieldOption.unique` or `Strata.FieldOption.unique`; `nil` for anything else.
    private static func option(_ expression: ExprSyntax) -> String? {
        guard let access = expression.as(MemberAccessExprSyntax.self), access.declName.argumentNames == nil,
            knownOptions.contains(access.declName.baseName.text)
        else { return nil }
        if let base = access.base {
            let spelling = base.trimmedDescription.filter { !$0.isWhitespace }
            guard spelling == "FieldOption" || spelling == "Strata.FieldOption" else { return nil }
        }
        return "." + access.declName.baseName.text
    }
}
