import SwiftDiagnostics
import SwiftSyntax

/// The Strata attributes of one stored property: an optional `@Field`, and at most one of the attributes
/// that say how the property is stored — `@Relationship`, `@Coded` or `@Derived`.
struct PropertyAttributes {
    /// The attributes that say how a property is stored; a property takes one at most.
    enum Role: String, CaseIterable {
        case relationship = "Relationship"
        case coded = "Coded"
        case derived = "Derived"
    }

    /// The `@Field` attribute, when there is one.
    private(set) var field: AttributeSyntax?
    /// The arguments of the `@Field` attribute, empty without one.
    private(set) var fieldArguments = FieldArguments()
    /// The first attribute that says how the property is stored, with its role.
    private(set) var role: (Role, AttributeSyntax)?

    /// Reads the attributes of `property`, adding a diagnostic for each one too many.
    init(of property: PropertySyntax, diagnostics: inout [Diagnostic]) {
        for element in property.variable.attributes {
            guard case .attribute(let attribute) = element else { continue }
            if attribute.isNamed("Field") {
                if field == nil {
                    field = attribute
                    fieldArguments = FieldArguments(attribute: attribute, diagnostics: &diagnostics)
                } else {
                    diagnostics.append(
                        Diagnostic(node: attribute, message: StrataDiagnostic.duplicateFieldAttribute(property.name)))
                }
                continue
            }
            guard let kind = Role.allCases.first(where: { attribute.isNamed($0.rawValue) }) else { continue }
            guard let (first, _) = role else {
                role = (kind, attribute)
                continue
            }
            let message: StrataDiagnostic =
                first == kind
                ? .duplicateAttribute(kind.rawValue, property: property.name)
                : .conflictingAttributes(kind.rawValue, first.rawValue, property: property.name)
            diagnostics.append(
                Diagnostic(
                    node: attribute, message: message,
                    fixIts: [Self.removal(of: attribute, from: property.variable)]))
        }
    }

    /// A fix-it that removes `attribute` from `variable`.
    ///
    /// The token after the attribute takes the attribute's leading trivia when it has none of its own, so
    /// that removing `@B` from `@A @B var`, `@A⏎@B var` or `@A⏎@B⏎var` leaves `@A var`, `@A⏎var` and
    /// `@A⏎var`.
    static func removal(of attribute: AttributeSyntax, from variable: VariableDeclSyntax) -> FixIt {
        var elements = Array(variable.attributes)
        var fixed = variable
        if let index = elements.firstIndex(where: { $0.id == attribute.id }) {
            let removed = elements.remove(at: index)
            func leadingTrivia(after trivia: Trivia) -> Trivia { trivia.isEmpty ? removed.leadingTrivia : trivia }
            if index < elements.count {
                let next = elements[index]
                elements[index] = next.with(\.leadingTrivia, leadingTrivia(after: next.leadingTrivia))
                fixed = variable.with(\.attributes, AttributeListSyntax(elements))
            } else if var first = variable.modifiers.first {
                first.leadingTrivia = leadingTrivia(after: first.leadingTrivia)
                fixed = variable.with(\.attributes, AttributeListSyntax(elements))
                    .with(\.modifiers, [first] + Array(variable.modifiers.dropFirst()))
            } else {
                let specifier = variable.bindingSpecifier
                fixed = variable.with(\.attributes, AttributeListSyntax(elements))
                    .with(
                        \.bindingSpecifier,
                        specifier.with(\.leadingTrivia, leadingTrivia(after: specifier.leadingTrivia)))
            }
        }
        return FixIt(
            message: StrataFixIt.removeAttribute(attribute.attributeName.trimmedDescription),
            changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(fixed))])
    }
}
