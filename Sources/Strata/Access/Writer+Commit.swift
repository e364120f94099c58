import Logging

/// Beginning, committing and rolling back the writer's transactions.
extension Writer {
    func begin() throws(StrataError) {
        try connection.beginWrite()
        do {
            // A stack of several stores locks each store at its first write (its history, kept in the
            // same store, is recorded then too), and checks its counters, its schema version and a
            // history another connection turned on then (``followHistory(ofStore:)``). It reads nothing
            // of a store before that: a read snapshot taken first could keep the write from starting.
            if connection.holdsWriteLock(store: 0) {
                let version = history == nil || connection.expectedSchemaVersion != nil
                    ? try connection.dataVersion(store: 0) : nil
                if let version { try checkStoreVersion(dataVersion: version) }
                try ids.checkExternalChanges(connection, store: 0, current: version)
                if history == nil, let version { try adoptHistoryIfTurnedOn(dataVersion: version) }
            }
        } catch {
            rollback()
            throw error
        }
    }

    /// The fields deletions preserve for the history.
    var preserved: [String: PreservedFields] { history?.preserved ?? [:] }

    /// Commits `transaction`'s changes, timed in `strata_commit_duration` when there are metrics.
    func commit(_ transaction: Transaction) throws(StrataError) {
        guard let metrics else { return try commitUntimed(transaction) }
        try StackMetrics.time(metrics.commitDuration) { () throws(StrataError) in try commitUntimed(transaction) }
    }

    private func commitUntimed(_ transaction: Transaction) throws(StrataError) {
        if let lost = connection.lostWrite { throw lost }
        if let broken = transaction.broken { throw broken }
        let changes = transaction.changes
        try ids.saveMarks(connection)
        let tokens = changes.isEmpty ? nil : try history?.record(changes, byStore: transaction.storeChanges, on: connection)
        let commitLog = self.commitLog
        var published = changes
        try connection.commitWrite { number in
            if !changes.isEmpty { commitLog.add(number, changes) }
            published.commitNumber = number
        }
        if let tokens { history?.committed(tokens) }
        generations?.noteCommit()
        if !changes.isEmpty {
            logger.trace("committed", metadata: ["strata.entities": "\(changes.changedEntityNames.sorted())"])
            feed.publish(published)
        }
    }

    func rollback() {
        ids.transactionEnded()
        connection.resetActiveStatements()
        connection.writeEnded()
        guard connection.isInTransaction else { return }
        do {
            try connection.run(.rollback)
        } catch {
            logger.error("rollback failed", metadata: ["strata.error": "\(error)"])
        }
    }
}
