/// Recording a transaction's changes: in its change set, and in a stack of several stores that records
/// history, in the part of the store each change went to.
extension Transaction {
    /// Records a deletion in the change set, and for the ID allocator.
    func recordDelete(entity: String, id: Int64, preserving values: [String: DatabaseValue]? = nil) {
        if !importWatches.isEmpty { noteImportWrite(entity, id) }
        changes.recordDelete(entity: entity, id: id, preserving: values)
        if splitsChanges { storePart { $0.recordDelete(entity: entity, id: id, preserving: values) } }
        ids.noteDeleted(entity, id)
    }

    /// Records a creation in the change set.
    func recordInsert(entity: String, id: Int64) {
        if !importWatches.isEmpty { noteImportWrite(entity, id) }
        changes.recordInsert(entity: entity, id: id)
        if splitsChanges { storePart { $0.recordInsert(entity: entity, id: id) } }
    }

    /// Records an edit of `fields` in the change set.
    func recordUpdate(entity: String, id: Int64, fields: Set<String>) {
        if !importWatches.isEmpty { noteImportWrite(entity, id) }
        changes.recordUpdate(entity: entity, id: id, fields: fields)
        if splitsChanges { storePart { $0.recordUpdate(entity: entity, id: id, fields: fields) } }
    }

    /// Notes a write to object `id` of `entity` for the unique imports of that entity under way.
    private func noteImportWrite(_ entity: String, _ id: Int64) {
        for watch in importWatches where watch.entity == entity { watch.touched.append(id) }
    }

    /// Records a change in the part of the store written to (the current one: writes to another store
    /// run in it, see `inStore`).
    fileprivate func storePart(_ record: (inout ChangeSet) -> Void) {
        // The current store is attached to the connection: its index is found.
        guard let index = try? connection.storeIndex(store.builder.schemaName) else { return }
        while storeChanges.count <= index { storeChanges.append(ChangeSet()) }
        record(&storeChanges[index])
    }

    /// Forgets the changes (after a commit or a rollback).
    func clearChanges() {
        changes = ChangeSet()
        storeChanges = []
        enclosingChanges = []
    }

    /// Runs `body`, a call of several writes (an import, a batch), so that it leaves all or nothing: when
    /// it throws, what it wrote is rolled back to a savepoint and its records leave the change set, and
    /// the transaction goes on as before the call (the caller may catch the error). IDs it took stay
    /// unused: a gap is harmless.
    ///
    /// The call records into change sets of its own, merged into the transaction's when it succeeds
    /// (the same rules apply: an update of an object created before stays a creation). Saving a copy of
    /// the transaction's change set instead would copy all of it at the call's first record, for every
    /// call: a loop of one-source imports would take quadratic time.
    func atomically<T>(_ body: () throws -> T) throws -> T {
        try connection.run(.savepoint)
        enclosingChanges.append((changes, storeChanges))
        changes = ChangeSet()
        storeChanges = []
        do {
            let result = try body()
            try connection.run(.releaseSavepoint)
            var (merged, mergedParts) = enclosingChanges.removeLast()
            // A first call of the transaction (the usual case) takes its changes as they are.
            if merged.isEmpty { merged = changes } else { merged.merge(changes) }
            for (index, part) in storeChanges.enumerated() {
                while mergedParts.count <= index { mergedParts.append(ChangeSet()) }
                if mergedParts[index].isEmpty { mergedParts[index] = part } else { mergedParts[index].merge(part) }
            }
            (changes, storeChanges) = (merged, mergedParts)
            return result
        } catch {
            (changes, storeChanges) = enclosingChanges.removeLast()
            // SQLite rolled the whole transaction back, the savepoint with it: the loss is what to report.
            if let lost = connection.lostWrite { throw lost }
            do {
                try connection.run(.rollbackToSavepoint)
                try connection.run(.releaseSavepoint)
            } catch let rollback {
                // The transaction cannot go on with part of the call in it: it takes nothing more, and
                // the writer rolls it back instead of committing.
                broken = rollback
                isOpen = false
            }
            throw error
        }
    }

    /// The transaction's changes so far, those of the calls under way (see ``atomically(_:)``) included.
    var allChanges: ChangeSet {
        guard var all = enclosingChanges.first?.changes else { return changes }
        for level in enclosingChanges.dropFirst() { all.merge(level.changes) }
        all.merge(changes)
        return all
    }
}
