import SwiftDiagnostics
public import SwiftSyntax
public import SwiftSyntaxMacros

/// The implementation of `@Entity`: makes a struct storable by Strata.
///
/// As a member macro it adds the `id` property, the column metadata (`entityDescription`) and the field
/// encoder (`encodeFields(to:)`), which hold the user's default values and encode closures and so must be
/// compiled in the struct's scope; as an extension macro it adds the `Entity` conformance with the row
/// decoder (`init(row:)`), the new-object initializer (`init(newObject:)`) and the key path lookup
/// (`member(for:)`), for stored fields, relationships, coded and derived fields, and computed (virtual)
/// properties. Both roles read the struct with ``EntityAnalysis``; the member role
/// reports its diagnostics, and neither role generates anything for a struct with a problem, so that
/// the errors the user sees are the macro's own, at the declarations to fix.
public enum EntityMacro: MemberMacro, ExtensionMacro {
    /// The generated code is laid out by ``EntityCode``, one statement per line, and user expressions
    /// (default values, dynamic initial values) keep the layout they were written with.
    public static var formatMode: FormatMode { .disabled }

    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let analysis = EntityAnalysis(attribute: node, declaration: declaration, lexicalContext: context.lexicalContext)
        for diagnostic in analysis.diagnostics {
            context.diagnose(diagnostic)
        }
        guard analysis.isValid else { return [] }
        let code = EntityCode(analysis: analysis)
        return [code.idTypeAlias, code.idProperty] + code.scopedMembers
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let analysis = EntityAnalysis(attribute: node, declaration: declaration, lexicalContext: context.lexicalContext)
        guard analysis.isValid else { return [] }
        let code = EntityCode(analysis: analysis, qualifiedType: type.trimmedDescription)
        let decl = code.conformanceExtension(addingConformance: !protocols.isEmpty)
        guard let extensionDecl = decl.as(ExtensionDeclSyntax.self) else { return [] }
        return [extensionDecl]
    }
}
