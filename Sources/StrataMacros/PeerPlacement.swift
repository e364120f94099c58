import SwiftSyntax
import SwiftSyntaxMacros

/// Where a property attribute of Strata's — `@Field`, `@Relationship`, `@Coded`, `@Derived` — can be:
/// on a stored instance `var` directly inside an `@Entity` struct, the only place `@Entity` reads it.
enum PeerPlacement {
    /// Why an attribute has no effect on `declaration`, or `nil` when it is on a stored instance property
    /// of an `@Entity` struct. `let` and `lazy` properties pass: `@Entity` reports them.
    static func misplacement(
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
