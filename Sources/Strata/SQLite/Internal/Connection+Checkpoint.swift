internal import CSQLite

/// The WAL pages a write connection's commits left, counted by SQLite's WAL hook; confined to the
/// connection's thread (the hook runs inside the commit's `sqlite3_step`, on that thread).
final class WALPages {
    /// The largest WAL size, in pages, a commit reported since the last checkpoint.
    var pages: Int32 = 0
}

extension Connection {
    /// The WAL size, in pages, past which a commit is followed by a checkpoint: SQLite's own default
    /// for its automatic checkpoint (`SQLITE_DEFAULT_WAL_AUTOCHECKPOINT`).
    static var checkpointPages: Int32 { 1000 }

    /// Moves the WAL checkpoint out of `COMMIT`: SQLite's automatic checkpoint runs inside the commit's
    /// step, copying the WAL into the database and syncing both, while the stack's commit gate is held,
    /// so every read that starts under the gate (a read of several stores, an observation fetch) would
    /// wait for it. The WAL hook, which replaces the automatic checkpoint, only notes the WAL's size;
    /// ``checkpointIfDue()`` checkpoints once the gate is released. For the write connection, after
    /// its setup.
    func checkpointAfterCommits() {
        guard walPages == nil else { return }
        let box = WALPages()
        walPages = box
        // The connection holds the box for as long as the hook may run.
        sqlite3_wal_hook(handle, { context, _, _, pages in
            guard let context else { return SQLITE_OK }
            let box = Unmanaged<WALPages>.fromOpaque(context).takeUnretainedValue()
            box.pages = max(box.pages, pages)
            return SQLITE_OK
        }, Unmanaged.passUnretained(box).toOpaque())
    }

    /// A passive checkpoint of every store of the connection once a commit left the WAL past
    /// ``checkpointPages``, as SQLite's automatic checkpoint would have: it copies what no reader still
    /// needs and never waits for one. A failure is left to the next commit's checkpoint (a checkpoint
    /// changes nothing anyone can read).
    func checkpointIfDue() {
        guard let walPages, walPages.pages >= Self.checkpointPages, !isClosed, !isInTransaction else { return }
        walPages.pages = 0
        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }

    /// Before the write connection closes: copies the WAL into the database files, so that the files
    /// hold every commit once the stack is closed, even when a reader's connection, which cannot
    /// checkpoint, closes after the writer's and leaves the WAL behind (copying the database file
    /// alone would otherwise lose the commits still in the WAL). It empties the WAL when no reader
    /// still needs any of it and otherwise copies what it can, never waiting: a reader that holds an
    /// older state (a read generation, a read running in another process) keeps its part in the WAL.
    func checkpointBeforeClose() {
        guard !isClosed, !isInTransaction else { return }
        // With no busy handler, a TRUNCATE checkpoint that meets a reader goes on as a PASSIVE one.
        sqlite3_busy_timeout(handle, 0)
        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
    }
}
