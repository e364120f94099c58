/// Moving rows into a rebuilt table: in SQL, through a transform, or not at all (deleted objects).
extension Migrator {

    /// Copies the rows of a rebuilt table in chunks of ``chunk`` IDs, in SQL.
    func copy(
        _ table: MigrationPlan.Table, from source: String, to destination: EntityDescription,
        onRows: (Int) throws -> Void
    ) throws {
        let (expressions, values) = expressions(table)
        let columns = (["id"] + table.columns.map(\.column)).map(dialect.quote)
        let insert = try connection.makeStatement(
            "INSERT INTO \(dialect.quote(Self.newName(destination.name))) (\(columns.joined(separator: ", "))) "
                + "SELECT \"id\", \(expressions.joined(separator: ", ")) FROM \(dialect.quote(source)) "
                + "WHERE \"id\" > ? ORDER BY \"id\" LIMIT \(Self.chunk)")
        let last = try connection.makeStatement("SELECT max(\"id\") FROM \(dialect.quote(Self.newName(destination.name)))")
        var after: Int64 = .min
        while true {
            insert.reset()
            try insert.bind(values + [.integer(after)])
            _ = try insert.step()
            let copied = connection.changes
            guard copied > 0 else { return }
            last.reset()
            guard try last.step(), case .integer(let id) = last.value(at: 0) else { return }
            after = id
            try onRows(copied)
        }
    }

    /// Migrates each object of a table through the step's transform.
    func transform(
        _ table: MigrationPlan.Table, from source: EntityDescription, reading sourceTable: String,
        to destination: EntityDescription, onRows: (Int) throws -> Void
    ) throws {
        guard let transform = table.transform else { return }
        let fieldCount = destination.fields.count
        let (expressions, values) = expressions(table)
        // The destination object's row: ID, fields, to-many relationships (empty), derived fields (0);
        // then hidden position columns; then the source object's fields.
        let fieldExpressions = expressions.prefix(fieldCount)
        let hiddenExpressions = expressions.dropFirst(fieldCount)
        // Each field's value is named by its destination column: a value the destination type cannot
        // read is reported under that name.
        let namedFields = zip(fieldExpressions, destination.fields).map { "\($0) AS \(dialect.quote($1.column))" }
        let select = ["\"id\""] + namedFields
            + Array(repeating: "'[]'", count: destination.toMany.count) + Array(repeating: "0", count: destination.derived.count)
            + hiddenExpressions + source.fields.map { dialect.quote($0.column) }
        let query = try connection.makeStatement(
            "SELECT \(select.joined(separator: ", ")) FROM \(dialect.quote(sourceTable)) ORDER BY \"id\"")
        try query.bind(values)
        let columns = (["id"] + table.columns.map(\.column)).map(dialect.quote)
        let insert = try connection.makeStatement(
            "INSERT INTO \(dialect.quote(Self.newName(destination.name))) (\(columns.joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")")
        let hiddenStart = Int32(1 + fieldCount + destination.toMany.count + destination.derived.count)
        let sourceStart = hiddenStart + Int32(hiddenExpressions.count)
        var pending = 0
        let names = MigrationObject.FieldNames(source.fields.map(\.property))
        let sourceCount = Int32(source.fields.count)
        var copy: Statement?
        while try query.step() {
            guard case .integer(let id) = query.value(at: 0) else { continue }
            var old: [DatabaseValue] = []
            old.reserveCapacity(Int(sourceCount))
            for offset in 0..<sourceCount { old.append(query.value(at: sourceStart + offset)) }
            let object = MigrationObject(entity: source.name, id: id, names: names, values: old)
            insert.reset()
            try insert.bind(.integer(id), at: 1)
            do {
                try runReplacingUnreadable(
                    transform, query: query, columns: select.count, destination: destination, object, insert, copy: &copy)
            } catch let error as StrataError {
                throw error.with(entity: destination.name).adding(place: "transforming \(destination.name) object \(id)")
            } catch {
                throw MigrationError(entity: destination.name, objectID: id, underlying: error)
            }
            for offset in 0..<Int32(hiddenExpressions.count) {
                try insert.bind(query.value(at: hiddenStart + offset), at: Int32(2 + fieldCount) + offset)
            }
            do {
                _ = try insert.step()
            } catch where error.code == .uniqueConstraint {
                throw StrataError(
                    .invalidMigration,
                    "The .transform of \(destination.name) gave object \(id) a value that another object already has in a "
                        + "unique field (\(error.message)). Give each object a value of its own in the transform, or delete "
                        + "the duplicates with .deleteObjects in the step.",
                    entity: destination.name)
            } catch {
                throw error.with(entity: destination.name)
            }
            pending += 1
            if pending == 1_000 {
                try onRows(pending)
                pending = 0
            }
        }
        query.reset()
        if pending > 0 { try onRows(pending) }
    }

