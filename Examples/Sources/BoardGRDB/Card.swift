public import Foundation
public import GRDB

/// One task on the board: a row of `card`.
public struct Card: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "card"

    /// The card's owner, if any.
    public static let owner = belongsTo(Owner.self)

    public var id: Int64?
    public var title: String
    public var notes: String?
    public var status: CardStatus
    public var priority: Int
    public var createdAt: Date
    public var ownerID: Int64?

    public init(
        id: Int64? = nil, title: String, notes: String? = nil, status: CardStatus = .todo,
        priority: Int = 0, createdAt: Date = Date(), ownerID: Int64? = nil
    ) {
        self.id = id
        self.title = title
        self.notes = notes
        self.status = status
        self.priority = priority
        self.createdAt = createdAt
        self.ownerID = ownerID
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// Synthesized but for `notes` and `ownerID`, which the API shows as `null` when unset (GRDB
    /// writes the same NULL either way).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(notes, forKey: .notes)
        try container.encode(status, forKey: .status)
        try container.encode(priority, forKey: .priority)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(ownerID, forKey: .ownerID)
    }
}

extension Card {
    /// The columns, for the query interface.
    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let title = Column(CodingKeys.title)
        public static let notes = Column(CodingKeys.notes)
        public static let status = Column(CodingKeys.status)
        public static let priority = Column(CodingKeys.priority)
        public static let createdAt = Column(CodingKeys.createdAt)
        public static let ownerID = Column(CodingKeys.ownerID)
    }
}
