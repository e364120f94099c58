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
    /// - Throws: ``ImportError`` naming the index of the source that failed; the transaction rolls back.
    @discardableResult
    public func insertAll<E: Entity, S: Sequence>(
        _ into: Into<E>, from sources: S, _ configure: (S.Element, inout E) throws -> Void
    ) throws -> ImportResult<E> {
        try checkOpen()
        if let target = try routed(into) { return try inStore(target) { try insertAll(into, from: sources, configure) } }
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

    /// Inserts an object per source, or, when an object with the same value of the unique field `key`
    /// exists, updates it as `policy` says: SQLite's `INSERT … ON CONFLICT (key) DO UPDATE`, one
    /// statement per source. Returns the IDs inserted and updated (an update that would change nothing
    /// is skipped); observers and the commit's change set see them all. An update's fields in the result
    /// are those the policy writes.
    ///
    /// `configure` fills a new object, whether the row is then inserted or updated: with the default
    /// ``UpsertPolicy/updateAll``, a field it leaves alone is written with its default value on update
    /// too. Use ``UpsertPolicy/update(_:)`` to write only the fields the sources carry.
    ///
    /// It writes rows directly, so it takes entities without relationships and derived fields of their
    /// own (they may be the target of other entities' relationships); import others with
    /// ``importUniqueObjects(_:from:)``. A source whose key is `nil` (an optional key) is always
    /// inserted: SQLite's `NULL`s never conflict.
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
        let entity = try store.entity(E.self)
        let description = entity.description
        try requireUniqueField(key, entity)
        guard case .field(let keyIndex) = E.member(for: key) else { return ImportResult() }
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
        let writtenFields = Set(written.map { description.fields[$0].property })
        let statement = try connection.cachedStatement(upsertSQL(description, key: keyIndex, written: written))
        let keyColumn = SQLiteDialect().quote(description.fields[keyIndex].column)
        let findID = try connection.cachedStatement(
            "SELECT \"id\" FROM \(store.builder.qualified(description.name)) WHERE \(keyColumn) = ?")
        var result = ImportResult<E>()
        var index = -1
        try connection.noteRowChanges { notes in
            for source in sources {
                index += 1
                try importing(E.self, index) {
                    var object = E(newObject: NewObject())
                    try configure(source, &object)
                    statement.reset()
                    var encoder = FieldEncoder(mode: .bind(statement, firstIndex: 2))
                    object.encodeFields(to: &encoder)
                    if let foreign = encoder.foreignIDError(storeTag: connection.storeTag, entity: description) { throw foreign }
                    if let failure = encoder.failure {
                        let field = encoder.failedField.flatMap { $0 < description.fields.count ? description.fields[$0].property : nil }
                        throw failure.with(entity: description.name, field: field)
                    }
                    let newID = try ids.allocate(description.name, connection)
                    try statement.bind(.integer(newID), at: 1)
                    notes.pointee.clear()
                    do {
                        while try statement.step() {}
                    } catch {
                        throw describeConstraint(error, entity: description)
                    }
                    // The update hook saw the one row the upsert changed, or none: the key existed and
                    // the policy kept it, or nothing differed. More than one (a trigger of the user's
                    // changed others) leaves the row to be found by its key.
                    let changed = notes.pointee
                    if changed.count == 0 {
                        ids.giveBack(description.name, newID)
                        result.skipped += 1
                    } else if changed.count == 1, changed.inserted, changed.rowID == newID {
                        recordInsert(entity: description.name, id: newID)
                        result.insertedIDs.append(EntityID(rawValue: newID, storeTag: connection.storeTag))
                    } else {
                        let id = try changed.count == 1 ? changed.rowID : rowID(of: object[keyPath: key], findID, inserted: newID)
                        if id != newID { ids.giveBack(description.name, newID) }
                        if id == newID {
                            recordInsert(entity: description.name, id: newID)
                            result.insertedIDs.append(EntityID(rawValue: newID, storeTag: connection.storeTag))
                        } else {
                            recordUpdate(entity: description.name, id: id, fields: writtenFields)
                            result.updated.append((EntityID(rawValue: id, storeTag: connection.storeTag), writtenFields))
                        }
                    }
                }
            }
        }
        return result
    }

    /// The row ID of the row holding `key`, after an upsert whose row changes the update hook could not
    /// tell apart (`inserted` when no row holds it, which cannot happen right after the upsert).
    private func rowID(of key: some DatabaseValueConvertible, _ findID: Statement, inserted: Int64) throws(StrataError) -> Int64 {
        findID.reset()
        defer { findID.reset() }
        try findID.bind(key.databaseValue, at: 1)
        guard try findID.step(), case .integer(let id) = findID.value(at: 0) else { return inserted }
        return id
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
