import Foundation

/// What one step of a migration does to each table, worked out from the two schemas and the step's
/// declared changes alone (no data): the planner refuses what it cannot do without losing data.
struct MigrationPlan {
    /// How a destination column gets its values from the source table.
    enum ColumnSource {
        /// A source column, possibly converted, with `fill` for its `NULL`s.
        case column(String, convert: Conversion?, fill: DatabaseValue?, checkNulls: Bool)
        /// A value for every row (a new field's default or fill, or `NULL`).
        case value(DatabaseValue)
        /// A fresh value per row: a new field's dynamic initial value.
        case perRow(@Sendable () -> DatabaseValue)
    }

    /// How a column's values change type, exactly (a migration infers no conversion that changes a value).
    enum Conversion: Equatable {
        /// `CAST(column AS type)`.
        case cast(String)
        /// A `Bool`'s 0 and 1 as Swift prints them: `false`, `true`.
        case boolText
        /// A number as Swift prints a `Double`, or a `Float` (`strata_real_text`).
        case realText(float: Bool)
    }

    /// Values a conversion could not keep exactly: the rows where `condition` (SQL over the source column)
    /// holds refuse the step.
    struct Exactness {
        let column: String
        let property: String
        let condition: String
        let reason: String
    }

    /// What happens to one entity's table.
    enum Action: Sendable {
        /// A new entity: its table is created empty.
        case create
        /// The table stays as it is (perhaps renamed, with columns added or renamed and indexes changed).
        case alter
        /// A new table is made and the rows are copied over in SQL.
        case rebuild
        /// A new table is made and each object goes through the user's transform.
        case transform
        /// The entity is dropped with its objects (declared by the step).
        case delete
    }

    struct Table {
        let action: Action
        /// The destination entity (`nil` for a deleted entity).
        let destination: EntityDescription?
        /// The source entity (`nil` for a new entity).
        let source: EntityDescription?
        /// For rebuilds and transforms: every destination column (fields, then hidden position columns)
        /// and where its values come from.
        var columns: [(column: String, source: ColumnSource)] = []
        /// For alters: columns renamed (old, new) and columns added (definition with its default).
        var renamedColumns: [(old: String, new: String)] = []
        var addedColumns: [String] = []
        /// Destination columns that become unique: checked for duplicates before the copy.
        var newlyUnique: [String] = []
        /// Source values an inferred conversion could not keep exactly (checked before anything is copied).
        var exactness: [Exactness] = []
        /// The fields and relationships the step removes (with their values), adds and renames.
        var fieldChanges = FieldChanges()
        /// The transform, for `.transform`.
        var transform: MigrationChange.Transform?
        /// Fields whose new Swift type reads the values they keep, checked once the step has run.
        var readChecks: [ReadCheck] = []

        var name: String { destination?.name ?? source?.name ?? "" }
    }

    /// What happens to a join table of a to-many relationship.
    enum JoinAction {
        case keep(source: String, destination: SchemaGraph.JoinTable)
        case create(SchemaGraph.JoinTable)
        case drop(String)
    }

    let source: Schema
    let destination: Schema
    let sourceGraph: SchemaGraph
    let destinationGraph: SchemaGraph
    var tables: [Table] = []
    var joins: [JoinAction] = []
    /// To-many relationships whose links move to another storage.
    var linkMoves: [LinkMove] = []
    /// Ordered relationships that were sets: their positions are numbered by related ID.
    var renumbered: [SchemaGraph.ToMany] = []
    /// Per source entity, the objects to delete first.
    var deletions: [(entity: String, predicate: @Sendable (MigrationObject) throws -> Bool)] = []
    /// Entity renames, source name to destination name.
    var entityRenames: [String: String] = [:]
    /// The step's free-form changes, run last.
    var customs: [@Sendable (MigrationTransaction) throws -> Void] = []

    private let sql = SchemaSQL()

