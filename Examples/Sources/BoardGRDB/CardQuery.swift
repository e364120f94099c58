import GRDB
import Hummingbird

/// The query of `GET /cards`: filters, sort, page.
struct CardQuery: Sendable {
    var status: CardStatus?
    var ownerID: Int64?
    var text: String?
    var sort: Sort = .createdAt
    var limit = 50
    var offset = 0

    /// A sort key of `sort=`: `priority`, `createdAt` or `title`, descending with a leading `-`.
    struct Sort: Sendable {
        var column: Column
        var descending: Bool

        static let createdAt = Sort(column: Card.Columns.createdAt, descending: false)

        init(column: Column, descending: Bool) {
            self.column = column
            self.descending = descending
        }

        init?(_ text: Substring) {
            let descending = text.hasPrefix("-")
            switch descending ? text.dropFirst() : text {
            case "priority": column = Card.Columns.priority
            case "createdAt": column = Card.Columns.createdAt
            case "title": column = Card.Columns.title
            default: return nil
            }
            self.descending = descending
        }

        /// The ordering, ties broken by id in the same direction, so that pages never overlap.
        var ordering: [any SQLOrderingTerm] {
            descending ? [column.desc, Card.Columns.id.desc] : [column.asc, Card.Columns.id.asc]
        }
    }

    init(_ parameters: Parameters) throws {
        if let value = parameters.get("status") {
            guard let status = CardStatus(rawValue: String(value)) else {
                throw APIError.badRequest("invalid_status", "status must be one of todo, doing, done")
            }
            self.status = status
        }
        if let value = parameters.get("owner") {
            guard let ownerID = Int64(value), ownerID > 0 else {
                throw APIError.badRequest("invalid_owner", "owner must be an owner's ID")
            }
            self.ownerID = ownerID
        }
        if let value = parameters.get("q"), !value.isEmpty {
            text = String(value)
        }
        if let value = parameters.get("sort") {
            guard let sort = Sort(value[...]) else {
                throw APIError.badRequest(
                    "invalid_sort", "sort must be one of priority, -priority, createdAt, -createdAt, title, -title")
            }
            self.sort = sort
        }
        if let value = parameters.get("limit") {
            guard let limit = Int(value), (1...200).contains(limit) else {
                throw APIError.badRequest("invalid_limit", "limit must be a number from 1 to 200")
            }
            self.limit = limit
        }
        if let value = parameters.get("offset") {
            guard let offset = Int(value), offset >= 0 else {
                throw APIError.badRequest("invalid_offset", "offset must be a number from 0")
            }
            self.offset = offset
        }
    }

    /// The matching cards, unsorted and unpaged.
    var filtered: QueryInterfaceRequest<Card> {
        var request = Card.all()
        if let status { request = request.filter(Card.Columns.status == status) }
        if let ownerID { request = request.filter(Card.Columns.ownerID == ownerID) }
        if let text { request = request.filter(Card.Columns.title.like("%\(text)%")) }
        return request
    }

    /// One page and the total, read in one transaction.
    func fetchPage(_ db: Database) throws -> CardPage {
        let request = filtered
        let total = try request.fetchCount(db)
        let items = try request.order(sort.ordering).limit(limit, offset: offset).fetchAll(db)
        return CardPage(items: items, total: total, limit: limit, offset: offset)
    }
}
