import StrataMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros under test, as the `Strata` module declares them.
let strataMacros: [String: MacroSpec] = [
    "Entity": MacroSpec(type: EntityMacro.self, conformances: [TypeSyntax(IdentifierTypeSyntax(name: .identifier("Entity")))]),
    "Field": MacroSpec(type: FieldMacro.self),
    "Relationship": MacroSpec(type: RelationshipMacro.self),
    "Coded": MacroSpec(type: CodedMacro.self),
    "Derived": MacroSpec(type: DerivedMacro.self),
    "Unique": MacroSpec(type: UniqueMacro.self),
    "Index": MacroSpec(type: IndexMacro.self),
]

/// Expands `@Entity` and the property attributes in `source` and records an issue at the caller for every difference
/// from `expandedSource`, `diagnostics` and, when given, the source after applying the fix-its.
func assertStrataExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    applyFixIts: [String]? = nil,
    fixedSource: String? = nil,
    macroSpecs: [String: MacroSpec] = strataMacros,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: macroSpecs,
        applyFixIts: applyFixIts,
        fixedSource: fixedSource,
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(
                    fileID: failure.location.fileID, filePath: failure.location.filePath,
                    line: failure.location.line, column: failure.location.column))
        },
        fileID: fileID,
        filePath: filePath,
        line: line,
        column: column
    )
}

/// An error diagnostic at `line`:`column` of the source with `message` and fix-its with these messages.
func diagnostic(
    _ message: String,
    line: Int,
    column: Int,
    fixIts: [String] = [],
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    sourceLine: UInt = #line
) -> DiagnosticSpec {
    DiagnosticSpec(
        message: message, line: line, column: column,
        fixIts: fixIts.map { FixItSpec(message: $0, originatorFileID: fileID, originatorFile: filePath) },
        originatorFileID: fileID, originatorFile: filePath, originatorLine: sourceLine)
}
