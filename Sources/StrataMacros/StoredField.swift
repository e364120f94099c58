import SwiftSyntax

/// One stored property of an `@Entity` struct, with everything the generated code needs to know of it.
struct StoredField {
    /// The property name as Swift code spells it, backticks included (`` `default` ``).
    var identifier: String
    /// The property name as a plain string (`default`).
    var name: String
    /// The column name: the `@Field(column:)` argument, or the property name.
    var column: String
    /// The options, spelled as Swift code (`.unique`, `.indexed`), in declaration order without repeats.
    var options: [String]
    /// The declared default value, when the property has one.
    var defaultValue: ExprSyntax?
    /// The `@Field(dynamicInitialValue:)` argument, when the property has one.
    var dynamicInitialValue: ExprSyntax?
    /// Whether the declared type is an optional.
    var isOptional: Bool
}