    /// Runs `transform` on the row `query` is on. When the destination object cannot be read because a
    /// field's value is not one its type can hold (the field's Swift type changed, or it became required),
    /// runs it again on a copy of the row with that field's default in its place, until it reads: the
    /// transform converts the field from the source object.
    private func runReplacingUnreadable(
        _ transform: MigrationChange.Transform, query: Statement, columns: Int, destination: EntityDescription,
        _ object: MigrationObject, _ insert: Statement, copy: inout Statement?
    ) throws {
        var row = Row(statement: query)
        var replaced: [Int: DatabaseValue] = [:]
        defer { copy?.reset() }
        while true {
            do {
                return try transform.run(row, object, insert)
            } catch let unreadable as MigrationChange.Transform.Unreadable {
                guard let index = destination.fields.firstIndex(where: { $0.column == unreadable.column }),
                    replaced[index] == nil
                else { throw unreadable.error }
                let field = destination.fields[index]
                // A dynamic initial value, the declared default, nil, or the type's zero, as a new field gets.
                replaced[index] = field.initialValue?.make() ?? field.defaultValue
                    ?? (field.isOptional ? .null : MigrationPlan.zero(field.storageClass))
                // A statement that selects the bound values, named as `query`'s columns: a row of its own,
                // made once per transform.
                if copy == nil {
                    let names = (0..<Int32(columns)).map { "?\($0 + 1) AS \(dialect.quote(query.columnName(at: $0)))" }
                    copy = try connection.makeStatement("SELECT " + names.joined(separator: ", "))
                }
                guard let copy else { return }
                copy.reset()
                var values = (0..<Int32(columns)).map { query.value(at: $0) }
                for (index, value) in replaced { values[1 + index] = value }
                try copy.bind(values)
                _ = try copy.step()
                row = Row(statement: copy)
            }
        }
    }

    /// Deletes the objects of a source entity that `predicate` selects, with their join rows, and clears
    /// to-one relationships that pointed at them; their IDs are never used again.
    /// Returns how many it deleted.
    @discardableResult
    func deleteObjects(
        _ entity: String, where predicate: @Sendable (MigrationObject) throws -> Bool, plan: MigrationPlan
    ) throws -> Int {
        guard let description = plan.source.entity(named: entity) else { return 0 }
        let query = try connection.makeStatement(
            "SELECT \"id\"" + description.fields.map { ", " + dialect.quote($0.column) }.joined()
                + " FROM \(dialect.quote(entity)) ORDER BY \"id\"")
        var doomed: [Int64] = []
        let names = MigrationObject.FieldNames(description.fields.map(\.property))
        while try query.step() {
            guard case .integer(let id) = query.value(at: 0) else { continue }
            let values = (0..<description.fields.count).map { query.value(at: Int32($0 + 1)) }
            let selected: Bool
            do {
                selected = try predicate(MigrationObject(entity: entity, id: id, names: names, values: values))
            } catch let error as StrataError {
                throw error.with(entity: entity).adding(place: "selecting \(entity) object \(id) for deletion")
            } catch {
                throw MigrationError(entity: entity, objectID: id, underlying: error)
            }
            if selected { doomed.append(id) }
        }
        query.reset()
        guard let largest = doomed.max() else { return 0 }
        let delete = try connection.makeStatement("DELETE FROM \(dialect.quote(entity)) WHERE \"id\" = ?")
        var cleanups: [Statement] = []
        for join in plan.sourceGraph.joinTables {
            if join.ownerTable == entity {
                cleanups.append(try connection.makeStatement("DELETE FROM \(dialect.quote(join.name)) WHERE \"source\" = ?"))
            }
            if join.otherTable == entity {
                cleanups.append(try connection.makeStatement("DELETE FROM \(dialect.quote(join.name)) WHERE \"target\" = ?"))
            }
        }
        for (other, toOnes) in plan.sourceGraph.toOne {
            for toOne in toOnes where toOne.target == entity {
                let column = dialect.quote(toOne.column)
                cleanups.append(try connection.makeStatement(
                    "UPDATE \(dialect.quote(other)) SET \(column) = NULL WHERE \(column) = ?"))
            }
        }
        for id in doomed {
            for statement in [delete] + cleanups {
                statement.reset()
                try statement.bind([.integer(id)])
                _ = try statement.step()
            }
        }
        try connection.execute(sql.raiseIDMark, [.text(SchemaSQL.idMarkKey(entity)), .text(String(largest))])
        return doomed.count
    }
}
