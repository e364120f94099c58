import SwiftDiagnostics
public import SwiftSyntax
public import SwiftSyntaxMacros

/// The implementation of `@Coded`, in both its forms: a marker that `@Entity` reads, which expands to nothing.
///
/// `@Entity` stores the property as JSON, or through the `encode:` / `decode:` closures. This macro only
/// reports an attribute that `@Entity` would never read: one on something other than a stored instance
/// `var` directly inside an `@Entity` struct.
public enum CodedMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        if let reason = PeerPlacement.misplacement(of: declaration, in: context) {
            context.diagnose(
                Diagnostic(node: node, message: StrataDiagnostic.misplaced(attribute: "Coded", reason: reason)))
        }
        return []
    }
}
