/// The generated `entityDescription`.
extension EntityCode {
    /// `static let entityDescription = Strata.EntityDescription(...)`, one description per line; the
    /// `toMany:`, `derived:`, `virtualProperties:`, `uniqueConstraints:` and `indexes:` arguments only when
    /// they are not empty.
    var entityDescription: [String] {
        var lines: [String] = []
        var current =
            "\(access)nonisolated static let entityDescription = Strata.EntityDescription(name: \(literal(analysis.entityName)), "
            + "typeName: \(literal(analysis.plainTypeName))"
        let sections = [
            ("fields", fields.map(fieldDescription)),
            ("toMany", toMany.map(toManyDescription)),
            ("derived", derived.map(derivedDescription)),
        ]
        for (label, items) in sections where label == "fields" || !items.isEmpty {
            guard !items.isEmpty else {
                current += ", \(label): []"
                continue
            }
            lines.append(current + ", \(label): [")
            lines += items.map { "    \($0)," }
            current = "]"
        }
        let virtual = analysis.virtualProperties.map { literal($0.name) }
        if !virtual.isEmpty {
            current += ", virtualProperties: [\(virtual.joined(separator: ", "))]"
        }
        if let renamed = analysis.entityRenamedFrom {
            current += ", renamedFrom: \(literal(renamed))"
        }
        for (label, lists) in [("uniqueConstraints", analysis.uniqueConstraints), ("indexes", analysis.indexes)] where !lists.isEmpty {
            let written = lists.map { "[" + $0.map(literal).joined(separator: ", ") + "]" }
            current += ", \(label): [\(written.joined(separator: ", "))]"
        }
        return lines + [current + ")"]
    }

    /// `Strata.FieldDescription.stored(...)`, `.toOne(...)` or `.coded(...)`; arguments whose value is
    /// the default are left out, except `options:`.
    private func fieldDescription(_ field: StoredField) -> String {
        var description = plainFieldDescription(field)
        if field.dynamicInitialValue != nil {
            // The closure in the entity's scope, for migrations that add the field to existing objects.
            let initial = "\(Self.scopeName).\(field.initialValueMember)"
            switch field.kind {
            case .attribute: description += ".initialValues(\(initial))"
            case .json: description += ".initialJSONValues(\(initial))"
            case .custom: description += ".initialValues(\(initial), encodedBy: \(Self.scopeName).\(field.identifier))"
            case .toOne: break
            }
        }
        guard let renamed = field.renamedFrom else { return description }
        return description + ".renamed(from: \(literal(renamed)))"
    }

    private func plainFieldDescription(_ field: StoredField) -> String {
        let keyPath = "\\\(qualifiedType).\(field.identifier)"
        let names = [
            "property: \(literal(field.name))",
            "column: \(literal(field.column))",
            "options: [\(field.options.joined(separator: ", "))]",
        ]
        switch field.kind {
        case .attribute:
            var arguments = [keyPath] + names
            if field.dynamicInitialValue != nil { arguments.append("hasDynamicInitialValue: true") }
            if let value = field.defaultValue { arguments.append("default: \(ScopedExpression.argument(value))") }
            return "Strata.FieldDescription.stored(\(arguments.joined(separator: ", ")))"
        case .toOne(let deleteRule, let inverse):
            var arguments = [keyPath] + names
            if let deleteRule { arguments.append("deleteRule: \(deleteRule)") }
            if let inverse { arguments.append("inverse: \(literal(inverse))") }
            return "Strata.FieldDescription.toOne(\(arguments.joined(separator: ", ")))"
        case .json:
            var arguments = [keyPath] + names
            if field.isOptional { arguments.append("isOptional: true") }
            if let value = field.defaultValue { arguments.append("default: \(ScopedExpression.argument(value))") }
            return "Strata.FieldDescription.coded(\(arguments.joined(separator: ", ")))"
        case .custom(let encode, _):
            // The encode closure lets the compiler infer the type the value is stored as, and encodes the
            // default for migrations.
            var arguments = [keyPath, "encode: \(encode)"] + names
            if let value = field.defaultValue { arguments.append("default: \(ScopedExpression.argument(value))") }
            return "Strata.FieldDescription.coded(\(arguments.joined(separator: ", ")))"
        }
    }

    /// `Strata.ToManyDescription.make(\Person.pets, property: "pets", deleteRule: .cascade, inverse: "owner")`.
    private func toManyDescription(_ relationship: ToManyField) -> String {
        var arguments = ["\\\(qualifiedType).\(relationship.identifier)", "property: \(literal(relationship.name))"]
        if let deleteRule = relationship.deleteRule { arguments.append("deleteRule: \(deleteRule)") }
        if let inverse = relationship.inverse { arguments.append("inverse: \(literal(inverse))") }
        if let renamed = relationship.renamedFrom { arguments.append("renamedFrom: \(literal(renamed))") }
        return "Strata.ToManyDescription.make(\(arguments.joined(separator: ", ")))"
    }

    /// `Strata.DerivedDescription(\Owner.totalAge, property: "totalAge", function: .sum, relationship: "pets",
    /// attribute: "age")`: the key path gives the declared type.
    private func derivedDescription(_ field: DerivedField) -> String {
        var arguments = [
            "\\\(qualifiedType).\(field.identifier)",
            "property: \(literal(field.name))",
            "function: .\(field.function.rawValue)",
            "relationship: \(literal(field.relationship))",
        ]
        if let attribute = field.attribute { arguments.append("attribute: \(literal(attribute))") }
        return "Strata.DerivedDescription(\(arguments.joined(separator: ", ")))"
    }
}
