import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// Where `#Unique` and `#Index` can be: directly in the body of an `@Entity` struct, the only place
/// `@Entity` reads them. Both macros expand to nothing; `@Entity` checks their arguments, since it
/// knows the struct's fields.
enum CompositePlacement {
    /// Reports the macro `node` when it is not directly inside an `@Entity` struct.
    static func diagnoseMisplacement(of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext) {
        let name = node.macroName.text
        let reason: String?
        if let enclosing = context.lexicalContext.first {
            if let structDecl = enclosing.as(StructDeclSyntax.self) {
                let isEntity = structDecl.attributes.contains { element in
                    if case .attribute(let attribute) = element { return attribute.isNamed("Entity") }
                    return false
                }
                reason = isEntity ? nil : "the enclosing struct has no @Entity attribute"
            } else if enclosing.is(ExtensionDeclSyntax.self) {
                reason = "@Entity does not see an extension: move it into the struct's body"
            } else {
                reason = enclosing.asProtocol((any DeclGroupSyntax).self) != nil
                    ? "the enclosing type is not a struct" : "it is not in a type's body"
            }
        } else {
            reason = "it is not in a type's body"
        }
        guard let reason else { return }
        context.diagnose(Diagnostic(node: node, message: StrataDiagnostic.compositeMisplaced(macro: name, reason: reason)))
    }
}
