/// The fields of one entity whose last values a deletion keeps for the persistent history: the query
/// that reads them from the row about to go (its one parameter is the row's ID), and their property
/// names in the query's column order.
struct PreservedFields: Sendable {
    /// The quoted columns, in `properties`' order.
    let columns: String
    let properties: [String]

    /// The query that reads them from `table` (quoted, qualified with its store when there are several).
    func select(from table: String) -> String {
        "SELECT \(columns) FROM \(table) WHERE \"id\" = ?"
    }
}
