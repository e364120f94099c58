import SwiftDiagnostics
import SwiftSyntax

/// The `renamedFrom:` argument of `@Entity`, `@Field` and `@Relationship`: the name in the version before.
enum RenamedFrom {
    /// The literal of `argument`, or `nil` with a diagnostic when it is not a string literal.
    static func value(of argument: LabeledExprSyntax, diagnostics: inout [Diagnostic]) -> String? {
        switch StringLiteral.value(of: argument.expression) {
        case .string(let name):
            return name
        case .absent:
            return nil
        case .notLiteral:
            diagnostics.append(Diagnostic(node: argument.expression, message: StrataDiagnostic.renamedFromNotLiteral))
            return nil
        }
    }
}
