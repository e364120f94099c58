import SwiftSyntax

/// One instance property of an `@Entity` struct, declared on its own: the pieces the analysis reads.
struct PropertySyntax {
    /// The whole declaration, attributes included.
    let variable: VariableDeclSyntax
    /// Its only binding.
    let binding: PatternBindingSyntax
    /// The property name token.
    let identifier: TokenSyntax

    /// The property name as a plain string, without backticks.
    var name: String { identifier.plainName }
    /// The property name as Swift code spells it, backticks included.
    var code: String { identifier.trimmedDescription }
    /// The declared type, when there is an annotation.
    var type: TypeSyntax? { binding.typeAnnotation?.type }
    /// The declared initial value, trimmed.
    var initializer: ExprSyntax? { binding.initializer?.value.trimmed }

    /// Whether a key path to this computed property can be formed in the generated `member(for:)`: its
    /// accessors neither throw, nor are `async` or `mutating`, and it is neither unavailable, on any
    /// platform or OS version (a key path in the generated code would need the same availability), nor
    /// possibly isolated to a global actor. An attribute the compiler does not define could be a global
    /// actor of any name (`@MainActor`, a custom `@Storage`), so any attribute outside
    /// ``nonIsolatingAttributes`` and Strata's own makes the property no virtual field.
    var isKeyPathable: Bool {
        if case .accessors(let accessors) = binding.accessorBlock?.accessors {
            let keyPathable = accessors.allSatisfy { accessor in
                accessor.effectSpecifiers == nil && accessor.modifier?.name.tokenKind != .keyword(.mutating)
            }
            guard keyPathable else { return false }
        }
        return variable.attributes.allSatisfy { element in
            guard case .attribute(let attribute) = element else { return false }
            let name = attribute.attributeName.trimmedDescription
            if name == "available" { return !attribute.restrictsAvailability }
            // Strata's own attributes are misplaced on a computed property, which they report, and isolate nothing.
            return Self.nonIsolatingAttributes.contains(name) || Self.strataAttributes.contains(where: attribute.isNamed)
        }
    }

    /// Strata's property attributes.
    static let strataAttributes = ["Field"] + PropertyAttributes.Role.allCases.map(\.rawValue)

    /// The attributes of a computed property that the compiler defines and that isolate it to no actor.
    static let nonIsolatingAttributes: Set<String> = [
        "inlinable", "usableFromInline", "_alwaysEmitIntoClient", "inline", "_transparent", "backDeployed",
        "_spi", "_disfavoredOverload", "_optimize", "_effects", "_semantics", "preconcurrency",
        "warn_unqualified_access", "objc", "nonobjc", "_implements",
    ]
}

extension AttributeSyntax {
    /// Whether an `@available` attribute makes the declaration unavailable somewhere: `unavailable`, an
    /// OS version (`macOS 26`, `introduced: 17`) or an `obsoleted:` one. `deprecated` alone does not.
    fileprivate var restrictsAvailability: Bool {
        guard case .availability(let arguments) = arguments else { return false }
        return arguments.contains { element in
            switch element.argument {
            case .availabilityVersionRestriction: return true
            case .availabilityLabeledArgument(let labeled):
                return ["introduced", "obsoleted"].contains(labeled.label.text)
            default: return element.argument.trimmedDescription == "unavailable"
            }
        }
    }
}
