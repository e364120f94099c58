internal import CSQLite

/// Which rows a statement inserted or updated, from SQLite's update hook: what `upsertAll` reads
/// instead of a `RETURNING` clause or a query after each statement.
extension Connection {
    /// Runs `body` with SQLite's update hook writing each row a statement inserts or updates into a
    /// ``RowChanges`` that `body` reads and clears: what a statement did to which row, without a
    /// `RETURNING` clause (which SQLite runs through a temporary table per execution) or a query after
    /// it. When `body` returns, the hook goes back to what it was (a call nested in `body`, by code that
    /// `body` runs, leaves the outer call's notes in place). A change to a table other than `table` (by a
    /// trigger) sets ``RowChanges/elsewhere``.
    func noteRowChanges<T>(of table: String, _ body: (UnsafeMutablePointer<RowChanges>) throws -> T) rethrows -> T {
        let target = strdupUTF8(table)
        let notes = UnsafeMutablePointer<RowChanges>.allocate(capacity: 1)
        notes.initialize(to: RowChanges(target: target))
        defer {
            notes.deallocate()
            target.deallocate()
        }
        guard !isClosed else { return try body(notes) }
        let outer = sqlite3_update_hook(handle, RowChanges.hook, notes)
        // Runs before the deallocation above: the hook lets go of the notes first.
        defer { if !isClosed { sqlite3_update_hook(handle, outer == nil ? nil : RowChanges.hook, outer) } }
        return try body(notes)
    }

    /// A NUL-terminated copy of `text`, to be deallocated by the caller.
    private func strdupUTF8(_ text: String) -> UnsafeMutablePointer<CChar> {
        let bytes = Array(text.utf8CString)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        copy.initialize(from: bytes, count: bytes.count)
        return copy
    }
}

/// The rows statements changed since the last ``clear()``, as SQLite's update hook reports them (see
/// ``Connection/noteRowChanges(_:)``): how many, and the last one.
struct RowChanges {
    /// How many rows were inserted, updated or deleted.
    var count = 0
    /// Whether the last change inserted its row.
    var inserted = false
    /// The row ID of the last row changed.
    var rowID: Int64 = 0
    /// Whether a row of another table than the target changed (a trigger's work): then the one row
    /// changed may not be the statement's.
    var elsewhere = false
    /// The table whose rows the caller watches (compared without case, as SQLite names tables).
    let target: UnsafeMutablePointer<CChar>

    init(target: UnsafeMutablePointer<CChar>) {
        self.target = target
    }

    mutating func clear() {
        count = 0
        elsewhere = false
    }

    /// SQLite's update hook, given the notes as its context.
    static let hook: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int64) -> Void = {
        context, operation, _, table, rowID in
        guard let notes = context?.assumingMemoryBound(to: RowChanges.self) else { return }
        if let table, sqlite3_stricmp(table, notes.pointee.target) != 0 { notes.pointee.elsewhere = true }
        notes.pointee.count += 1
        notes.pointee.inserted = operation == SQLITE_INSERT
        notes.pointee.rowID = rowID
    }
}
