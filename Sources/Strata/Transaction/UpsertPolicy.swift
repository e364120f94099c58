/// What ``Transaction/upsertAll(_:from:uniqueBy:policy:_:)`` does to an object whose key already exists.
public struct UpsertPolicy<E: Entity>: Sendable {
    enum Kind: Sendable, Equatable {
        case all
        case fields([Int])
        case keep
        case invalid(String)
    }

    let kind: Kind

    /// Every field takes the new value (the key stays as it is).
    ///
    /// The new value of each field is what `configure` left on a new object: a field it does not set
    /// takes its default (or its `dynamicInitialValue`, such as a creation date), overwriting the stored
    /// value. To keep fields the source does not carry, name the others with ``update(_:)``.
    public static var updateAll: UpsertPolicy { UpsertPolicy(kind: .all) }

    /// The existing object is kept as it is; the source is skipped.
    public static var keepExisting: UpsertPolicy { UpsertPolicy(kind: .keep) }

    /// Only these fields take the new value.
    public static func update(_ fields: PartialKeyPath<E>...) -> UpsertPolicy {
        var indices: [Int] = []
        for keyPath in fields {
            guard case .field(let index) = E.member(for: keyPath) else {
                return UpsertPolicy(kind: .invalid("\(keyPath) is not a stored field of \(E.self)"))
            }
            indices.append(index)
        }
        return UpsertPolicy(kind: .fields(indices))
    }
}

extension Transaction {
    /// Inserts an object per source in one call (Core Data's `NSBatchInsertRequest`), each filled by
    /// `configure`; returns their IDs (``ImportResult/insertedIDs``, in source order). Unlike Core
    /// Data's batch requests nothing bypasses Strata: observers and the commit's change set see every
    /// object.
    ///
    /// - Throws: ``ImportError`` naming the index of the source that failed; nothing the call wrote is
    ///   kept (the call applies all its sources or none, also when the error is caught).
    @discardableResult
    public func insertAll<E: Entity, S: Sequence>(
        _ into: Into<E>, from sources: S, _ configure: (S.Element, inout E) throws -> Void
    ) throws -> ImportResult<E> {
        try checkOpen()
        if let target = try routed(into) { return try inStore(target) { try insertAll(into, from: sources, configure) } }
        return try atomically {
            var result = ImportResult<E>()
            var index = 0
            for source in sources {
                try importing(E.self, index) {
                    result.insertedIDs.append(try create(into) { try configure(source, &$0) }.id)
                }
                index += 1
            }
            return result
        }
    }

