/// One change of a ``MigrationStep`` that the two schemas alone do not tell.
///
/// Entities are named as in the schemas (``EntityDescription/name``); fields by property name (a
/// field's column name works too). Renames name the old entity or field of the source version and the
/// new one of the destination version; every other change names the destination's entity and field,
/// except ``deleteEntity(_:)`` and ``deleteObjects(_:where:)``, which name the source's.
public struct MigrationChange: Sendable {
    enum Kind: Sendable {
        case renameEntity(from: String, to: String)
        case renameField(entity: String, from: String, to: String)
        case deleteEntity(String)
        case fill(entity: String, field: String, value: DatabaseValue)
        case transform(entity: String, Transform)
        case deleteObjects(entity: String, where: @Sendable (MigrationObject) throws -> Bool)
        case custom(@Sendable (MigrationTransaction) throws -> Void)
    }

    /// A typed transform with its entity type erased: decodes the destination object from a row laid out
    /// as the destination entity reads it, lets the user's closure change it, and binds its fields to
    /// the insert statement from parameter 2 on (the ID is parameter 1).
    struct Transform: Sendable {
        /// The entity of the type the transform decodes and writes: it must be the destination version's.
        let entity: EntityDescription
        let run: @Sendable (Row, MigrationObject, Statement) throws -> Void

        /// The destination object could not be read: the value of its column `column` (its field's type
        /// changed) is not one the field's type can hold.
        struct Unreadable: Error {
            let column: String
            let error: StrataError
        }
    }

    let kind: Kind

    /// The entity `old` of the source version is `new` in the destination version: same objects, same
    /// IDs, a new name.
    public static func renameEntity(from old: String, to new: String) -> MigrationChange {
        MigrationChange(kind: .renameEntity(from: old, to: new))
    }

    /// The field `old` of the source version is the field `new` of `entity` in the destination version
    /// (its values move over, converted where the type widened).
    public static func renameField(_ entity: String, from old: String, to new: String) -> MigrationChange {
        MigrationChange(kind: .renameField(entity: entity, from: old, to: new))
    }

    /// Drops the source version's entity `name` and every object of it. Without this change, a step
    /// whose destination lacks an entity is refused: data is never dropped silently. As with
    /// ``deleteObjects(_:where:)``, the to-one relationships of kept entities that pointed at its objects
    /// become `nil` and their IDs are never used again (an entity of that name declared anew, in the
    /// step's custom change or a later version, starts above them).
    public static func deleteEntity(_ name: String) -> MigrationChange {
        MigrationChange(kind: .deleteEntity(name))
    }

    /// The value of `field` of `entity` for existing objects that have none: a required field the
    /// destination adds without a default, a field that was optional and becomes required, or one that
    /// stays optional (its `nil`s get `value`; a field that was required has none to fill). A value of
    /// another kind than the field's (text for an `Int` field), or `nil` for a required field, is refused
    /// with ``StrataError/Code/invalidMigration`` when the step is planned (by the forecast too), before
    /// anything is written; an integer fills a `Double` field.
    public static func fill<V: DatabaseValueConvertible>(_ entity: String, _ field: String, with value: V) -> MigrationChange {
        MigrationChange(kind: .fill(entity: entity, field: field, value: value.databaseValue))
    }

