import Foundation
import GRDB

/// What the GRDB implementation needs from its two record types.
protocol GRDBItemRecord: FetchableRecord, MutablePersistableRecord, Sendable {
    init(_ data: ItemData)
    var id: Int64? { get }
    var name: String { get }
    var age: Int { get }
    var score: Double { get set }
    var created: Date { get }
}

extension Checksum {
    mutating func add(_ item: some GRDBItemRecord) {
        addItem(id: item.id ?? 0, name: item.name, age: item.age, score: item.score,
                created: item.created.timeIntervalSinceReferenceDate)
    }
}

/// The idiomatic GRDB record with hand-written mapping: `init(row:)` reads columns by index, as GRDB's
/// own performance tests do, and `encode(to:)` fills the persistence container by column name.
struct GRDBRowItem: GRDBItemRecord {
    static let databaseTableName = "item"

    var id: Int64?
    var name: String
    var age: Int
    var score: Double
    var created: Date

    init(_ data: ItemData) {
        name = data.name
        age = data.age
        score = data.score
        created = Date(timeIntervalSinceReferenceDate: data.created)
    }

    init(row: Row) throws {
        id = row[0]
        name = row[1]
        age = row[2]
        score = row[3]
        created = Date(timeIntervalSinceReferenceDate: row[4])
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["age"] = age
        container["score"] = score
        container["created"] = created.timeIntervalSinceReferenceDate
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// The idiomatic GRDB record with Codable mapping. Dates are stored as seconds since 2001 (a REAL), as
/// Strata stores them, through GRDB's date strategies.
struct GRDBCodableItem: GRDBItemRecord, Codable {
    static let databaseTableName = "item"

    var id: Int64?
    var name: String
    var age: Int
    var score: Double
    var created: Date

    init(_ data: ItemData) {
        name = data.name
        age = data.age
        score = data.score
        created = Date(timeIntervalSinceReferenceDate: data.created)
    }

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSinceReferenceDate
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSinceReferenceDate
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// What the GRDB implementation needs from its two `Orders` record types.
protocol GRDBOrderRecord: FetchableRecord, TableRecord, Sendable {
    var checksumOrder: RawOrder { get }
}

/// `Orders` with hand-written mapping (columns by index).
struct GRDBRowOrder: GRDBOrderRecord {
    static let databaseTableName = "Orders"
    var order: RawOrder

    init(row: Row) throws {
        order = RawOrder(
            orderID: row[0], customerID: row[1], employeeID: row[2], orderDate: row[3], requiredDate: row[4],
            shippedDate: row[5], shipVia: row[6], freight: row[7], shipName: row[8], shipAddress: row[9],
            shipCity: row[10], shipRegion: row[11], shipPostalCode: row[12], shipCountry: row[13])
    }

    var checksumOrder: RawOrder { order }
}

/// `Orders` with Codable mapping; the properties are named after the columns, as in the Lighter suite.
struct GRDBCodableOrder: GRDBOrderRecord, Codable {
    static let databaseTableName = "Orders"

    var OrderID: Int
    var CustomerID: String?
    var EmployeeID: Int?
    var OrderDate: String?
    var RequiredDate: String?
    var ShippedDate: String?
    var ShipVia: Int?
    var Freight: Double?
    var ShipName: String?
    var ShipAddress: String?
    var ShipCity: String?
    var ShipRegion: String?
    var ShipPostalCode: String?
    var ShipCountry: String?

    var checksumOrder: RawOrder {
        RawOrder(
            orderID: OrderID, customerID: CustomerID, employeeID: EmployeeID, orderDate: OrderDate,
            requiredDate: RequiredDate, shippedDate: ShippedDate, shipVia: ShipVia, freight: Freight,
            shipName: ShipName, shipAddress: ShipAddress, shipCity: ShipCity, shipRegion: ShipRegion,
            shipPostalCode: ShipPostalCode, shipCountry: ShipCountry)
    }
}

/// One row of f's grouped query (GRDB rows are not `Sendable`, so they cannot leave an async `read`).
struct AgeStatistics: FetchableRecord, Sendable {
    var age: Int
    var count: Int
    var average: Double

    init(row: Row) throws {
        age = row[0]
        count = row[1]
        average = row[2]
    }
}
