import SwiftDiagnostics
import SwiftSyntax

/// The arguments of a `@Coded` attribute, read from syntax: none for JSON, or an encode / decode pair.
struct CodedArguments {
    /// The `encode:` closure.
    private(set) var encode: ExprSyntax?
    /// The `decode:` closure.
    private(set) var decode: ExprSyntax?

    /// How the field is stored: as JSON, or through both closures.
    var kind: StoredField.Kind {
        if let encode, let decode { return .custom(encode: encode, decode: decode) }
        return .json
    }

    /// Reads the arguments of `attribute`, and reports one closure of the pair without the other.
    init(attribute: AttributeSyntax, diagnostics: inout [Diagnostic]) {
        for argument in attribute.argumentList {
            switch argument.label?.text {
            case "encode": encode = argument.expression.trimmed
            case "decode": decode = argument.expression.trimmed
            default: continue
            }
        }
        if (encode == nil) != (decode == nil) {
            diagnostics.append(Diagnostic(node: attribute, message: StrataDiagnostic.incompleteCodedPair))
        }
    }
}
