import SwiftSyntax

/// A derived field of an `@Entity` struct, `@Derived(count: \Person.pets) var petCount: Int`: a value the
/// store computes over a to-many relationship of the same struct, read with the object and never written.
struct DerivedField {
    /// What a derived field computes; the raw value is the `DerivedDescription.Function` case and the
    /// argument label of `@Derived`.
    enum Function: String, CaseIterable {
        case count, sum, minimum, maximum

        /// Whether the function yields `nil` over no objects, so the property must be optional.
        var isOptional: Bool { self == .minimum || self == .maximum }
    }

    /// The property name as Swift code spells it, backticks included.
    var identifier: String
    /// The property name as a plain string.
    var name: String
    /// What is computed.
    var function: Function
    /// The to-many relationship (a property of this struct) it is computed over.
    var relationship: String
    /// The `over:` or `count:` key path, where a diagnostic about the relationship points.
    var relationshipExpression: ExprSyntax
    /// The attribute of the target entity, for sum, minimum and maximum.
    var attribute: String?
    /// Whether the property declares its initial value; otherwise a new object, which has no related
    /// objects yet, starts at the function's value over none: `0` for count and sum, `nil` otherwise.
    var hasDefault: Bool
}
