import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder

/// The analysis of the properties stored in a column: attributes and coded fields (to-one relationships
/// join them in `EntityAnalysis+Relationships.swift`).
extension EntityAnalysis {
    /// A property without `@Relationship`, `@Coded` or `@Derived`: a `DatabaseValueConvertible` value.
    mutating func analyzeAttribute(_ property: PropertySyntax, _ arguments: FieldArguments) {
        var isOptional = false
        if let type = property.type {
            isOptional = PropertyType.isOptional(type)
            if PropertyType.isUnsupported(type) {
                diagnoseUnsupported(type, in: property)
            } else {
                requireInitialValue(property, arguments, isOptional: isOptional)
            }
        } else {
            requireInferableLiteral(property)
        }
        addStoredField(property, arguments, kind: .attribute, isOptional: isOptional)
    }

    /// A `@Coded` property: a `Codable` value stored as JSON, or a value stored through the closures.
    mutating func analyzeCoded(_ property: PropertySyntax, _ arguments: FieldArguments, attribute: AttributeSyntax) {
        let coded = CodedArguments(attribute: attribute, diagnostics: &diagnostics)
        var isOptional = false
        if let type = property.type {
            isOptional = PropertyType.isOptional(type)
            if case .json = coded.kind, PropertyType.isUncodable(type) {
                diagnose(type, .uncodableType(type.trimmedDescription))
            } else {
                requireInitialValue(property, arguments, isOptional: isOptional)
            }
        } else {
            requireInferableLiteral(property)
        }
        addStoredField(property, arguments, kind: coded.kind, isOptional: isOptional)
    }

    /// Records a field stored in a column, after checking the column name.
    mutating func addStoredField(
        _ property: PropertySyntax, _ arguments: FieldArguments, kind: StoredField.Kind, isOptional: Bool,
        renamedFrom: String? = nil
    ) {
        let column = arguments.column ?? property.name
        checkColumn(
            column, property: property.name,
            node: arguments.columnExpression.map(Syntax.init) ?? Syntax(property.binding.pattern))
        fields.append(
            StoredField(
                identifier: property.code,
                name: property.name,
                column: column,
                options: arguments.options,
                defaultValue: property.initializer,
                dynamicInitialValue: arguments.dynamicInitialValue?.trimmed,
                isOptional: isOptional,
                kind: kind,
                renamedFrom: arguments.renamedFrom ?? renamedFrom))
    }

    /// Reports a non-optional property that a new object could not initialize.
    mutating func requireInitialValue(_ property: PropertySyntax, _ arguments: FieldArguments, isOptional: Bool) {
        guard property.initializer == nil, arguments.dynamicInitialValue == nil, !isOptional else { return }
        let binding = property.binding
        var fixIts: [FixIt] = []
        if let annotation = binding.typeAnnotation, let value = PropertyType.suggestedDefault(for: annotation.type) {
            let initializer = InitializerClauseSyntax(
                equal: .equalToken(leadingTrivia: .space, trailingTrivia: .space),
                value: ExprSyntax("\(raw: value)").with(\.trailingTrivia, annotation.trailingTrivia))
            let fixed = binding.with(\.typeAnnotation, annotation.with(\.trailingTrivia, []))
                .with(\.initializer, initializer)
            fixIts.append(
                FixIt(
                    message: StrataFixIt.insertDefault(value),
                    changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(fixed))]))
        }
        diagnostics.append(
            Diagnostic(
                node: property.identifier, message: StrataDiagnostic.missingDefault(property.name), fixIts: fixIts))
    }

    /// Reports a property without a type annotation whose initial value does not say its type at a glance.
    mutating func requireInferableLiteral(_ property: PropertySyntax) {
        // Without an annotation, only a literal says the type (String, Int, Double or Bool) at a glance.
        if property.initializer.map(PropertyType.isInferableLiteral) != true {
            diagnose(property.identifier, .needsTypeAnnotation(property.name))
        }
    }

    /// Reports a type no column can hold, with a fix-it adding `@Coded` or `@Relationship` when one of
    /// them would store it.
    mutating func diagnoseUnsupported(_ type: TypeSyntax, in property: PropertySyntax) {
        var fixIts: [FixIt] = []
        if let name = PropertyType.suggestedAttribute(for: type) {
            let variable = property.variable
            let attribute = AttributeSyntax(
                attributeName: IdentifierTypeSyntax(name: .identifier(name)), trailingTrivia: .space)
            let detached = variable.with(\.leadingTrivia, [])
            let fixed = detached.with(\.attributes, [.attribute(attribute)] + Array(detached.attributes))
                .with(\.leadingTrivia, variable.leadingTrivia)
            fixIts.append(
                FixIt(
                    message: StrataFixIt.insertAttribute(name),
                    changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(fixed))]))
        }
        diagnostics.append(
            Diagnostic(node: type, message: StrataDiagnostic.unsupportedType(type.trimmedDescription), fixIts: fixIts))
    }

    /// Reports an invalid, reserved or repeated column name, and records a valid one.
    mutating func checkColumn(_ column: String, property: String, node: Syntax) {
        let key = column.asciiLowercased
        if !Self.isValidName(column) {
            diagnose(node, .invalidColumnName(column))
        } else if key == "id" {
            diagnose(node, .reservedColumn(column))
        } else if let other = columns[key] {
            diagnose(node, .duplicateColumn(column, usedBy: other))
        } else {
            columns[key] = property
        }
    }
}
