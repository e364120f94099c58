import Foundation

/// The columns of Northwind's `Orders` table, in table order; every implementation loads all of them.
enum Northwind {
    static let columns = [
        "OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia", "Freight",
        "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry",
    ]

    /// `../shared/data/northwind.sqlite` relative to the repository root, which is the parent of the
    /// Benchmarks package: found from this source file's location, so the working directory does not matter.
    static func defaultPath() -> String {
        let sources = URL(fileURLWithPath: #filePath)  // …/Benchmarks/Sources/StrataBenchmarks/Northwind.swift
        let repository = sources.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return repository.deletingLastPathComponent().appendingPathComponent("shared/data/northwind.sqlite").path
    }

    /// Copies the `Orders` table, with its original definition, into a new WAL-mode file.
    static func copyOrders(from source: String, to path: String) throws {
        let db = try RawDatabase(path: path)
        try db.configureWAL()
        let uri = "file:" + source + "?mode=ro&immutable=1"
        try db.execute("ATTACH DATABASE '\(uri.replacingOccurrences(of: "'", with: "''"))' AS nw")
        let definition = try db.prepare("SELECT sql FROM nw.sqlite_master WHERE type = 'table' AND name = 'Orders'")
        guard try definition.step() else { throw RawError(description: "\(source) has no Orders table") }
        let sql = definition.text(0)
        definition.reset()
        try db.execute(sql)
        try db.execute("INSERT INTO main.Orders SELECT * FROM nw.Orders ORDER BY OrderID")
        try db.execute("DETACH DATABASE nw")
    }

    /// Every order of the source, in `OrderID` order (to copy them into a Strata store).
    static func readOrders(from source: String) throws -> [RawOrder] {
        let db = try RawDatabase(path: "file:" + source + "?mode=ro&immutable=1", readOnly: true)
        let statement = try db.prepare(
            "SELECT \(columns.joined(separator: ", ")) FROM Orders ORDER BY OrderID")
        var orders: [RawOrder] = []
        while try statement.step() { orders.append(RawOrder(statement)) }
        return orders
    }
}

/// One row of `Orders` as the raw implementation decodes it.
struct RawOrder: Sendable {
    var orderID: Int
    var customerID: String?
    var employeeID: Int?
    var orderDate: String?
    var requiredDate: String?
    var shippedDate: String?
    var shipVia: Int?
    var freight: Double?
    var shipName: String?
    var shipAddress: String?
    var shipCity: String?
    var shipRegion: String?
    var shipPostalCode: String?
    var shipCountry: String?
}

extension RawOrder {
    @inline(__always)
    init(_ statement: RawStatement) {
        orderID = Int(statement.int64(0))
        customerID = statement.optionalText(1)
        employeeID = statement.optionalInt(2)
        orderDate = statement.optionalText(3)
        requiredDate = statement.optionalText(4)
        shippedDate = statement.optionalText(5)
        shipVia = statement.optionalInt(6)
        freight = statement.optionalDouble(7)
        shipName = statement.optionalText(8)
        shipAddress = statement.optionalText(9)
        shipCity = statement.optionalText(10)
        shipRegion = statement.optionalText(11)
        shipPostalCode = statement.optionalText(12)
        shipCountry = statement.optionalText(13)
    }
}

extension Checksum {
    private static func hash(_ value: Int?) -> UInt64 {
        value.map { UInt64(bitPattern: Int64($0)) } ?? 0x6E75_6C6C
    }

    private static func hash(_ value: Double?) -> UInt64 {
        value?.bitPattern ?? 0x6E75_6C6C
    }

    /// Adds one `Orders` row.
    mutating func addOrder(
        id: Int, customerID: String?, employeeID: Int?, orderDate: String?, requiredDate: String?,
        shippedDate: String?, shipVia: Int?, freight: Double?, shipName: String?, shipAddress: String?,
        shipCity: String?, shipRegion: String?, shipPostalCode: String?, shipCountry: String?
    ) {
        add(
            Self.hash(id), Self.hash(customerID), Self.hash(employeeID), Self.hash(orderDate),
            Self.hash(requiredDate), Self.hash(shippedDate), Self.hash(shipVia), Self.hash(freight),
            Self.hash(shipName), Self.hash(shipAddress), Self.hash(shipCity), Self.hash(shipRegion),
            Self.hash(shipPostalCode), Self.hash(shipCountry))
    }

    mutating func add(_ order: RawOrder) {
        addOrder(
            id: order.orderID, customerID: order.customerID, employeeID: order.employeeID,
            orderDate: order.orderDate, requiredDate: order.requiredDate, shippedDate: order.shippedDate,
            shipVia: order.shipVia, freight: order.freight, shipName: order.shipName,
            shipAddress: order.shipAddress, shipCity: order.shipCity, shipRegion: order.shipRegion,
            shipPostalCode: order.shipPostalCode, shipCountry: order.shipCountry)
    }
}
