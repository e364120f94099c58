import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that provides Strata's macros: `@Entity` and `@Field`.
@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        EntityMacro.self,
        FieldMacro.self,
    ]
}
