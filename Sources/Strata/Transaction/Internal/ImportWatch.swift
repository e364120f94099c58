/// The objects of one entity that a transaction's writes touched while a unique import of that entity
/// runs: the import reads again the objects it found before when its sources' code wrote to other
/// objects of the entity. A class, so that every write appends to it in place; used by its
/// transaction only.
final class ImportWatch {
    let entity: String
    /// The row IDs written since the import last emptied it, in order, repeats included.
    var touched: [Int64] = []

    init(entity: String) {
        self.entity = entity
    }
}
