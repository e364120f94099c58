// How schemas and entities describe themselves: close to how they are declared.

extension Schema: CustomStringConvertible {
    /// The version and its entities, as declared: `Schema "V1": Person, Post (entity "Article")`.
    public var description: String {
        "Schema \"\(version)\": " + entities.map { entity in
            entity.name == entity.typeName ? entity.typeName : "\(entity.typeName) (entity \"\(entity.name)\")"
        }.joined(separator: ", ")
    }
}

extension EntityDescription: CustomStringConvertible {
    /// The entity and its members in declaration order, each with what was declared about it, then its
    /// unique constraints and indexes over several fields (`#Unique(firstName, lastName)`):
    ///
    /// ```
    /// Post (entity "Article") { title: text = '' (column "headline"), slug: text unique = '',
    /// views: integer indexed = 0, body: text?, owner: → Owner (nullify),
    /// pets: → Set<Pet> (cascade, inverse owner), petCount: count(pets), summary: virtual }
    /// ```
    public var description: String {
        var members: [String] = []
        for field in fields { members.append(field.description) }
        for relationship in toMany {
            let target = relationship.isOrdered ? "[\(relationship.target.typeName)]" : "Set<\(relationship.target.typeName)>"
            var rules = [relationship.deleteRule.rawValue]
            if let inverse = relationship.inverse { rules.append("inverse \(inverse)") }
            members.append("\(relationship.property): → \(target) (\(rules.joined(separator: ", ")))")
        }
        for derived in derived {
            let over = derived.attribute.map { "\(derived.relationship).\($0)" } ?? derived.relationship
            members.append("\(derived.property): \(derived.function.rawValue)(\(over))")
        }
        for property in virtualProperties { members.append("\(property): virtual") }
        for list in uniqueConstraints { members.append("#Unique(\(list.joined(separator: ", ")))") }
        for list in indexes { members.append("#Index(\(list.joined(separator: ", ")))") }
        let title = name == typeName ? typeName : "\(typeName) (entity \"\(name)\")"
        return "\(title) { \(members.joined(separator: ", ")) }"
    }
}

extension FieldDescription: CustomStringConvertible {
    /// The field as declared: `title: text (column "headline")`, `views: integer indexed = 0`,
    /// `owner: → Owner (nullify)`, `tags: coded text`, `email: text? unique`.
    public var description: String {
        var text = "\(property): "
        switch kind {
        case .toOne(let relationship):
            var rules = [relationship.deleteRule.rawValue]
            if let inverse = relationship.inverse { rules.append("inverse \(inverse)") }
            text += "→ \(relationship.target.typeName) (\(rules.joined(separator: ", ")))"
        case .coded:
            text += "coded " + storageClass.rawValue.lowercased() + (isOptional ? "?" : "")
        case .attribute:
            text += storageClass.rawValue.lowercased() + (isOptional ? "?" : "")
        }
        if isUnique { text += " unique" }
        if isIndexed && !isUnique { text += " indexed" }
        if let defaultValue { text += " = \(defaultValue)" }
        if hasDynamicInitialValue { text += " = dynamic" }
        if column != property { text += " (column \"\(column)\")" }
        return text
    }
}
