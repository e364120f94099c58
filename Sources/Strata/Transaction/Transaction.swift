import Foundation

/// The one place where objects are created, edited and deleted.
///
/// You get a `Transaction` inside ``DataStack/perform(_:)``: the closure runs on the writer, alone,
/// and everything it does commits together when it returns, or not at all when it throws, calls
/// ``cancel()``, or its task is cancelled before the commit. Fetches inside a transaction see its own
/// uncommitted changes.
///
/// ```swift
/// let id = try await stack.perform { tx in
///     let person = try tx.create(Into<Person>()) { $0.name = "Ada"; $0.age = 36 }
///     try tx.edit(person) { $0.age += 1 }
///     return person.id
/// }
/// ```
///
/// A transaction is not `Sendable`, and objects are values: nothing mutable escapes, so an object can
/// only change through a transaction, and a transaction cannot be used once its closure returned.
public final class Transaction: ReadContext {
    /// The changes made so far and not yet committed.
    var changes = ChangeSet()
    /// In a stack of several stores that records history, each store's part of ``changes``, by store
    /// index on the connection (each store records its own part in its own history); empty otherwise.
    var storeChanges: [ChangeSet] = []
    /// The change sets of the transaction and of the calls under way around the current one, outermost
    /// first, while a call records into its own (see `atomically(_:)`).
    var enclosingChanges: [(changes: ChangeSet, storeChanges: [ChangeSet])] = []
    /// Whether changes are also recorded by store (see ``storeChanges``); turned on during the
    /// transaction when a store it writes to turns out to keep a history (see ``lockObserver``).
    var splitsChanges: Bool
    /// In a stack of several stores, the writer, told when the transaction first writes to each store.
    weak var lockObserver: (any StoreLockObserver)?
    /// The stores told to ``lockObserver`` in the SQLite transaction `observedIn`, one bit per store.
    private var observedStores: UInt64 = 0
    private var observedIn = -1
    /// The SQLite write transaction (its `writeTransactionNumber`) in which this transaction set `PRAGMA
    /// defer_foreign_keys` (for a delete with rules; SQLite turns it off at the end of each SQLite
    /// transaction, and an unsafe transaction commits several times).
    var foreignKeysDeferredIn = -1
    /// Assigns the IDs of created objects; owned by the writer.
    let ids: IDAllocator
    /// Why the transaction must roll back whatever its closure returns: ``cancel()`` was called (its
    /// error may have been caught), or a call that had to leave all or nothing could not undo its part
    /// (see `atomically(_:)`).
    var broken: StrataError?
    /// In an unsafe transaction: why SQLite rolled back its uncommitted work during a block that failed,
    /// reported by its next `perform` or `commit`.
    var lostWork: StrataError?
    /// The `UPDATE` text and the property names per entity and set of changed fields, made once per
    /// transaction: an import whose edits change the same fields makes them once, not per object.
    private var updates: [UpdateKey: Update] = [:]

    private struct UpdateKey: Hashable {
        let entity: ObjectIdentifier
        let fields: [Int]
    }

    private struct Update {
        let sql: String
        let properties: Set<String>
    }

    /// The unique imports under way, innermost last (an import's code may import more): the objects of
    /// their entity that writes touched (see `importUniqueObjects`).
    var importWatches: [ImportWatch] = []

    /// The fields whose last values a deletion keeps for the persistent history, by entity name.
    let preserved: [String: PreservedFields]

    init(
        connection: Connection, store: StoreContext, ids: IDAllocator, preserved: [String: PreservedFields] = [:],
        routes: RouteMemo = RouteMemo(), splitsChanges: Bool = false, lockObserver: (any StoreLockObserver)? = nil
    ) {
        self.ids = ids
        self.preserved = preserved
        self.splitsChanges = splitsChanges
        self.lockObserver = lockObserver
        super.init(connection: connection, store: store, routes: routes)
    }

    /// Takes the write lock of the store a write goes to, in a stack of several stores, the first time
    /// one does in this transaction; another connection may have committed to it until then, so its
    /// ID counters are checked anew, and the writer looks whether it turned the store's history on.
    override func willWrite(to target: StoreContext) throws(StrataError) {
        // A run of writes to one store checks its lock once per SQLite transaction.
        let number = connection.writeTransactionNumber
        if let last = lastLocked, last.store === target, last.transaction == number { return }
        let index = try connection.storeIndex(target.builder.schemaName)
        if try connection.lockForWriting(store: index) {
            try ids.checkExternalChanges(connection, store: index, current: connection.lockedDataVersion(store: index))
        }
        // Also when the store was locked for an ID (an entity of several stores locks all of them).
        if let lockObserver {
            if observedIn != number {
                observedIn = number
                observedStores = 0
            }
            if observedStores & (1 << index) == 0 {
                observedStores |= 1 << index
                if try lockObserver.storeLocked(index) { splitsChanges = true }
            }
        }
        lastLocked = (target, number)
    }

