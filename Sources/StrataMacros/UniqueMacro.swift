public import SwiftSyntax
public import SwiftSyntaxMacros

/// The implementation of `#Unique`: a marker in an `@Entity` struct's body that `@Entity` reads, which
/// expands to nothing. `@Entity` checks the lists (fields it stores, no repeats) and puts them in the
/// entity's description; this macro only reports a `#Unique` that `@Entity` would never read.
public enum UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        CompositePlacement.diagnoseMisplacement(of: node, in: context)
        return []
    }
}
