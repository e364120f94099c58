/// The relationships of a schema, resolved: which entity each one points to, its inverse, and where it
/// is stored (a foreign key column, or a join table).
struct SchemaGraph: Sendable {
    /// Where a to-many relationship is stored.
    enum Storage: Sendable, Hashable {
        /// The foreign key `column` of the target table points back at the source; `positionColumn`
        /// (a hidden column of the target table) keeps the order of an ordered relationship.
        case foreignKey(column: String, positionColumn: String?)
        /// Rows of a join table: `ownColumn` holds the source ID, `otherColumn` the target ID, and
        /// `positionColumn` the target's position in the source's list.
        case joinTable(table: String, ownColumn: String, otherColumn: String, positionColumn: String)
    }

    /// A to-many relationship, resolved.
    struct ToMany: Sendable {
        let source: String
        let index: Int
        let property: String
        let target: String
        let isOrdered: Bool
        let deleteRule: DeleteRule
        let storage: Storage
        /// The inverse on the target: a to-one field index, or a to-many index.
        let inverseField: Int?
        let inverseToMany: Int?
    }

    /// A to-one relationship, resolved.
    struct ToOne: Sendable {
        let source: String
        let fieldIndex: Int
        let column: String
        let property: String
        let target: String
        let deleteRule: DeleteRule
        /// The to-many on the target stored through this foreign key, if any.
        let inverseToMany: Int?
    }

    /// A join table to create.
    struct JoinTable: Sendable, Hashable {
        let name: String
        let ownerTable: String
        let otherTable: String
        /// Whether the owner's list is ordered (by `source_position`).
        var sourceIsOrdered = false
        /// Whether the other side's list, the owner's inverse, is ordered (by `target_position`).
        var targetIsOrdered = false
    }

    /// The suffix of the hidden position column of an ordered relationship stored in a foreign key.
    static let positionSuffix = "_position"

    private(set) var entities: [String: EntityDescription] = [:]
    private(set) var toMany: [String: [ToMany]] = [:]
    private(set) var toOne: [String: [ToOne]] = [:]
    private(set) var joinTables: [JoinTable] = []
    /// Hidden position columns per table, for ordered one-to-many relationships.
    private(set) var positionColumns: [String: [String]] = [:]

    /// Whether some relationship's delete rule is `.deny` (deletes then check the rules before writing).
    private(set) var hasDenyRule = false
    /// What the schema declares that Strata ignores (see `toOneInverseProblem`), for the stack's log.
    private(set) var warnings: [String] = []
    /// The entities that some derived field reads through a to-many relationship: an edit of one of
    /// them may change its owners' derived values.
    private(set) var derivedSources: Set<String> = []

    /// The entity name of each Swift type of the schema.
    private var entityNames: [ObjectIdentifier: String] = [:]