    /// The store whose lock a write checked last, and in which SQLite transaction.
    private var lastLocked: (store: StoreContext, transaction: Int)?

    /// The values of the row's fields that the history preserves, read before the row is deleted;
    /// `nil` when the entity preserves none (or the row does not exist).
    func preservedValues(_ entity: String, _ id: Int64) throws(StrataError) -> [String: DatabaseValue]? {
        guard let fields = preserved[entity] else { return nil }
        let statement = try connection.cachedStatement(fields.select(from: store.builder.qualified(entity)))
        try statement.bind(.integer(id), at: 1)
        guard try statement.step() else { return nil }
        var values: [String: DatabaseValue] = [:]
        for (index, property) in fields.properties.enumerated() {
            values[property] = statement.value(at: Int32(index))
        }
        statement.reset()
        return values
    }

    /// Whether the transaction created, edited or deleted anything so far.
    public var hasChanges: Bool { !allChanges.isEmpty }

    /// The IDs of the objects of `E` created so far in this transaction.
    public func insertedIDs<E: Entity>(_ type: E.Type) -> Set<EntityID<E>> { allChanges.insertedIDs(type) }

    /// The IDs of the objects of `E` edited so far in this transaction (not counting created ones).
    public func updatedIDs<E: Entity>(_ type: E.Type) -> Set<EntityID<E>> { allChanges.updatedIDs(type) }

    /// The IDs of the objects of `E` deleted so far in this transaction.
    public func deletedIDs<E: Entity>(_ type: E.Type) -> Set<EntityID<E>> { allChanges.deletedIDs(type) }

    // MARK: Create

    /// Creates an object: starts from its default and dynamic initial values, lets `configure` set
    /// its fields, inserts it, and returns it with its new ID.
    ///
    /// - Throws: ``StrataError/Code/uniqueConstraint`` naming the entity and field when a unique
    ///   field's value is taken; any error `configure` throws.
    @discardableResult
    public func create<E: Entity>(_ into: Into<E>, _ configure: (inout E) throws -> Void = { _ in }) throws -> E {
        try checkOpen()
        if let target = try routed(into, stayingInMain: true) { return try inStore(target) { try create(into, configure) } }
        let entity = try store.entity(E.self)
        var object = E(newObject: NewObject())
        // A new object's derived fields as `configure` finds them: it may not change them.
        let derivedDefaults = entity.description.derived.isEmpty ? nil : FieldEncoder.collect(object)
        try asCaller { try configure(&object) }
        guard !object.id.isSaved else {
            throw StrataError(
                .invalidEdit, "The ID of a new \(E.self) is assigned by the store; don't set it in create.",
                entity: entity.description.name, field: "id")
        }
        let name = entity.description.name
        let statement = try connection.statement(entity.insert)
        var encoder = FieldEncoder(mode: .bind(statement, firstIndex: 2))
        object.encodeFields(to: &encoder)
        if let foreign = encoder.foreignIDError(storeTag: connection.storeTag, entity: entity.description) { throw foreign }
        if let failure = encoder.failureError(entity: entity.description) { throw failure }
        if !entity.toOnes.isEmpty {
            let values = FieldEncoder.values(of: object)
            for toOne in entity.toOnes {
                if case .integer(let target) = values[toOne.fieldIndex] { try checkTarget(toOne, target) }
            }
        }
        // Derived fields and to-many members are checked before the row is written, so that a refused
        // create leaves nothing behind.
        var collected: FieldEncoder?
        if entity.hasRelationships || !entity.description.derived.isEmpty {
            let values = FieldEncoder.collect(object)
            collected = values
            if let derivedDefaults { try checkDerivedUnchanged(E.self, entity, from: derivedDefaults, to: values) }
            for relationship in store.graph.toMany[name] ?? [] where !values.relationships[relationship.index].isEmpty {
                try checkToMany(relationship, from: [], to: values.relationships[relationship.index])
            }
        }
        let id = try ids.allocate(name, connection)
        try statement.bind(.integer(id), at: 1)
        do {
            while try statement.step() {}
        } catch {
            throw describeConstraint(error, entity: entity.description)
        }
        object.id = EntityID(rawValue: id, storeTag: connection.storeTag)
        recordInsert(entity: name, id: object.id.rawValue)
        guard entity.hasRelationships, let values = collected else { return object }
        // Relationships set in `configure`: follow the foreign keys, store the to-many members.
        for toOne in store.graph.toOne[name] ?? [] {
            if case .integer(let target) = values.values[toOne.fieldIndex] {
                try toOneChanged(toOne, of: object.id.rawValue, from: nil, to: target)
            }
        }
        for relationship in store.graph.toMany[name] ?? [] where !values.relationships[relationship.index].isEmpty {
            try applyToMany(relationship, of: object.id.rawValue, from: [], to: values.relationships[relationship.index])
        }
        return try connection.fetchExisting(object.id, store: store) ?? object
    }

