import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder

/// The analysis of relationships and of the derived fields computed over them.
extension EntityAnalysis {
    /// A `@Relationship` property: a to-one relationship (an optional ID, stored in a column) or a to-many
    /// one (a set or an array of IDs, stored apart).
    mutating func analyzeRelationship(
        _ property: PropertySyntax, _ attributes: PropertyAttributes, attribute: AttributeSyntax
    ) {
        let arguments = RelationshipArguments(attribute: attribute, diagnostics: &diagnostics)
        guard let type = property.type else {
            diagnose(property.identifier, .relationshipNeedsType(property.name))
            return
        }
        switch RelationshipKind(type) {
        case .toOne:
            if let dynamicInitialValue = attributes.fieldArguments.dynamicInitialValue {
                diagnose(dynamicInitialValue, .dynamicInitialValueOnRelationship(property.name))
            }
            addStoredField(
                property, attributes.fieldArguments,
                kind: .toOne(deleteRule: arguments.deleteRule, inverse: arguments.inverse), isOptional: true,
                renamedFrom: arguments.renamedFrom)
        case .nonOptionalToOne:
            diagnose(type, .nonOptionalToOne(property.name), replacingWith: PropertyType.optional(type))
        case .toMany:
            if let field = attributes.field {
                let message = StrataDiagnostic.fieldNotAColumn(kind: "to-many relationship", property: property.name)
                diagnostics.append(
                    Diagnostic(
                        node: field, message: message,
                        fixIts: [PropertyAttributes.removal(of: field, from: property.variable)]))
            }
            toMany.append(
                ToManyField(
                    identifier: property.code, name: property.name, deleteRule: arguments.deleteRule,
                    inverse: arguments.inverse, hasDefault: property.initializer != nil,
                    renamedFrom: arguments.renamedFrom))
        case .optionalToMany(let wrapped):
            diagnose(type, .optionalToMany(property.name), replacingWith: wrapped.trimmed)
        case nil:
            diagnose(type, .relationshipNotAnID(type.trimmedDescription))
        }
    }

    /// A `@Derived` property: a value computed over a to-many relationship, never written.
    ///
    /// It needs no initial value: a new object has no related objects, so the generated
    /// `init(newObject:)` starts a count or a sum at `0`, and a minimum or a maximum at `nil`.
    mutating func analyzeDerived(
        _ property: PropertySyntax, _ attributes: PropertyAttributes, attribute: AttributeSyntax
    ) {
        if let field = attributes.field {
            let message = StrataDiagnostic.fieldNotAColumn(kind: "derived field", property: property.name)
            diagnostics.append(
                Diagnostic(
                    node: field, message: message,
                    fixIts: [PropertyAttributes.removal(of: field, from: property.variable)]))
        }
        guard let arguments = DerivedArguments(attribute: attribute, diagnostics: &diagnostics) else { return }
        checkType(of: property, computing: arguments.function)
        guard arguments.relationship.isProperty(of: plainTypeName) else {
            diagnose(arguments.relationshipExpression, .derivedForeignRelationship(typeName: plainTypeName))
            return
        }
        derived.append(
            DerivedField(
                identifier: property.code, name: property.name, function: arguments.function,
                relationship: arguments.relationship.name, relationshipExpression: arguments.relationshipExpression,
                attribute: arguments.attribute, hasDefault: property.initializer != nil))
    }

    /// Reports a type that cannot hold what `function` computes: a count is an integer, a minimum or a
    /// maximum is optional.
    private mutating func checkType(of property: PropertySyntax, computing function: DerivedField.Function) {
        guard let type = property.type else {
            let isInteger = property.initializer?.is(IntegerLiteralExprSyntax.self) == true
            if function.isOptional {
                diagnose(property.identifier, .derivedNotOptional(property.name, function: function.rawValue))
            } else if function == .count && !isInteger {
                diagnose(property.identifier, .derivedCountNotInteger(property.name))
            } else {
                requireInferableLiteral(property)
            }
            return
        }
        if function.isOptional && !PropertyType.isOptional(type) {
            diagnose(
                type, .derivedNotOptional(property.name, function: function.rawValue),
                replacingWith: PropertyType.optional(type))
        } else if function == .count && !PropertyType.isInteger(type) {
            diagnose(type, .derivedCountNotInteger(property.name), replacingWith: TypeSyntax("Int"))
        } else if PropertyType.isUnsupported(type) {
            diagnose(type, .unsupportedType(type.trimmedDescription))
        }
    }

    /// Reports derived fields computed over something other than a to-many relationship of this struct,
    /// once every property is known (a relationship may be declared after the field derived from it).
    mutating func checkDerivedRelationships() {
        let toManyNames = Set(toMany.map(\.name))
        let otherNames = Set(fields.map(\.name) + derived.map(\.name) + virtualProperties.map(\.name))
        for field in derived where !toManyNames.contains(field.relationship) {
            diagnose(
                field.relationshipExpression,
                .derivedNotToMany(
                    field.relationship, typeName: plainTypeName, isDeclared: otherNames.contains(field.relationship)))
        }
    }

    /// Reports `message` at `type`, with a fix-it that replaces the type with `replacement`.
    private mutating func diagnose(
        _ type: TypeSyntax, _ message: StrataDiagnostic, replacingWith replacement: TypeSyntax
    ) {
        let fixed = replacement.with(\.leadingTrivia, type.leadingTrivia).with(\.trailingTrivia, type.trailingTrivia)
        let fixIt = FixIt(
            message: StrataFixIt.replaceType(type.trimmedDescription, with: replacement.trimmedDescription),
            changes: [.replace(oldNode: Syntax(type), newNode: Syntax(fixed))])
        diagnostics.append(Diagnostic(node: type, message: message, fixIts: [fixIt]))
    }
}
