import SwiftDiagnostics
public import SwiftSyntax
public import SwiftSyntaxMacros

/// The implementation of `@Relationship`: a marker that `@Entity` reads, which expands to nothing.
///
/// `@Entity` reads the declared type (an optional ID for a to-one relationship, a set or an array of IDs
/// for a to-many one) and validates the arguments. This macro only reports an attribute that `@Entity`
/// would never read: one on something other than a stored instance `var` directly inside an `@Entity` struct.
public enum RelationshipMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        if let reason = PeerPlacement.misplacement(of: declaration, in: context) {
            context.diagnose(
                Diagnostic(node: node, message: StrataDiagnostic.misplaced(attribute: "Relationship", reason: reason)))
        }
        return []
    }
}
