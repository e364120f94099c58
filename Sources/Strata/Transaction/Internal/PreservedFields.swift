/// The fields of one entity whose last values a deletion keeps for the persistent history: the query
/// that reads them from the row about to go (its one parameter is the row's ID), and their property
/// names in the query's column order.
struct PreservedFields: Sendable {
    let select: String
    let properties: [String]
}