    init(schema: Schema) throws(StrataError) {
        for entity in schema.entities { entities[entity.name] = entity }
        for (type, entity) in zip(schema.entityTypes, schema.entities) { entityNames[type] = entity.name }
        let name = { (reference: EntityReference, source: String, property: String) throws(StrataError) -> String in
            guard let index = schema.entityTypes.firstIndex(of: reference.type) else {
                if let error = Self.otherVersionsType(reference, source, property, schema) { throw error }
                throw StrataError(
                    .invalidArgument,
                    "\(source).\(property) points to \(reference.typeName), which is not part of schema \(schema.version); "
                        + "add \(reference.typeName) to the Schema.",
                    entity: source, field: property)
            }
            return schema.entities[index].name
        }
        // To-one relationships.
        for entity in schema.entities {
            var list: [ToOne] = []
            for (index, field) in entity.fields.enumerated() {
                guard let relationship = field.toOne else { continue }
                let target = try name(relationship.target, entity.name, field.property)
                if let inverse = relationship.inverse,
                    let problem = Self.toOneInverseProblem(
                        entity.name, field.property, inverse, target: entities[target],
                        pointsBack: { [entityNames] in entityNames[$0.type] == entity.name })
                {
                    warnings.append(problem)
                }
                list.append(ToOne(
                    source: entity.name, fieldIndex: index, column: field.column, property: field.property,
                    target: target, deleteRule: relationship.deleteRule, inverseToMany: nil))
            }
            toOne[entity.name] = list
        }
        // To-many relationships, their inverses and storage.
        for entity in schema.entities {
            var list: [ToMany] = []
            for (index, relationship) in entity.toMany.enumerated() {
                let targetName = try name(relationship.target, entity.name, relationship.property)
                list.append(try resolve(entity, index, relationship, targetName))
            }
            toMany[entity.name] = list
        }
        // Link each foreign key back to the to-many stored through it.
        for relationships in toMany.values {
            for relationship in relationships {
                guard case .foreignKey = relationship.storage, let field = relationship.inverseField else { continue }
                var targets = toOne[relationship.target] ?? []
                if let position = targets.firstIndex(where: { $0.fieldIndex == field }) {
                    let old = targets[position]
                    targets[position] = ToOne(
                        source: old.source, fieldIndex: old.fieldIndex, column: old.column, property: old.property,
                        target: old.target, deleteRule: old.deleteRule, inverseToMany: relationship.index)
                }
                toOne[relationship.target] = targets
            }
        }
        try validateDerived(schema)
        hasDenyRule = toMany.values.contains { $0.contains { $0.deleteRule == .deny } }
            || toOne.values.contains { $0.contains { $0.deleteRule == .deny } }
        for (owner, relationships) in toMany {
            let derived = entities[owner]?.derived ?? []
            for relationship in relationships where derived.contains(where: { $0.relationship == relationship.property }) {
                derivedSources.insert(relationship.target)
            }
        }
    }

    /// The error for a relationship that points to an entity type of another version (`V1.Recipe`)
    /// while the schema holds its own type of that name (`V2.Recipe`): two Swift types, so the schema
    /// cannot tell which table the relationship means. `nil` when the schema holds no such namesake.
    private static func otherVersionsType(
        _ reference: EntityReference, _ source: String, _ property: String, _ schema: Schema
    ) -> StrataError? {
        guard let index = schema.entities.indices.first(where: { index in
            schema.entities[index].name == reference.typeName
                || schema.entityTypeNames[schema.entityTypes[index]]?.split(separator: ".").last.map(String.init) == reference.typeName
        }) else { return nil }
        let entity = schema.entities[index]
        var theirs = reference.qualifiedTypeName
        var ours = schema.entityTypeNames[schema.entityTypes[index]] ?? entity.name
        if theirs == ours {
            theirs = "\(theirs) (referenced)"
            ours = "\(ours) (in the schema)"
        }
        return StrataError(
            .invalidArgument,
            "\(source).\(property) points to \(theirs), but the schema's \(entity.name) is \(ours), a different Swift "
                + "type: schema \(schema.version) mixes entity types of two versions. Each version's namespace must hold its own "
                + "copy of every related entity, with relationships pointing to that version's types; give "
                + "\(schema.version) its own copy of \(source) whose \(property) points to \(ours).",
            entity: source, field: property)
    }

    /// What is wrong with a to-one relationship's declared inverse when it is not a to-many of its target
    /// pointing back (Strata keeps the two sides of a to-one and a to-many in step, and no other pair),
    /// or `nil`. Such an inverse is ignored, with a warning when the stack opens rather than an error: a
    /// schema that shipped with one must still open (its version lock holds the inverse's name).
    private static func toOneInverseProblem(
        _ source: String, _ property: String, _ inverse: String, target: EntityDescription?,
        pointsBack: (EntityReference) -> Bool
    ) -> String? {
        guard let target else { return nil }
        let ignored = "\(source).\(property): its inverse \(target.name).\(inverse)"
        if let many = target.toMany.first(where: { $0.property == inverse }) {
            guard pointsBack(many.target) else {
                return "\(ignored) points to \(many.target.typeName), not to \(source); it is ignored."
            }
            guard many.inverse == nil || many.inverse == property else {
                return "\(ignored) names another relationship as its own inverse; the two are not kept in step."
            }
            return nil
        }
        if target.fields.contains(where: { $0.property == inverse && $0.toOne != nil }) {
            return "\(ignored) is a to-one relationship, and Strata keeps only the inverse of a to-many in step: "
                + "this inverse is ignored. For a one-to-one, set both sides in the same transaction, or make one side "
                + "a to-many."
        }
        return "\(ignored) is not a to-many relationship of \(target.name); it is ignored."
    }

