import SwiftDiagnostics
public import SwiftSyntax
public import SwiftSyntaxMacros

/// The implementation of `@Derived`, in all its forms: a marker that `@Entity` reads, which expands to nothing.
///
/// `@Entity` checks that the key path names a to-many relationship of the same struct and that the type
/// fits the function. This macro only reports an attribute that `@Entity` would never read: one on
/// something other than a stored instance `var` directly inside an `@Entity` struct.
public enum DerivedMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        if let reason = PeerPlacement.misplacement(of: declaration, in: context) {
            context.diagnose(
                Diagnostic(node: node, message: StrataDiagnostic.misplaced(attribute: "Derived", reason: reason)))
        }
        return []
    }
}
