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
        if let reason = misplacement(of: declaration, in: context) {
            context.diagnose(Diagnostic(node: node, message: StrataDiagnostic.fieldMisplaced(reason)))
        }
        return []
    }

    /// Why `@Field` has no effect on `declaration`, or `nil` when it is on a stored instance property
    /// of an `@Entity` struct. `let` and `lazy` properties pass: `@Entity` reports them.
    private static func misplacement(
        of declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) -> String? {
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            return "this declaration is not a property"
        }
        if variable.isTypeProperty {
            return "a static property is not stored in the table"
        }
        if !variable.hasStoredBinding {
            return "a computed property is not stored in the table"
        }
        guard let enclosing = context.lexicalContext.first else {
            return "a global variable is not stored in a table"
        }
        guard let structDecl = enclosing.as(StructDeclSyntax.self) else {
            return enclosing.asProtocol((any DeclGroupSyntax).self) != nil
                ? "the enclosing type is not a struct" : "a local variable is not stored in a table"
        }
        let isEntity = structDecl.attributes.contains { element in
            if case .attribute(let attribute) = element { return attribute.isNamed("Entity") }
            return false
        }
        return isEntity ? nil : "the enclosing struct has no @Entity attribute"
    }
}