    private mutating func resolve(
        _ entity: EntityDescription, _ index: Int, _ relationship: ToManyDescription, _ targetName: String
    ) throws(StrataError) -> ToMany {
        guard let target = entities[targetName] else {
            throw StrataError(.invalidArgument, "Unknown entity \(targetName).", entity: entity.name)
        }
        let fail = { (reason: String) in
            StrataError(
                .invalidArgument, "\(entity.name).\(relationship.property): \(reason)", entity: entity.name,
                field: relationship.property)
        }
        // The inverse: declared here, or declared on the target pointing back here.
        var inverseField: Int?
        var inverseToMany: Int?
        // An inverse must point back at this entity: another entity's relationship of the same name is not it.
        let entityNames = self.entityNames
        let pointsHere = { (reference: EntityReference) in entityNames[reference.type] == entity.name }
        let pointsElsewhere = { (inverse: String, reference: EntityReference) -> StrataError in
            fail("its inverse \(targetName).\(inverse) points to \(entityNames[reference.type] ?? reference.typeName), "
                + "not to \(entity.name). Name a relationship of \(targetName) that points to \(entity.name), or none.")
        }
        if let inverse = relationship.inverse {
            if let field = target.fields.firstIndex(where: { $0.property == inverse }) {
                guard let toOne = target.fields[field].toOne else {
                    throw fail("its inverse \(targetName).\(inverse) is not a relationship.")
                }
                guard pointsHere(toOne.target) else { throw pointsElsewhere(inverse, toOne.target) }
                inverseField = field
            } else if let many = target.toMany.firstIndex(where: { $0.property == inverse }) {
                guard pointsHere(target.toMany[many].target) else { throw pointsElsewhere(inverse, target.toMany[many].target) }
                inverseToMany = many
            } else {
                throw fail("its inverse \(targetName).\(inverse) does not exist.")
            }
        } else if let field = target.fields.firstIndex(where: {
            $0.toOne?.inverse == relationship.property && $0.toOne.map { pointsHere($0.target) } == true
        }) {
            inverseField = field
        } else if let many = target.toMany.firstIndex(where: {
            $0.inverse == relationship.property && pointsHere($0.target)
        }) {
            inverseToMany = many
        } else if let warning = Self.forgottenInverse(entity, relationship, target, pointsHere: pointsHere) {
            warnings.append(warning)
        }
        if let many = inverseToMany, entity.name == targetName, many == index {
            throw fail("a relationship cannot be its own inverse.")
        }
        let storage: Storage
        if let field = inverseField {
            let column = target.fields[field].column
            var position: String?
            if relationship.isOrdered {
                let hidden = column + Self.positionSuffix
                position = hidden
                if !(positionColumns[targetName] ?? []).contains(hidden) {
                    positionColumns[targetName, default: []].append(hidden)
                }
            }
            storage = .foreignKey(column: column, positionColumn: position)
        } else if let many = inverseToMany {
            // One join table for the pair; the side whose "Entity.property" sorts first owns it.
            let mine = "\(entity.name).\(relationship.property)"
            let theirs = "\(targetName).\(target.toMany[many].property)"
            let owner = mine < theirs
            let table = owner ? "\(entity.name)_\(relationship.property)" : "\(targetName)_\(target.toMany[many].property)"
            storage = .joinTable(
                table: table, ownColumn: owner ? "source" : "target", otherColumn: owner ? "target" : "source",
                positionColumn: owner ? "source_position" : "target_position")
            if owner {
                joinTables.append(JoinTable(
                    name: table, ownerTable: entity.name, otherTable: targetName,
                    sourceIsOrdered: relationship.isOrdered, targetIsOrdered: target.toMany[many].isOrdered))
            }
        } else {
            let table = "\(entity.name)_\(relationship.property)"
            storage = .joinTable(table: table, ownColumn: "source", otherColumn: "target", positionColumn: "source_position")
            joinTables.append(JoinTable(
                name: table, ownerTable: entity.name, otherTable: targetName, sourceIsOrdered: relationship.isOrdered))
        }
        return ToMany(
            source: entity.name, index: index, property: relationship.property, target: targetName,
            isOrdered: relationship.isOrdered, deleteRule: relationship.deleteRule, storage: storage,
            inverseField: inverseField, inverseToMany: inverseToMany)
    }

