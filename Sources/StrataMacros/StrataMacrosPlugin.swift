import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that provides Strata's macros: `@Entity`, and the property attributes it reads —
/// `@Field`, `@Relationship`, `@Coded` and `@Derived` — and the
/// declarations it reads from its body, `#Unique` and `#Index`.
@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        EntityMacro.self,
        FieldMacro.self,
        RelationshipMacro.self,
        CodedMacro.self,
        DerivedMacro.self,
        UniqueMacro.self,
        IndexMacro.self,
    ]
}
