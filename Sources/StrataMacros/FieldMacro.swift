import SwiftDiagnostics
public import SwiftSyntax
public import SwiftSyntaxMacros

/// The implementation of `@Field`: a marker that `@Entity` reads, which expands to nothing.
///
/// `@Entity` validates the attribute's arguments, because it sees every field at once (to find
/// duplicate columns, for instance). This macro only reports an attribute that `@Entity` would never
/// read: one on something other than a stored instance `var` directly inside an `@Entity` struct.
public enum FieldMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        if let reason = PeerPlacement.misplacement(of: declaration, in: context) {
            context.diagnose(
                Diagnostic(node: node, message: StrataDiagnostic.misplaced(attribute: "Field", reason: reason)))
        }
        return []
    }
}
