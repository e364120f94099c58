import SwiftSyntax

extension DeclModifierListSyntax {
    /// Whether the list holds a modifier with this keyword.
    func contains(_ keyword: Keyword) -> Bool {
        contains { $0.name.tokenKind == .keyword(keyword) }
    }
}

extension VariableDeclSyntax {
    /// Whether the property belongs to the type rather than to its values.
    var isTypeProperty: Bool {
        modifiers.contains(.static) || modifiers.contains(.class)
    }

    /// Whether any binding of the declaration holds storage of its own.
    var hasStoredBinding: Bool {
        bindings.contains { $0.isStored }
    }

    /// The `@Field` attributes of the declaration, in source order.
    var fieldAttributes: [AttributeSyntax] {
        attributes.compactMap { element in
            guard case .attribute(let attribute) = element, attribute.isNamed("Field") else { return nil }
            return attribute
        }
    }
}

extension PatternBindingSyntax {
    /// Whether the binding holds storage: it has no accessors, or only `willSet` / `didSet` observers.
    var isStored: Bool {
        switch accessorBlock?.accessors {
        case nil:
            true
        case .getter:
            false
        case .accessors(let accessors):
            accessors.allSatisfy {
                $0.accessorSpecifier.tokenKind == .keyword(.willSet)
                    || $0.accessorSpecifier.tokenKind == .keyword(.didSet)
            }
        }
    }
}

extension AttributeSyntax {
    /// Whether the attribute is `@name` or `@Strata.name`.
    func isNamed(_ name: String) -> Bool {
        if let identifier = attributeName.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == name
        }
        if let member = attributeName.as(MemberTypeSyntax.self),
            member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Strata"
        {
            return member.name.text == name
        }
        return false
    }

    /// The labeled and unlabeled arguments of the attribute, empty when it has none.
    var argumentList: LabeledExprListSyntax {
        if case .argumentList(let list) = arguments { return list }
        return []
    }
}

extension TokenSyntax {
    /// The identifier without backticks, or the token text when it is no identifier.
    var plainName: String {
        identifier?.name ?? text
    }
}
