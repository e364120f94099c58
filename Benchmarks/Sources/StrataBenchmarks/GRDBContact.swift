import GRDB

/// The `contact` row of workload l as an idiomatic GRDB record, mapped by hand like ``GRDBRowItem``:
/// `init(row:)` reads columns by index, `encode(to:)` fills the persistence container by name.
struct GRDBContact: FetchableRecord, MutablePersistableRecord, Sendable {
    static let databaseTableName = "contact"

    var id: Int64?
    var key: String
    var name: String
    var age: Int
    var score: Double

    init(_ source: ContactSource) {
        key = source.key
        name = source.name
        age = source.age
        score = source.score
    }

    init(row: Row) throws {
        id = row[0]
        key = row[1]
        name = row[2]
        age = row[3]
        score = row[4]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["key"] = key
        container["name"] = name
        container["age"] = age
        container["score"] = score
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
