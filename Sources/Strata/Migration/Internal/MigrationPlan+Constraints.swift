/// What a step does to the unique constraints and indexes over several fields of an entity it keeps,
/// for the forecast (``MigrationForecast/EntityChange``).
extension MigrationPlan.Table {
    /// The constraints and indexes over several fields the step adds (as the destination version names
    /// their fields) and removes (as the source version does). A constraint whose fields the step only
    /// renames is neither: unique constraints compare as sets of fields, indexes in order.
    var constraintChanges: (addedUnique: [[String]], removedUnique: [[String]], addedIndexes: [[String]], removedIndexes: [[String]]) {
        guard let source, let destination else { return ([], [], [], []) }
        let renames = Dictionary(fieldChanges.renamed.map { ($0.old, $0.new) }, uniquingKeysWith: { a, _ in a })
        func renamed(_ list: [String]) -> [String] { list.map { renames[$0] ?? $0 } }
        let sourceUnique = source.uniqueConstraints.map { (source: $0, destination: Set(renamed($0))) }
        let sourceIndexes = source.indexes.map { (source: $0, destination: renamed($0)) }
        return (
            destination.uniqueConstraints.filter { list in !sourceUnique.contains { $0.destination == Set(list) } },
            sourceUnique.filter { old in !destination.uniqueConstraints.contains { Set($0) == old.destination } }.map(\.source),
            destination.indexes.filter { list in !sourceIndexes.contains { $0.destination == list } },
            sourceIndexes.filter { old in !destination.indexes.contains(old.destination) }.map(\.source)
        )
    }
}