    /// The plan of the step from `source` to `destination`; `otherSources` are the other versions that
    /// migrate to `destination` (a tree chain), with their steps.
    init(source: Schema, destination: Schema, step: MigrationStep?, otherSources: [OtherSource] = []) throws(StrataError) {
        self.source = source
        self.destination = destination
        sourceGraph = try SchemaGraph(schema: source)
        destinationGraph = try SchemaGraph(schema: destination)
        let changes = step?.changes.map(\.kind) ?? []
        let label = "\(source.version) → \(destination.version)"
        func fail(_ message: String, entity: String? = nil, field: String? = nil) -> StrataError {
            StrataError(.invalidMigration, "Migration \(label): \(message)", entity: entity, field: field)
        }

        // Entity renames and deletions.
        var deleted: Set<String> = []
        var fieldRenames: [String: [String: String]] = [:]   // destination entity: destination field → source field
        var fills: [String: [String: DatabaseValue]] = [:]
        var transforms: [String: MigrationChange.Transform] = [:]
        for change in changes {
            switch change {
            case .renameEntity(let old, let new):
                guard source.entity(named: old) != nil else {
                    throw fail("renameEntity names \(old), which version \(source.version) does not have.", entity: old)
                }
                guard destination.entity(named: new) != nil else {
                    throw fail("renameEntity names \(new), which version \(destination.version) does not have.", entity: new)
                }
                entityRenames[old] = new
            case .deleteEntity(let name):
                guard source.entity(named: name) != nil else {
                    throw fail("deleteEntity names \(name), which version \(source.version) does not have.", entity: name)
                }
                deleted.insert(name)
            case .renameField(let entity, let old, let new):
                fieldRenames[entity, default: [:]][new] = old
            case .fill(let entity, let field, let value):
                guard fills[entity]?[field] == nil else {
                    throw fail("the step fills \(entity).\(field) twice; keep one .fill for it.", entity: entity)
                }
                fills[entity, default: [:]][field] = value
            case .transform(let entity, let transform):
                guard transforms[entity] == nil else {
                    throw fail("the step transforms \(entity) twice; do all of it in one .transform.", entity: entity)
                }
                transforms[entity] = transform
            case .deleteObjects(let entity, let predicate):
                guard source.entity(named: entity) != nil else {
                    throw fail("deleteObjects names \(entity), which version \(source.version) does not have.", entity: entity)
                }
                deletions.append((entity, predicate))
            case .custom(let body):
                customs.append(body)
            }
        }
        // Renames declared on the destination's types (`renamedFrom:`), where the step says nothing.
        let sourceOf = try resolveDeclaredRenames(fieldRenames: &fieldRenames, deleted: deleted, otherSources: otherSources, fail: fail)
        var used: Set<String> = []
        for entity in destination.entities {
            let sourceName = sourceOf[entity.name] ?? (source.entity(named: entity.name) != nil && entityRenames[entity.name] == nil ? entity.name : nil)
            guard let sourceName, let old = source.entity(named: sourceName), !deleted.contains(sourceName) else {
                tables.append(Table(action: .create, destination: entity, source: nil))
                continue
            }
            used.insert(sourceName)
            tables.append(try plan(
                entity, from: old, renames: fieldRenames[entity.name] ?? [:], fills: fills[entity.name] ?? [:],
                transform: transforms[entity.name], fail: fail))
        }
        for entity in source.entities where !used.contains(entity.name) {
            guard deleted.contains(entity.name) else {
                if let keys = destination.elsewhere[entity.name] {
                    let names = keys.map { $0.isEmpty ? "nil (the default one)" : "\"\($0)\"" }.joined(separator: ", ")
                    throw fail(
                        "version \(destination.version) keeps \(entity.name) in configuration \(names), not in this store, and "
                            + "objects do not move between stores. Declare .deleteEntity(\"\(entity.name)\") to drop this store's "
                            + "\(entity.name) objects (copy them first, through a stack at version \(source.version), to keep them).",
                        entity: entity.name)
                }
                // A new entity's `renamedFrom:` that names no entity here: most likely this one, misspelled.
                let misspelled = destination.entities.filter { new in
                    new.renamedFrom.map { source.entity(named: $0) == nil } == true && source.entity(named: new.name) == nil
                }.map { " (\($0.name) declares @Entity(renamedFrom: \"\($0.renamedFrom ?? "")\"), a name version \(source.version) does not have)" }
                throw fail(
                    "version \(destination.version) has no entity \(entity.name)\(misspelled.joined()). Declare .deleteEntity(\"\(entity.name)\") "
                        + "to drop it and its objects, or .renameEntity(from: \"\(entity.name)\", to: ...) if it was renamed.",
                    entity: entity.name)
            }
            tables.append(Table(action: .delete, destination: nil, source: entity))
        }
        for (entity, _) in fieldRenames where destination.entity(named: entity) == nil {
            throw fail("renameField names entity \(entity), which version \(destination.version) does not have.", entity: entity)
        }
        // A fill of an entity the new version does not have would fill nothing (its objects keep the
        // default): the old name of a renamed entity, most likely.
        for (entity, _) in fills where destination.entity(named: entity) == nil {
            let renamed = entityRenames[entity].map { " \(entity) becomes \($0) in this step: fill \($0)'s field." } ?? ""
            throw fail("fill names entity \(entity), which version \(destination.version) does not have.\(renamed)", entity: entity)
        }
        for (entity, transform) in transforms {
            guard let target = destination.entity(named: entity) else {
                throw fail("transform names entity \(entity), which version \(destination.version) does not have.", entity: entity)
            }
            // The transform decodes rows with its type's columns and writes them into the new table: a
            // type of another version (a copy of the struct before an edit) reads the wrong columns.
            guard transform.entity == target else {
                throw fail(
                    "the transform of \(entity) takes a type whose fields differ from \(entity) in version "
                        + "\(destination.version) (\(Self.fieldList(transform.entity)) against \(Self.fieldList(target))). "
                        + "Pass the type of version \(destination.version): the one its Schema lists.",
                    entity: entity)
            }
        }
        planJoins(fieldRenames: fieldRenames, sourceOf: sourceOf, deleted: deleted)
        try planRelationships(fieldRenames: fieldRenames, sourceOf: sourceOf, deleted: deleted, fail: fail)
        noteToManyChanges(fieldRenames: fieldRenames)
    }

