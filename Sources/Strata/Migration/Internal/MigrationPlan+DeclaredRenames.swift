/// Renames declared on the destination version's types (`@Entity(renamedFrom:)`, `@Field(renamedFrom:)`,
/// `@Relationship(renamedFrom:)`): followed where the step declares nothing for them, and refused when
/// they name nothing the version before has.
extension MigrationPlan {
    /// A version that also migrates to the destination (a tree chain), with its step: a `renamedFrom:`
    /// may name a field of that version rather than of this step's source.
    typealias OtherSource = (schema: Schema, step: MigrationStep?)

    /// Adds the renames declared on the destination's types to `entityRenames` and `fieldRenames`
    /// (destination entity: destination property → source property), where the step declares none,
    /// and returns each renamed entity's source name by destination name.
    ///
    /// A field or relationship that is new in this step (the source entity has nothing of its name)
    /// and whose `renamedFrom:` names nothing of the source entity is refused: a misspelled old name
    /// would make the step drop the old field's values and start the new one empty, without a word.
    /// A `renamedFrom:` left on a type in later versions (the field exists in the source already) is
    /// stale and ignored, as is one of a field whose entity is new in this step; in a tree chain, one
    /// that names a field of another version migrating to the same destination is that version's.
    mutating func resolveDeclaredRenames(
        fieldRenames: inout [String: [String: String]], deleted: Set<String>, otherSources: [OtherSource],
        fail: (String, String?, String?) -> StrataError
    ) throws(StrataError) -> [String: String] {
        for entity in destination.entities {
            guard let old = entity.renamedFrom, source.entity(named: entity.name) == nil, source.entity(named: old) != nil,
                entityRenames[old] == nil, !entityRenames.values.contains(entity.name), !deleted.contains(old)
            else { continue }
            entityRenames[old] = entity.name
        }
        let sourceOf = Dictionary(entityRenames.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in destination.entities {
            guard let old = source.entity(named: sourceOf[entity.name] ?? entity.name) else { continue }
            let declared = fieldRenames[entity.name] ?? [:]
            // The entity's objects in the source, when the step keeps them (not a new or recreated entity).
            let kept = sourceOf[entity.name] ?? (entityRenames[entity.name] == nil ? entity.name : nil)
            let checked = kept.map { !deleted.contains($0) } ?? false
            var renames = declared
            for field in entity.fields {
                guard let name = field.renamedFrom, declared[field.property] == nil else { continue }
                let isNew = !old.fields.contains { $0.property == field.property || $0.column == field.column }
                let names = old.fields.contains { $0.property == name || $0.column == name }
                if checked, isNew, !names {
                    let attribute = if case .toOne = field.kind { "@Relationship" } else { "@Field" }
                    try refuse(entity, field.property, attribute, renamedFrom: name, toMany: false, old, otherSources, fail)
                }
                guard !declared.values.contains(name), isNew, names else { continue }
                renames[field.property] = name
            }
            for relationship in entity.toMany {
                guard let name = relationship.renamedFrom, declared[relationship.property] == nil else { continue }
                let isNew = !old.toMany.contains { $0.property == relationship.property }
                let names = old.toMany.contains { $0.property == name }
                if checked, isNew, !names {
                    try refuse(entity, relationship.property, "@Relationship", renamedFrom: name, toMany: true, old, otherSources, fail)
                }
                guard !declared.values.contains(name), isNew, names else { continue }
                renames[relationship.property] = name
            }
            if !renames.isEmpty { fieldRenames[entity.name] = renames }
        }
        return sourceOf
    }

    /// Refuses `entity.property`'s `renamedFrom: name` (declared with `attribute`), which names nothing of
    /// `old`, the source entity, of the kind the property is (a stored field, or a `toMany`
    /// relationship), unless a version that also migrates to the destination has it.
    private func refuse(
        _ entity: EntityDescription, _ property: String, _ attribute: String, renamedFrom name: String, toMany: Bool,
        _ old: EntityDescription, _ otherSources: [OtherSource], _ fail: (String, String?, String?) -> StrataError
    ) throws(StrataError) {
        for (schema, step) in otherSources {
            var names = [entity.name] + (entity.renamedFrom.map { [$0] } ?? [])
            for change in step?.changes ?? [] {
                if case .renameEntity(let from, let to) = change.kind, to == entity.name { names.append(from) }
            }
            for other in names.compactMap(schema.entity(named:)) {
                if toMany ? other.toMany.contains(where: { $0.property == name })
                    : other.fields.contains(where: { $0.property == name || $0.column == name }) { return }
            }
        }
        let what = toMany ? "to-many relationship" : "field"
        let otherKind =
            if toMany, old.fields.contains(where: { $0.property == name }) { " (\(name) is a stored field there)" }
            else if !toMany, old.toMany.contains(where: { $0.property == name }) { " (\(name) is a to-many relationship there)" }
            else { "" }
        let has = old.fields.map(\.property) + old.toMany.map(\.property)
        let place = old.name == entity.name ? old.name : "\(old.name) (\(entity.name)'s name there)"
        throw fail(
            "\(entity.name).\(property) is declared \(attribute)(renamedFrom: \"\(name)\"), but \(place) in version "
                + "\(source.version) has no \(what) \(name)\(otherKind); it has "
                + (has.isEmpty ? "none" : has.joined(separator: ", ")) + ". Nothing would move to \(property), and a field "
                + "the old name was meant for would be dropped with its values: correct the old name, or remove "
                + "renamedFrom: if \(property) is new in version \(destination.version).",
            entity.name, property)
    }
}