    /// Inserts an object per source, or, when an object with the same value of the unique field `key`
    /// exists, updates it as `policy` says: SQLite's `INSERT … ON CONFLICT (key) DO UPDATE`, one
    /// statement per source. Returns the IDs inserted and updated; observers and the commit's change set
    /// see them all. An update's fields in the result are those the policy writes. An existing object
    /// that already holds the source's values in every field the policy writes is not written: it
    /// counts in ``ImportResult/unchanged``. With ``UpsertPolicy/keepExisting`` (or a policy that names
    /// the key alone), a source whose key exists counts in ``ImportResult/skipped``. The result's
    /// ``ImportResult/objects`` stay empty: an upsert returns IDs, not objects.
    ///
    /// `configure` fills a new object, whether the row is then inserted or updated: with the default
    /// ``UpsertPolicy/updateAll``, a field it leaves alone is written with its default value on update
    /// too. Use ``UpsertPolicy/update(_:)`` to write only the fields the sources carry.
    ///
    /// Sources apply in order, each against what the ones before it wrote, as the statements would one
    /// after the other: a key given twice is inserted by the first source and updated by the second
    /// (its ID is in ``ImportResult/insertedIDs`` and ``ImportResult/updated``; with
    /// ``UpsertPolicy/keepExisting`` the second is skipped). Unlike ``importUniqueObjects(_:from:)``,
    /// no source is superseded: each counts once, as inserted, updated, unchanged or skipped.
    ///
    /// Whether a field differs is decided in SQL (`IS NOT`), where `-0.0` equals `0.0`: an upsert that
    /// only changes the sign of a zero writes nothing and keeps the stored sign (the object counts as
    /// unchanged). ``Transaction/edit(_:_:)-(E,_)`` compares the stored bits and writes it.
    ///
    /// It writes rows directly, so it takes entities without relationships and derived fields of their
    /// own (they may be the target of other entities' relationships); import others with
    /// ``importUniqueObjects(_:from:)``. A source whose key is `nil` (an optional key) is always
    /// inserted: SQLite's `NULL`s never conflict.
    ///
    /// The key is one field: a unique constraint over several fields (``Unique(_:)``) is not a key here
    /// (a one-field `#Unique` list is, being the field's ``FieldOption/unique``). A source that breaks
    /// such a constraint fails the call with an ``ImportError`` whose `underlying` error is a
    /// ``StrataError/Code/uniqueConstraint`` naming its fields (``StrataError/fields``).
    ///
    /// - Throws: ``StrataError/Code/invalidArgument`` for a key that is not a field declared
    ///   `@Field(.unique)`, a policy naming something that is not a field, or an entity with
    ///   relationships; ``ImportError`` naming the index of the source that failed.
    @discardableResult
    public func upsertAll<E: Entity, Key: DatabaseValueConvertible, S: Sequence>(
        _ into: Into<E>, from sources: S, uniqueBy key: KeyPath<E, Key>, policy: UpsertPolicy<E> = .updateAll,
        _ configure: (S.Element, inout E) throws -> Void
    ) throws -> ImportResult<E> {
        try checkOpen()
        if let target = try routed(into) {
            return try inStore(target) { try upsertAll(into, from: sources, uniqueBy: key, policy: policy, configure) }
        }
        guard let plan = try upsertPlan(E.self, key: key, policy: policy) else { return ImportResult() }
        let description = plan.description
        return try atomically {
            var result = ImportResult<E>()
            var index = -1
            try connection.noteRowChanges(of: description.name) { notes in
                for source in sources {
                    index += 1
                    try importing(E.self, index) {
                        var object = E(newObject: NewObject())
                        try asCaller { try configure(source, &object) }
                        plan.statement.reset()
                        var encoder = FieldEncoder(mode: .bind(plan.statement, firstIndex: 2))
                        object.encodeFields(to: &encoder)
                        if let foreign = encoder.foreignIDError(storeTag: connection.storeTag, entity: description) { throw foreign }
                        if let failure = encoder.failureError(entity: description) { throw failure }
                        var givenID: Int64?
                        if plan.idFirst {
                            let id = try ids.allocate(description.name, connection)
                            try plan.statement.bind(.integer(id), at: 1)
                            givenID = id
                        }
                        notes.pointee.clear()
                        connection.clearLastInsertRowID()
                        do {
                            while try plan.statement.step() {}
                        } catch {
                            throw describeConstraint(error, entity: description)
                        }
                        guard let (inserted, rowID) = try upsertOutcome(notes.pointee, plan, key: { object[keyPath: key] }) else {
                            // The key existed, and the policy writes no field (the source is skipped) or
                            // the row held the values of those it writes (it is unchanged).
                            if let givenID { ids.giveBack(description.name, givenID) }
                            if plan.writtenFields.isEmpty { result.skipped += 1 } else { result.unchanged += 1 }
                            return
                        }
                        if inserted {
                            let id = try givenID ?? ids.allocate(description.name, connection)
                            if rowID != id { try moveRow(plan.table, from: rowID, to: id) }
                            recordInsert(entity: description.name, id: id)
                            result.insertedIDs.append(EntityID(rawValue: id, storeTag: connection.storeTag))
                        } else {
                            if let givenID { ids.giveBack(description.name, givenID) }
                            recordUpdate(entity: description.name, id: rowID, fields: plan.writtenFields)
                            // Objects whose derived fields sum or bound this entity's values changed too.
                            try recordDerivedDependents(description.name, rowID, changed: plan.writtenFields)
                            result.updated.append((EntityID(rawValue: rowID, storeTag: connection.storeTag), plan.writtenFields))
                        }
                    }
                }
            }
            return result
        }
    }

    /// What an `upsertAll` call prepares once for all its sources.
    private struct UpsertPlan {
        let description: EntityDescription
        /// The property names of the fields an update writes.
        let writtenFields: Set<String>
        /// The upsert; its parameter 1 is the ID, the fields follow.
        let statement: Statement
        /// Finds a row's ID by its key (see ``upsertOutcome(_:_:key:)``).
        let findID: Statement
        /// The table, qualified.
        let table: String
        /// Whether each source takes its ID before the upsert, rather than the inserted row after it.
        let idFirst: Bool
    }

