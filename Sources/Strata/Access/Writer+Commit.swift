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
        var partial: ChangeSet?
        do {
            try connection.commitWrite(counted: { number in
                if !changes.isEmpty { commitLog.add(number, changes) }
                published.commitNumber = number
            }, partial: { number in
                var unknown = ChangeSet()
                unknown.isUnknown = true
                unknown.commitNumber = number
                commitLog.add(number, unknown)
                partial = unknown
            })
        } catch {
            guard let partial else { throw error }
            // Some stores may hold the transaction's changes now: every observer reads again, and reads
            // that start from now on count this commit among those they see. Its history tokens are not
            // noted as the stack's own: a store that rolled its entry back gives the token to the next
            // commit, maybe another connection's, which the next scan must not skip. An entry that was
            // kept is then read as another connection's: reported twice, never lost.
            generations?.noteCommit()
            feed.publish(partial)
            logger.warning(
                "a commit to several stores failed and may have been kept by some of them",
                metadata: ["strata.error": "\(error.summaryWithoutValues)"])
            throw StrataError(
                error.code,
                "The commit failed (\(error.message)), and this transaction wrote to several stores: SQLite commits "
                    + "them one at a time (the main store first), so the stores committed before the failure keep "
                    + "its changes. Read the objects again to see what was kept.",
                sqliteCode: error.sqliteCode, extendedCode: error.extendedCode, sql: error.sql)
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
