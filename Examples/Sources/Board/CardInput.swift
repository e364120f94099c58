/// The body of `POST /cards`: a title, and optionally notes, status, priority and owner.
public struct NewCard: Codable, Sendable {
    public var title: String
    public var notes: String?
    /// Validated by the route, so that an unknown status is a 400 that names it.
    public var status: String?
    public var priority: Int?
    public var ownerID: Int64?

    public init(title: String, notes: String? = nil, status: String? = nil, priority: Int? = nil, ownerID: Int64? = nil) {
        self.title = title
        self.notes = notes
        self.status = status
        self.priority = priority
        self.ownerID = ownerID
    }
}

/// A field of a PATCH body: absent (leave it), `null` (clear it), or a value.
public enum PatchValue<Value: Sendable & Codable>: Sendable {
    case absent
    case null
    case value(Value)
}

/// The body of `PATCH /cards/{id}`: any of title, notes, status, priority, ownerID; `null` clears
/// notes and ownerID.
public struct CardPatch: Decodable, Sendable {
    public var title: PatchValue<String> = .absent
    public var notes: PatchValue<String> = .absent
    public var status: PatchValue<String> = .absent
    public var priority: PatchValue<Int> = .absent
    public var ownerID: PatchValue<Int64> = .absent

    private enum CodingKeys: String, CodingKey { case title, notes, status, priority, ownerID }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try Self.decode(container, .title)
        notes = try Self.decode(container, .notes)
        status = try Self.decode(container, .status)
        priority = try Self.decode(container, .priority)
        ownerID = try Self.decode(container, .ownerID)
    }

    private static func decode<V>(
        _ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys
    ) throws -> PatchValue<V> {
        guard container.contains(key) else { return .absent }
        if try container.decodeNil(forKey: key) { return .null }
        return .value(try container.decode(V.self, forKey: key))
    }
}
