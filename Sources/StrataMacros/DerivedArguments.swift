import SwiftDiagnostics
import SwiftSyntax

/// The arguments of a `@Derived` attribute, read from syntax: the function, the relationship it is
/// computed over, and the attribute of the related objects for sum, minimum and maximum.
struct DerivedArguments {
    /// What is computed.
    let function: DerivedField.Function
    /// The relationship key path: the `count:` or `over:` argument.
    let relationshipExpression: ExprSyntax
    /// The relationship key path, read.
    let relationship: KeyPathLiteral
    /// The attribute name: the last component of the `sum:`, `minimum:` or `maximum:` key path.
    let attribute: String?

    /// Reads the arguments of `attribute`, or returns `nil` after adding a diagnostic for each key path it
    /// cannot read. Returns `nil` without one for arguments the compiler rejects anyway (no known label).
    init?(attribute node: AttributeSyntax, diagnostics: inout [Diagnostic]) {
        let arguments = node.argumentList
        guard let first = arguments.first, let label = first.label?.text,
            let function = DerivedField.Function(rawValue: label)
        else { return nil }
        let over = function == .count ? first : arguments.first { $0.label?.text == "over" }
        guard let over else { return nil }

        var attribute: String?
        if function != .count {
            if let keyPath = KeyPathLiteral(first.expression), !keyPath.rootNames.isEmpty {
                attribute = keyPath.name
            } else {
                diagnostics.append(
                    Diagnostic(node: first.expression, message: StrataDiagnostic.derivedAttributeNotKeyPath(label)))
            }
        }
        let relationship = KeyPathLiteral(over.expression)
        if relationship == nil {
            diagnostics.append(
                Diagnostic(
                    node: over.expression,
                    message: StrataDiagnostic.derivedRelationshipNotKeyPath(over.label?.text ?? label)))
        }
        guard let relationship, function == .count || attribute != nil else { return nil }
        self.function = function
        self.relationshipExpression = over.expression
        self.relationship = relationship
        self.attribute = attribute
    }
}
