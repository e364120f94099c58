import Foundation
import Strata

/// The `item` rows, as a Strata user declares them. Strata adds its own
/// `id INTEGER PRIMARY KEY AUTOINCREMENT` and stores `Date` as seconds since 2001 in a REAL column.
@Entity
struct Item {
    var name: String = ""
    @Field(.indexed) var age: Int = 0
    var score: Double = 0
    var created: Date = Date(timeIntervalSinceReferenceDate: 0)
}

/// Northwind's `Orders`, mirrored column by column. Strata assigns IDs itself, so `OrderID` becomes
/// the entity's `id`: the copy inserts the orders in `OrderID` order into an empty store, where the
/// IDs come out as `OrderID - (first OrderID - 1)` (the setup checks it).
@Entity(name: "Orders")
struct Order {
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

extension Checksum {
    mutating func add(_ item: Item) {
        addItem(id: item.id.rawValue, name: item.name, age: item.age, score: item.score,
                created: item.created.timeIntervalSinceReferenceDate)
    }

    mutating func add(_ order: Order, idOffset: Int) {
        addOrder(
            id: Int(order.id.rawValue) + idOffset, customerID: order.customerID, employeeID: order.employeeID,
            orderDate: order.orderDate, requiredDate: order.requiredDate, shippedDate: order.shippedDate,
            shipVia: order.shipVia, freight: order.freight, shipName: order.shipName,
            shipAddress: order.shipAddress, shipCity: order.shipCity, shipRegion: order.shipRegion,
            shipPostalCode: order.shipPostalCode, shipCountry: order.shipCountry)
    }
}

/// o's second entity: what the other store of a two-store stack holds (a cache beside the items, or
/// the default store beside the items' store). 100 rows, written before the timer.
@Entity
struct Note {
    var key: String = ""
    var value: Double = 0
}
