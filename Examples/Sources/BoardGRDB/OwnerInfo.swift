public import GRDB

/// An owner as the API shows it: the row with its card count, fetched in one query
/// (`Owner.annotated(with: Owner.cards.count)`).
public struct OwnerInfo: Codable, Sendable, FetchableRecord {
    public var id: Int64
    public var name: String
    public var email: String?
    public var cardCount: Int

    private enum CodingKeys: String, CodingKey { case id, name, email, cardCount }

    /// Synthesized but for `email`, which the API shows as `null` when unset.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(email, forKey: .email)
        try container.encode(cardCount, forKey: .cardCount)
    }

    /// The request for every owner with its card count, by name.
    static func all() -> QueryInterfaceRequest<OwnerInfo> {
        Owner
            .annotated(with: Owner.cards.count)
            .order(Owner.Columns.name)
            .asRequest(of: OwnerInfo.self)
    }

    /// The request for one owner with its card count.
    static func filter(id: Int64) -> QueryInterfaceRequest<OwnerInfo> {
        Owner
            .filter(key: id)
            .annotated(with: Owner.cards.count)
            .asRequest(of: OwnerInfo.self)
    }
}
