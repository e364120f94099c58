import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that provides Strata's macros: `@Entity`, and the property attributes it reads —
/// `@Field`, `@Relationship`, `@Coded` and `@Derived`.
@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        EntityMacro.self,
        FieldMacro.self,
        RelationshipMacro.self,
        CodedMacro.self,
        DerivedMacro.self,
    ]
}
