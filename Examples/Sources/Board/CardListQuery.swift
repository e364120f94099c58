public import Strata
import Hummingbird

/// The query of `GET /cards` and `GET /cards/live`, parsed and checked:
/// `status=todo|doing|done`, `owner=ID`, `q=text` (title contains, case-insensitive),
/// `sort=priority|-priority|createdAt|-createdAt|title|-title`, `limit=1...200` (default 50),
/// `offset=0...`. Anything else is a 400 naming the parameter.
public struct CardListQuery: Sendable {
    public var status: CardStatus?
    public var ownerID: Int64?
    public var text: String?
    public var sort: String
    public var limit: Int
    public var offset: Int

    public static let sorts = ["priority", "-priority", "createdAt", "-createdAt", "title", "-title"]
    public static let maximumLimit = 200

    init(_ parameters: Parameters, defaultLimit: Int = 50) throws(APIError) {
        if let value = parameters.get("status") {
            guard let status = CardStatus(rawValue: value) else {
                throw .badRequest("invalid_status", "status must be one of todo, doing, done")
            }
            self.status = status
        }
        if let value = parameters.get("owner") {
            guard let id = Int64(value), id > 0 else { throw .badRequest("invalid_owner", "owner must be an owner's ID") }
            ownerID = id
        }
        if let value = parameters.get("q"), !value.isEmpty { text = value }
        sort = parameters.get("sort") ?? "createdAt"
        guard Self.sorts.contains(sort) else {
            throw .badRequest("invalid_sort", "sort must be one of \(Self.sorts.joined(separator: ", "))")
        }
        limit = defaultLimit
        if let value = parameters.get("limit") {
            guard let limit = Int(value), (1...Self.maximumLimit).contains(limit) else {
                throw .badRequest("invalid_limit", "limit must be a number from 1 to \(Self.maximumLimit)")
            }
            self.limit = limit
        }
        offset = 0
        if let value = parameters.get("offset") {
            guard let offset = Int(value), offset >= 0 else {
                throw .badRequest("invalid_offset", "offset must be a number from 0")
            }
            self.offset = offset
        }
    }

    /// The matching cards in order, without paging (for the total).
    public var filtered: From<Card> {
        var from = From<Card>()
        if let status { from = from.where(\.status == status) }
        if let ownerID { from = from.where(\.owner == Owner.ID(rawValue: ownerID)) }
        if let text { from = from.where(.contains(\.title, text, caseInsensitive: true)) }
        return from.orderBy(order)
    }

    /// One page of the matching cards.
    public var page: From<Card> { filtered.tweak(.limit(limit), .offset(offset)) }

    /// The sort, then the ID, so that equal keys keep one order and pages never overlap.
    var order: OrderBy<Card> {
        let key: OrderBy<Card> =
            switch sort {
            case "priority": .ascending(\.priority)
            case "-priority": .descending(\.priority)
            case "-createdAt": .descending(\.createdAt)
            case "title": .ascending(\.title)
            case "-title": .descending(\.title)
            default: .ascending(\.createdAt)
            }
        return key + (sort.hasPrefix("-") ? .descending(\.id) : .ascending(\.id))
    }
}