    /// The warning for a to-many with no inverse beside exactly one to-one of its target that points
    /// back and declares no inverse either: most likely two sides of one relationship whose `inverse:`
    /// was forgotten, which Strata keeps as two unrelated relationships. Only a warning: a schema that
    /// shipped that way must open as before, and two independent relationships are legitimate.
    private static func forgottenInverse(
        _ entity: EntityDescription, _ relationship: ToManyDescription, _ target: EntityDescription,
        pointsHere: (EntityReference) -> Bool
    ) -> String? {
        let backs = target.fields.filter { field in field.toOne.map { pointsHere($0.target) } == true }
        guard backs.count == 1, let back = backs.first, back.toOne?.inverse == nil,
            // Another to-many of the entity that names it as its inverse already owns it.
            !entity.toMany.contains(where: { $0.inverse == back.property })
        else { return nil }
        let many = "\(entity.name).\(relationship.property)"
        let one = "\(target.name).\(back.property)"
        return "\(many) (to-many) and \(one) (to-one, pointing back to \(entity.name)) declare no inverse, so Strata keeps "
            + "them as two unrelated relationships: setting \(one) leaves \(many) unchanged. If they are the two sides of "
            + "one relationship, declare it on \(many): @Relationship(inverse: \\\(relationship.target.typeName).\(back.property)); "
            + "if they are meant to be independent, ignore this warning."
    }

    private func validateDerived(_ schema: Schema) throws(StrataError) {
        for entity in schema.entities {
            for derived in entity.derived {
                guard let relationship = toMany[entity.name]?.first(where: { $0.property == derived.relationship }) else {
                    throw StrataError(
                        .invalidArgument,
                        "\(entity.name).\(derived.property) is derived from '\(derived.relationship)', which is not a "
                            + "to-many relationship of \(entity.name).",
                        entity: entity.name, field: derived.property)
                }
                guard derived.function != .count else { continue }
                let target = entities[relationship.target]
                guard let attribute = derived.attribute,
                    let field = target?.fields.first(where: { $0.property == attribute }),
                    field.kind == .attribute, field.storageClass == .integer || field.storageClass == .real
                else {
                    throw StrataError(
                        .invalidArgument,
                        "\(entity.name).\(derived.property) needs a numeric attribute of \(relationship.target) to "
                            + "compute \(derived.function.rawValue); '\(derived.attribute ?? "")' is not one.",
                        entity: entity.name, field: derived.property)
                }
                if field.storageClass == .real, derived.declaredStorageClass == .integer {
                    throw StrataError(
                        .invalidArgument,
                        "\(entity.name).\(derived.property) is declared as an integer, but the \(derived.function.rawValue) of "
                            + "\(relationship.target).\(attribute) is a Double, which need not be whole. Declare it as Double.",
                        entity: entity.name, field: derived.property)
                }
            }
        }
    }

    // MARK: Lookups

    /// The to-many relationship `index` of an entity.
    func toMany(_ entity: String, _ index: Int) -> ToMany? {
        toMany[entity].flatMap { index < $0.count ? $0[index] : nil }
    }

    /// The to-many relationships of other entities (or this one) that point at `entity` without an
    /// inverse on `entity`'s side: their join rows must go when an object of `entity` is deleted.
    func incomingJoinTables(to entity: String) -> [ToMany] {
        toMany.values.flatMap { $0 }.filter {
            $0.target == entity && $0.inverseToMany == nil && $0.inverseField == nil
        }
    }

    /// The to-one relationships that point at `entity` and have no inverse to-many on it.
    func incomingToOnes(to entity: String) -> [ToOne] {
        toOne.values.flatMap { $0 }.filter { $0.target == entity && $0.inverseToMany == nil }
    }

    /// The derived fields of an entity computed over its to-many relationship `index`.
    func derivedProperties(_ entity: String, toMany index: Int) -> [String] {
        guard let description = entities[entity], index < description.toMany.count else { return [] }
        let property = description.toMany[index].property
        return description.derived.filter { $0.relationship == property }.map(\.property)
    }
}