    // MARK: Edit

    /// Edits the stored version of an object and writes only the fields that changed.
    ///
    /// Only the ID of `object` is used: `body` receives the object as currently stored in this
    /// transaction, not the copy you pass, so edits never overwrite newer values with stale ones, and
    /// what you changed in the copy before the call is not written. To write a changed copy whole,
    /// assign it:
    ///
    /// ```swift
    /// try tx.edit(copy) { $0 = copy }
    /// ```
    /// This writes every field in which `copy` differs from the stored object, to-many relationships
    /// included, so it also undoes what was written after the copy was read. For an entity with derived
    /// fields, the copy's derived values must still be the stored ones.
    ///
    /// - Returns: The object after the edit.
    /// - Throws: ``StrataError/Code/notFound`` when the object was deleted; ``StrataError/Code/invalidEdit``
    ///   when `body` changes the ID or a derived field; ``StrataError/Code/uniqueConstraint`` when a
    ///   unique value is taken.
    @discardableResult
    public func edit<E: Entity>(_ object: E, _ body: (inout E) throws -> Void) throws -> E {
        try edit(object.id, body)
    }

    /// Edits the object with this ID and writes only the fields that changed.
    @discardableResult
    public func edit<E: Entity>(_ id: EntityID<E>, _ body: (inout E) throws -> Void) throws -> E {
        try checkOpen()
        if let target = try routed(id) { return try inStore(target) { try edit(id, body) } }
        try connection.checkOwn(id)
        let entity = try store.entity(E.self)
        guard let current = try connection.fetchExisting(id, store: store) else {
            throw StrataError(
                .notFound, "\(id) does not exist (it was deleted, or never created); nothing was edited.",
                entity: entity.description.name)
        }
        return try edit(current: current, entity: entity, body).object
    }

    /// Edits `current`, the object as stored in this transaction (just read by the caller), and writes
    /// only the fields that changed; returns the object after the edit and the properties it changed.
    func edit<E: Entity>(
        current: E, entity: StoreContext.EntitySQL, _ body: (inout E) throws -> Void
    ) throws -> (object: E, changed: Set<String>) {
        let id = current.id
        var edited = current
        try asCaller { try body(&edited) }
        guard edited.id == current.id else {
            throw StrataError(
                .invalidEdit, "An edit changed the ID of \(id); IDs are assigned by the store and never change.",
                entity: entity.description.name, field: "id")
        }
        let name = entity.description.name
        let before = FieldEncoder.collect(current)
        let after = FieldEncoder.collect(edited)
        // A value that could not be encoded (a @Coded value JSON refuses) was collected as NULL: writing
        // it would replace the stored value with nothing.
        if let failure = after.failureError(entity: entity.description) { throw failure }
        if let foreign = after.foreignIDError(storeTag: connection.storeTag, entity: entity.description) { throw foreign }
        try checkDerivedUnchanged(E.self, entity, from: before, to: after)
        let changed = before.values.indices.filter { !before.values[$0].isIdentical(to: after.values[$0]) }
        let update: Update?
        if changed.isEmpty {
            update = nil
        } else {
            let key = UpdateKey(entity: ObjectIdentifier(entity), fields: changed)
            if let made = updates[key] {
                update = made
            } else {
                let made = Update(
                    sql: store.builder.update(entity.description, fields: changed),
                    properties: Set(changed.map { entity.description.fields[$0].property }))
                updates[key] = made
                update = made
            }
        }
        let changedFields = update?.properties ?? []
        let toOnes = (store.graph.toOne[name] ?? []).filter { changed.contains($0.fieldIndex) }
        for toOne in toOnes {
            if case .integer(let target) = after.values[toOne.fieldIndex] { try checkTarget(toOne, target) }
        }
        // The new members of to-many relationships are checked before anything is written, so that a
        // refused edit leaves the object as it was.
        var toManyChanges: [(relationship: SchemaGraph.ToMany, stored: [Int64], new: [Int64])] = []
        for relationship in store.graph.toMany[name] ?? [] where before.relationships[relationship.index] != after.relationships[relationship.index] {
            let stored = try relatedIDs(relationship, of: id.rawValue)
            let new = Self.merged(
                edit: before.relationships[relationship.index], to: after.relationships[relationship.index],
                onto: relationship.isOrdered ? stored : stored.sorted())
            let members = relationship.isOrdered ? new : new.sorted()
            try checkToMany(relationship, from: stored, to: members)
            toManyChanges.append((relationship, stored, members))
        }
        if let update {
            let statement = try connection.cachedStatement(update.sql)
            for (offset, index) in changed.enumerated() {
                do {
                    try statement.bind(after.values[index], at: Int32(offset + 1))
                } catch {
                    throw error.with(entity: name, field: entity.description.fields[index].property)
                }
            }
            try statement.bind(.integer(id.rawValue), at: Int32(changed.count + 1))
            do {
                while try statement.step() {}
            } catch {
                throw describeConstraint(error, entity: entity.description)
            }
            recordUpdate(entity: name, id: id.rawValue, fields: changedFields)
            try recordDerivedDependents(name, id.rawValue, changed: changedFields)
        }
        for toOne in toOnes {
            let old: Int64? = if case .integer(let value) = before.values[toOne.fieldIndex] { value } else { nil }
            let new: Int64? = if case .integer(let value) = after.values[toOne.fieldIndex] { value } else { nil }
            try toOneChanged(toOne, of: id.rawValue, from: old, to: new)
        }
        var all = changedFields
        for change in toManyChanges {
            all.insert(change.relationship.property)
            try applyToMany(change.relationship, of: id.rawValue, from: change.stored, to: change.new)
        }
        guard !all.isEmpty else { return (edited, all) }
        if entity.description.toMany.isEmpty && entity.description.derived.isEmpty { return (edited, all) }
        return (try connection.fetchExisting(id, store: store) ?? edited, all)
    }

