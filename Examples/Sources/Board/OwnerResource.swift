import Strata

/// An owner as the API shows it: `{"id","name","email","cardCount"}` (`email` is `null` when unset).
public struct OwnerResource: Codable, Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var email: String?
    public var cardCount: Int

    public init(id: Int64, name: String, email: String?, cardCount: Int) {
        self.id = id
        self.name = name
        self.email = email
        self.cardCount = cardCount
    }

    public init(_ owner: Owner) {
        self.init(id: owner.id.rawValue, name: owner.name, email: owner.email, cardCount: owner.cardCount)
    }

    private enum CodingKeys: String, CodingKey { case id, name, email, cardCount }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(email, forKey: .email)   // explicit null
        try container.encode(cardCount, forKey: .cardCount)
    }
}

/// The body of `POST /owners`.
public struct NewOwner: Codable, Sendable {
    public var name: String
    public var email: String?

    public init(name: String, email: String? = nil) {
        self.name = name
        self.email = email
    }
}