    /// Migrates every object of the destination entity `E` through `body`: the object arrives as the
    /// inferred step would make it (fields copied, renamed, widened or filled), and `body` can read the
    /// source object by field name and change the destination object's stored fields and to-one
    /// relationships as it likes. IDs never change.
    ///
    /// A field whose stored value the destination type cannot read (a `String` that became an enum,
    /// a value that became `@Coded`, a `nil` in a field that became required) arrives with its dynamic
    /// initial value, or its declared default: `body` converts it from the source object's value. A
    /// type change the migration infers (an `Int` that becomes a `Double`) arrives converted, unchecked:
    /// with a transform of the entity, values the new type cannot hold exactly are for `body` to handle
    /// (read them from the source object). A field whose default the migration cannot tell (one that is neither
    /// `nil` nor its type's zero) and whose zero its type cannot read either (an enum without such a
    /// case) still throws the ``StrataError/Code/typeMismatch``: declare a default for it.
    ///
    /// To-many relationships arrive empty and derived fields with their type's zero: both are kept
    /// apart from the object's row (to-many relationships are carried over unchanged, derived fields
    /// are computed when read). A `body` that changes one of them throws
    /// ``StrataError/Code/invalidMigration`` naming the object and the field, and the migration rolls
    /// back: change relationships in a ``custom(_:)`` change, or in a transaction after the migration.
    public static func transform<E: Entity>(
        _ type: E.Type, _ body: @escaping @Sendable (MigrationObject, inout E) throws -> Void
    ) -> MigrationChange {
        let description = E.entityDescription
        let keptApart = !description.toMany.isEmpty || !description.derived.isEmpty
        return MigrationChange(kind: .transform(entity: description.name, Transform(entity: description) { row, source, insert in
            var object: E
            do {
                object = try E(row: row)
            } catch let error as StrataError where error.code == .typeMismatch && error.field != nil {
                // A value the destination type cannot read: the migrator starts that field at its default.
                throw Transform.Unreadable(column: error.field ?? "", error: error)
            }
            let before = keptApart ? FieldEncoder.collect(object) : nil
            try body(source, &object)
            var encoder = FieldEncoder(mode: .bind(insert, firstIndex: 2))
            object.encodeFields(to: &encoder)
            if let failure = encoder.failureError(entity: description) { throw failure }
            if let before, let field = changedKeptApartField(description, before: before, after: encoder) {
                throw StrataError(
                    .invalidMigration,
                    "The transform of \(description.name) changed \(field) of object \(source.id). A transform writes "
                        + "stored fields and to-one relationships only: to-many relationships arrive empty and are carried "
                        + "over unchanged, derived fields are computed when read. Change relationships in a .custom change "
                        + "of the step, or in a transaction after the migration.",
                    entity: description.name, field: field)
            }
        }))
    }

    /// The to-many relationship or derived field (its property name) that differs between the object
    /// before a transform (`before`) and after it (`after`), or nil.
    private static func changedKeptApartField(
        _ description: EntityDescription, before: FieldEncoder, after: FieldEncoder
    ) -> String? {
        for (index, ids) in after.relationships.enumerated() where index < before.relationships.count {
            if ids != before.relationships[index] { return description.toMany[index].property }
        }
        for (index, value) in after.derivedValues.enumerated() where index < before.derivedValues.count {
            if value != before.derivedValues[index] { return description.derived[index].property }
        }
        return nil
    }

    /// Deletes the objects of the source version's entity `name` for which `predicate` returns true,
    /// before they migrate (with their relationship rows).
    public static func deleteObjects(
        _ entity: String, where predicate: @escaping @Sendable (MigrationObject) throws -> Bool
    ) -> MigrationChange {
        MigrationChange(kind: .deleteObjects(entity: entity, where: predicate))
    }

    /// Free-form work for what the other changes cannot say (split a field into objects of a new
    /// entity, merge two entities, compute values across objects): `body` runs once, in the migration's
    /// transaction, after the step's other changes, when the store has the destination version's tables.
    ///
    /// It reads the source version's objects as they were before the step (``MigrationTransaction/sourceObjects(_:)``,
    /// every source entity, also those the step deletes) and creates, edits and deletes the destination
    /// version's objects through ``MigrationTransaction/transaction``, typed. A step with a `custom`
    /// change first copies its source tables aside (temporary tables, dropped when the step ends), so
    /// it costs one more copy of the data.
    public static func custom(_ body: @escaping @Sendable (MigrationTransaction) throws -> Void) -> MigrationChange {
        MigrationChange(kind: .custom(body))
    }
}