    /// The members of a to-many relationship after an edit that changed them from `before` to `after`,
    /// applied to `stored`, the members now stored: writes the edit's closure made itself (a nested
    /// `create` naming the object) changed them since `before` was read, and the edit must keep those,
    /// not replace them with its stale copy. Without such writes, `stored` is `before` and this is
    /// `after`, in its order.
    static func merged(edit before: [Int64], to after: [Int64], onto stored: [Int64]) -> [Int64] {
        guard stored != before else { return after }
        let beforeSet = Set(before), afterSet = Set(after), storedSet = Set(stored)
        // What the nested writes removed, unless the edit adds it; what they added, unless the edit removes it.
        let nestedRemoved = beforeSet.subtracting(storedSet)
        let editRemoved = beforeSet.subtracting(afterSet)
        var result = after.filter { !nestedRemoved.contains($0) || !beforeSet.contains($0) }
        var present = Set(result)
        for id in stored where !beforeSet.contains(id) && !editRemoved.contains(id) && present.insert(id).inserted {
            result.append(id)
        }
        return result
    }

    // MARK: Cancel

    /// Cancels the transaction: everything it did is rolled back, and ``DataStack/perform(_:)`` throws
    /// ``StrataError/Code/transactionCancelled``, also when called from import code: an import passes it
    /// on unwrapped, not as an ``ImportError``, and a chunked import stops with it.
    ///
    /// ```swift
    /// try await stack.perform { tx in
    ///     if try tx.fetchCount(From<Person>()) > 100 { try tx.cancel() }
    /// }
    /// ```
    ///
    /// The transaction stays cancelled even when the error is caught inside the closure: it rolls back
    /// whatever the closure does afterwards and returns. In an ``UnsafeTransaction``'s block, it cancels
    /// that block alone, as if it had thrown: the blocks before it keep their uncommitted work.
    public func cancel() throws -> Never {
        let error = StrataError(.transactionCancelled, "The transaction was cancelled; nothing it did was kept.")
        if broken == nil { broken = error }
        throw error
    }

    // MARK: Errors

    /// Throws when a derived field differs between `before` and `after`: the store computes derived
    /// fields, so neither `create` nor `edit` may set one.
    private func checkDerivedUnchanged<E: Entity>(
        _ type: E.Type, _ entity: StoreContext.EntitySQL, from before: FieldEncoder, to after: FieldEncoder
    ) throws(StrataError) {
        guard let index = before.derivedValues.indices.first(where: { before.derivedValues[$0] != after.derivedValues[$0] })
        else { return }
        let derived = entity.description.derived[index]
        throw StrataError(
            .invalidEdit,
            "\(E.self).\(derived.property) is derived: the store computes it from '\(derived.relationship)'; "
                + "set or change that relationship instead.",
            entity: entity.description.name, field: derived.property)
    }
}
