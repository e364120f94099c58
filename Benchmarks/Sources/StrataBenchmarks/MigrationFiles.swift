import Foundation

/// The files of workload m: each implementation's V1 store, made once, and the copy each round
/// migrates.
///
/// A V1 store is sealed after it is made: its WAL is checkpointed into the main file and truncated,
/// with no other connection open, so that the main file alone is the whole store and a plain file copy
/// of it is consistent.
enum MigrationFiles {
    /// The V1 store of the implementation whose files start with `prefix`.
    static func source(_ environment: Environment, _ prefix: String) -> String {
        environment.path("\(prefix)-m-v1.sqlite")
    }

    /// The copy migrated in one round.
    static func round(_ environment: Environment, _ prefix: String, _ workload: Workload, _ round: Int) -> String {
        environment.path("\(prefix)-\(workload.rawValue)-\(round).sqlite")
    }

    /// Folds the WAL of the store at `path` into its main file and truncates it. Every other connection
    /// to the store must be closed.
    static func seal(_ path: String) throws {
        let db = try RawDatabase(path: path)
        let checkpoint = try db.prepare("PRAGMA wal_checkpoint(TRUNCATE)")
        guard try checkpoint.step(), checkpoint.int64(0) == 0 else {
            throw RawError(description: "the checkpoint of \(path) did not complete")
        }
        checkpoint.reset()
        let wal = path + "-wal"
        if let size = (try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? Int, size > 0 {
            throw RawError(description: "\(wal) still holds \(size) bytes after the checkpoint")
        }
    }

    /// A fresh copy of the sealed store `source` at `destination` (its old files removed first),
    /// flushed to disk. Without the flush, the copy's pages would still be waiting in the operating
    /// system's cache, and the first sync of the database file inside the timed migration (a
    /// checkpoint's) would write the whole copy out: a cost that grows with the file, which a store
    /// that has been on disk for a while does not have.
    static func copy(_ source: String, to destination: String, _ environment: Environment) throws {
        environment.remove(destination)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: destination))
        try handle.synchronize()
        try handle.close()
    }

    /// Throws unless the migrated `item` table has an index on `column` (every implementation keeps the
    /// index through the migration).
    static func requireIndex(_ path: String, column: String) throws {
        let db = try RawDatabase(path: path, readOnly: true)
        let query = try db.prepare(
            "SELECT count(*) FROM pragma_index_list('item') AS list, pragma_index_info(list.name) AS info "
                + "WHERE info.name = ?")
        query.bind(column, at: 1)
        guard try query.step(), query.int64(0) > 0 else {
            throw RawError(description: "after the migration, \(path) has no index on item.\(column)")
        }
        query.reset()
    }
}
