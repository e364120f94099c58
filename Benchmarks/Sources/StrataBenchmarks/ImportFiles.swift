/// The files of workload l: each implementation's store holding ``ImportData/stored``, made once and
/// sealed as m's V1 stores are (``MigrationFiles/seal(_:)``), and the copy each round of l1 and l2
/// imports into; l3's empty store.
enum ImportFiles {
    /// The 20,000-row store of the implementation whose files start with `prefix`.
    static func source(_ environment: Environment, _ prefix: String) -> String {
        environment.path("\(prefix)-l-base.sqlite")
    }

    /// The store one round imports into: a fresh, flushed copy of ``source(_:_:)`` for l1 and l2 (its
    /// old files removed first), nothing yet for l3 (the old files removed).
    static func round(_ environment: Environment, _ prefix: String, _ workload: Workload, _ round: Int) throws -> String {
        let path = environment.path("\(prefix)-\(workload.rawValue)-\(round).sqlite")
        if workload.importPart?.startsFromStoredRows == true {
            try MigrationFiles.copy(source(environment, prefix), to: path, environment)
        } else {
            environment.remove(path)
        }
        return path
    }
}
