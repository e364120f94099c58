import SwiftSyntax

/// One stored field of an `@Entity` struct — a column of its table — with everything the generated code
/// needs to know of it.
struct StoredField {
    /// How a field is stored, which decides the description, the decoding and the encoding.
    enum Kind {
        /// A `DatabaseValueConvertible` value (no attribute, or only `@Field`).
        case attribute
        /// A to-one relationship, `@Relationship var owner: Person.ID?`: an ID stored as a foreign key.
        /// The delete rule is spelled as Swift code (`.cascade`) and is `nil` for the default, `.nullify`.
        case toOne(deleteRule: String?, inverse: String?)
        /// A `Codable` value stored as JSON text, `@Coded`.
        case json
        /// A value stored through the closures of `@Coded(encode:decode:)`.
        case custom(encode: ExprSyntax, decode: ExprSyntax)
    }

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
    /// How the field is stored.
    var kind: Kind = .attribute
    /// The field's name in the version before, from `renamedFrom:`.
    var renamedFrom: String?

    /// The member of the entity's scope enum that holds the dynamic initial value: the property name, or
    /// `name_initialValue` when the name also holds the `@Coded` closures, between backticks when the
    /// property name needs them (`` `tint color` `` gives `` `tint color_initialValue` ``).
    var initialValueMember: String {
        guard case .custom = kind else { return identifier }
        return identifier.hasPrefix("`") ? "`\(name)_initialValue`" : "\(name)_initialValue"
    }
}
