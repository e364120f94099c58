public import GRDB

/// An owner as the API shows it: the row with its card count, fetched in one query
/// (`Owner.annotated(with: Owner.cards.count)`).
public struct OwnerInfo: Codable, Sendable, FetchableRecord {
    public var id: Int64
    public var name: String
    public var email: String?
    public var cardCount: Int

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