    /// The plan of one entity that exists in both versions.
    private func plan(
        _ entity: EntityDescription, from old: EntityDescription, renames: [String: String], fills: [String: DatabaseValue],
        transform: MigrationChange.Transform?, fail: (String, String?, String?) -> StrataError
    ) throws(StrataError) -> Table {
        for (new, oldName) in renames {
            guard entity.fields.contains(where: { $0.property == new || $0.column == new })
                || entity.toMany.contains(where: { $0.property == new }) else {
                throw fail("renameField names \(entity.name).\(new), which does not exist.", entity.name, new)
            }
            guard old.fields.contains(where: { $0.property == oldName || $0.column == oldName })
                || old.toMany.contains(where: { $0.property == oldName }) else {
                throw fail("renameField names \(old.name).\(oldName) of version \(source.version), which does not exist.", old.name, oldName)
            }
        }
        for (name, value) in fills {
            guard let field = entity.fields.first(where: { $0.property == name || $0.column == name }) else {
                throw fail("fill names \(entity.name).\(name), which does not exist.", entity.name, name)
            }
            // A value of another kind would be stored as it is, and every read of the field would fail.
            // `nil` for a required field would reach the store's NOT NULL constraint when the rows are copied.
            guard let kind = value.storageClass else {
                // Only where the fill is used (a field added, or one that was optional): else it fills nothing.
                let oldName = renames[field.property] ?? renames[field.column] ?? field.property
                let oldField = old.fields.first { $0.property == oldName || $0.column == oldName }
                guard field.isOptional || (oldField.map { !$0.isOptional } ?? false) else {
                    throw fail(
                        "fill gives \(entity.name).\(field.property) nil, but the field is required. Fill it with a value "
                            + "of its type, or declare the field optional.",
                        entity.name, field.property)
                }
                continue
            }
            guard kind == field.storageClass || (kind == .integer && field.storageClass == .real) else {
                throw fail(
                    "fill gives \(entity.name).\(field.property) \(value), a value of kind \(kind.rawValue), but the field "
                        + "stores \(field.storageClass.rawValue) values; fill it with a value of the field's type.",
                    entity.name, field.property)
            }
        }
        var table = Table(action: transform == nil ? .alter : .transform, destination: entity, source: old)
        table.transform = transform
        var matchedSource: Set<String> = []
        var needsRebuild = transform != nil
        let destinationDefinitions = Dictionary(
            sql.columnDefinitions(entity, graph: destinationGraph).map { ($0.column, $0.definition) }, uniquingKeysWith: { a, _ in a })
        let sourceDefinitions = Dictionary(
            sql.columnDefinitions(old, graph: sourceGraph, referenced: { entityRenames[$0] ?? $0 }).map { ($0.column, $0.definition) },
            uniquingKeysWith: { a, _ in a })
        // The old fields a rename takes: a field of the new version that has the same name without a
        // rename of its own is another, new field (`title` renamed to `headline`, and a new `title`).
        let renamedSources = Set(renames.values)
        let unclaimed = { (old: FieldDescription) in
            !renamedSources.contains(old.property) && !renamedSources.contains(old.column)
        }
        for field in entity.fields {
            let fill = fills[field.property] ?? fills[field.column]
            let renamed = renames[field.property] ?? renames[field.column]
            let match: FieldDescription? =
                if let renamed { old.fields.first { $0.property == renamed } ?? old.fields.first { $0.column == renamed } }
                else {
                    old.fields.first { $0.column == field.column && unclaimed($0) }
                        ?? old.fields.first { $0.property == field.property && unclaimed($0) }
                }
            guard let match else {
                table.fieldChanges.added.append(field.property)
                // A new field with a dynamic initial value and no fill: a fresh value per object, as a
                // created object gets (a table rebuilt, since ALTER TABLE takes one default for all).
                if fill == nil, let initial = field.initialValue, transform == nil {
                    table.columns.append((field.column, .perRow(initial.make)))
                    if field.isUnique { table.newlyUnique.append(field.column) }
                    needsRebuild = true
                    continue
                }
                // A new field: its default, its fill, or nil.
                guard let value = fill ?? field.defaultValue ?? (field.isOptional ? .null : nil) else {
                    if transform != nil {
                        table.columns.append((field.column, .value(Self.zero(field.storageClass))))
                        continue
                    }
                    throw fail(
                        "\(entity.name).\(field.property) is new and required, without a default value. Declare "
                            + ".fill(\"\(entity.name)\", \"\(field.property)\", with: ...) for the existing objects.",
                        entity.name, field.property)
                }
                table.columns.append((field.column, .value(value)))
                if field.isUnique { table.newlyUnique.append(field.column) }
                if let definition = destinationDefinitions[field.column], !field.isUnique,
                    let literal = Self.literal(value), !(value.isNull && !field.isOptional)
                {
                    table.addedColumns.append(definition + (value.isNull ? "" : " DEFAULT \(literal)"))
                } else {
                    needsRebuild = true
                }
                continue
            }
            matchedSource.insert(match.column)
            if match.property != field.property { table.fieldChanges.renamed.append((match.property, field.property)) }
            // A kind or type change inference can do, or a refusal.
            var convert: Conversion?
            if match.storageClass != field.storageClass {
                let inferred = Self.conversion(from: match, to: field, entity: entity.name, checked: transform == nil)
                switch inferred {
                case .converted(let conversion, let exactness):
                    convert = conversion
                    if let exactness { table.exactness.append(exactness) }
                case .refused(let reason):
                    guard transform != nil else {
                        throw fail(
                            "\(entity.name).\(field.property) changes from \(match.storageClass.rawValue) to "
                                + "\(field.storageClass.rawValue), \(reason). Convert it in a .transform.",
                            entity.name, field.property)
                    }
                    table.columns.append((field.column, .value(Self.zero(field.storageClass))))
                    continue
                }
            } else if transform == nil, customs.isEmpty, let change = Self.sameColumnChange(from: match, to: field) {
                // A transform reads the old values itself, and a custom change of the step may rewrite them.
                switch change {
                case .checked(let exactness): table.exactness.append(exactness)
                case .refused(let reason):
                    let message = "\(entity.name).\(field.property) changes between a Date and a number, \(reason)."
                    throw fail(message + " Convert it in a .transform.", entity.name, field.property)
                }
            }
            if transform == nil, let check = Self.readCheck(from: match, to: field) { table.readChecks.append(check) }
            if !Self.sameKind(match.kind, field.kind, sourceGraphName: { sourceEntity in
                entityRenames[sourceEntity] ?? sourceEntity
            }, source: source, destination: destination), transform == nil {
                throw fail(
                    "\(entity.name).\(field.property) changes its kind (a value, a coded value or a relationship, or the "
                        + "entity a relationship points to). Convert it in a .transform.",
                    entity.name, field.property)
            }
            let becomesRequired = match.isOptional && !field.isOptional
            // A fill gives a value to the objects that have none: of a field that becomes required, or that
            // stays optional (a required one has none to fill).
            let fillsNils = fill != nil && field.isOptional
            table.columns.append((field.column, .column(
                match.column, convert: convert, fill: becomesRequired || fillsNils ? fill : nil, checkNulls: becomesRequired)))
            if field.isUnique && !match.isUnique { table.newlyUnique.append(field.column) }
            if match.column != field.column { table.renamedColumns.append((match.column, field.column)) }
            let renamedDefinition = sourceDefinitions[match.column].map {
                SQLiteDialect().quote(field.column) + $0.dropFirst(SQLiteDialect().quote(match.column).count)
            }
            if convert != nil || becomesRequired || fillsNils || renamedDefinition != destinationDefinitions[field.column] {
                needsRebuild = true
            }
        }
        // Hidden position columns of ordered relationships, carried over with their foreign key (renamed
        // with it).
        let sourcePositions = sourceGraph.positionColumns[old.name] ?? []
        for hidden in destinationGraph.positionColumns[entity.name] ?? [] {
            let foreignKey = String(hidden.dropLast(SchemaGraph.positionSuffix.count))
            let sourceForeignKey: String? =
                switch table.columns.first(where: { $0.column == foreignKey })?.source {
                case .column(let column, _, _, _): column
                default: nil
                }
            if let sourceForeignKey, case let sourceHidden = sourceForeignKey + SchemaGraph.positionSuffix,
                sourcePositions.contains(sourceHidden)
            {
                matchedSource.insert(sourceHidden)
                table.columns.append((hidden, .column(sourceHidden, convert: nil, fill: nil, checkNulls: false)))
                if sourceHidden != hidden { table.renamedColumns.append((sourceHidden, hidden)) }
            } else {
                table.columns.append((hidden, .value(.null)))
                table.addedColumns.append(destinationDefinitions[hidden] ?? "\"\(hidden)\" INTEGER")
            }
        }
        // Columns the destination drops (fields removed, or position columns no longer needed).
        table.fieldChanges.removed = old.fields.filter { !matchedSource.contains($0.column) }.map(\.property)
        let sourceColumns = old.fields.map(\.column) + (sourceGraph.positionColumns[old.name] ?? [])
        if sourceColumns.contains(where: { !matchedSource.contains($0) }) { needsRebuild = true }
        if needsRebuild && table.action == .alter {
            var rebuild = Table(
                action: .rebuild, destination: entity, source: old, columns: table.columns, newlyUnique: table.newlyUnique)
            (rebuild.exactness, rebuild.fieldChanges, rebuild.readChecks) = (table.exactness, table.fieldChanges, table.readChecks)
            return rebuild
        }
        return table
    }
}
