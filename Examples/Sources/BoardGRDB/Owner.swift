public import GRDB

/// A person cards are assigned to: a row of `owner`. Names are unique.
public struct Owner: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "owner"

    /// The owner's cards (`card.ownerID`, which the schema declares as a foreign key).
    public static let cards = hasMany(Card.self)

    public var id: Int64?
    public var name: String
    public var email: String?

    public init(id: Int64? = nil, name: String, email: String? = nil) {
        self.id = id
        self.name = name
        self.email = email
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension Owner {
    /// The columns, for the query interface.
    public enum Columns {
        public static let name = Column(CodingKeys.name)
    }
}
