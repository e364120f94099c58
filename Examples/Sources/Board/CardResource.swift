public import Foundation
import Strata

/// A card as the API shows it: `{"id","title","notes","status","priority","createdAt","ownerID"}`
/// (`notes` and `ownerID` are `null` when unset; `createdAt` is ISO 8601).
public struct CardResource: Codable, Sendable, Equatable {
    public var id: Int64
    public var title: String
    public var notes: String?
    public var status: CardStatus
    public var priority: Int
    public var createdAt: Date
    public var ownerID: Int64?

    public init(_ card: Card) {
        id = card.id.rawValue
        title = card.title
        notes = card.notes
        status = card.status
        priority = card.priority
        createdAt = card.createdAt
        ownerID = card.owner?.rawValue
    }

    private enum CodingKeys: String, CodingKey { case id, title, notes, status, priority, createdAt, ownerID }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(notes, forKey: .notes)       // explicit null
        try container.encode(status, forKey: .status)
        try container.encode(priority, forKey: .priority)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(ownerID, forKey: .ownerID)   // explicit null
    }
}

/// The body of `GET /owners`.
public struct OwnerList: Codable, Sendable {
    public var items: [OwnerResource]
}

/// The body of `GET /cards`: one page, and how many cards match in all.
public struct CardPage: Codable, Sendable {
    public var items: [CardResource]
    public var total: Int
    public var limit: Int
    public var offset: Int
}

/// One event of `GET /cards/live`: the list as it is now, and the IDs that changed since the
/// previous event (empty in the first).
public struct CardListEvent: Codable, Sendable {
    public var items: [CardResource]
    public var inserted: [Int64]
    public var deleted: [Int64]
    public var updated: [Int64]
}