    /// Checks `upsertAll`'s arguments and prepares its statements; `nil` when `key` names no field.
    private func upsertPlan<E: Entity, Key>(
        _ type: E.Type, key: KeyPath<E, Key>, policy: UpsertPolicy<E>
    ) throws(StrataError) -> UpsertPlan? {
        let entity = try store.entity(E.self)
        let description = entity.description
        try requireUniqueField(key, entity)
        guard case .field(let keyIndex) = E.member(for: key) else { return nil }
        if case .invalid(let reason) = policy.kind {
            throw StrataError(.invalidArgument, "The upsert policy names \(reason).", entity: description.name)
        }
        guard entity.toOnes.isEmpty, description.toMany.isEmpty, description.derived.isEmpty else {
            throw StrataError(
                .invalidArgument,
                "upsertAll writes rows directly and takes entities without relationships or derived fields of their own; "
                    + "\(description.name) has some. Import it with importUniqueObjects, which follows them.",
                entity: description.name)
        }
        let written: [Int] =
            switch policy.kind {
            case .all: description.fields.indices.filter { $0 != keyIndex }
            case .fields(let indices): indices.filter { $0 != keyIndex }
            case .keep, .invalid: []
            }
        let statement = try connection.cachedStatement(upsertSQL(description, key: keyIndex, written: written))
        let table = store.builder.qualified(description.name)
        let keyColumn = SQLiteDialect().quote(description.fields[keyIndex].column)
        // SQLite picks a new row's ID when none is given (one more than the table's largest), which
        // saves the statement a lookup of the given ID. The allocator's ID is taken once the row is in,
        // only for an insert, and the row moves to it when they differ (an object with a larger ID was
        // deleted before: its ID is never used again). An entity whose IDs span several stores takes
        // its ID first, as every creation does: its table alone does not know the next one.
        let idFirst = ids.spansStores(description.name)
        if !idFirst {
            try ids.prepare(description.name, connection)
            try statement.bind(.null, at: 1)
        }
        return UpsertPlan(
            description: description, writtenFields: Set(written.map { description.fields[$0].property }),
            statement: statement,
            findID: try connection.cachedStatement("SELECT \"id\" FROM \(table) WHERE \(keyColumn) = ?"),
            table: table, idFirst: idFirst)
    }

    /// What an upsert did: inserted or updated the row with the row ID, or `nil` when it changed no row.
    /// The update hook saw that one row, or none; more than one, or one of another table (a trigger of
    /// another program's changed other rows too) leaves the outcome to SQLite's counts (which ignore
    /// triggers), and an updated row to be found by its key.
    private func upsertOutcome<Key: DatabaseValueConvertible>(
        _ changes: RowChanges, _ plan: UpsertPlan, key: () -> Key
    ) throws(StrataError) -> (inserted: Bool, rowID: Int64)? {
        let findID = plan.findID
        switch changes.count {
        case 0: return nil
        // One row changed, of this table: the statement's own (a trigger that changed a row of another
        // table, even when the upsert did nothing, takes the way below).
        case 1 where !changes.elsewhere: return (changes.inserted, changes.rowID)
        default:
            let inserted = connection.lastInsertRowID
            if inserted != 0 { return (true, inserted) }
            guard connection.changes > 0 else { return nil }
            findID.reset()
            defer { findID.reset() }
            try findID.bind(key().databaseValue, at: 1)
            guard try findID.step(), case .integer(let id) = findID.value(at: 0) else {
                throw StrataError(
                    .notFound, "The row an upsert updated is gone: a trigger on its table deleted it. Drop that trigger.",
                    entity: plan.description.name)
            }
            return (false, id)
        }
    }

    /// Gives a row just inserted the ID the allocator chose for it.
    private func moveRow(_ table: String, from rowID: Int64, to id: Int64) throws(StrataError) {
        let statement = try connection.cachedStatement("UPDATE \(table) SET \"id\" = ? WHERE \"id\" = ?")
        defer { statement.reset() }
        try statement.bind([.integer(id), .integer(rowID)])
        while try statement.step() {}
    }

    /// `INSERT … ON CONFLICT (key) DO UPDATE SET <written> … WHERE <any written differs>`, or `DO NOTHING`
    /// when nothing is written. No `RETURNING`: SQLite runs it through a temporary table per execution,
    /// which cost more than the whole insert; the outcome is read from the row counts instead.
    private func upsertSQL(_ entity: EntityDescription, key: Int, written: [Int]) -> String {
        let dialect = SQLiteDialect()
        let insert = store.builder.insert(entity)
        let conflict = " ON CONFLICT (\(dialect.quote(entity.fields[key].column)))"
        guard !written.isEmpty else { return insert + conflict + " DO NOTHING" }
        let columns = written.map { dialect.quote(entity.fields[$0].column) }
        let assignments = columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let differs = columns.map { "\($0) IS NOT excluded.\($0)" }.joined(separator: " OR ")
        return insert + conflict + " DO UPDATE SET \(assignments) WHERE \(differs)"
    }
}
