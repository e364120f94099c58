/// `POST /owners`.
struct NewOwner: Decodable, Sendable {
    var name: String
    var email: String?
}

/// `POST /cards`. The status stays a string so that an unknown one is a 400 with a clear message.
struct NewCard: Decodable, Sendable {
    var title: String
    var notes: String?
    var status: String?
    var priority: Int?
    var ownerID: Int64?
}

/// `PATCH /cards/{id}`: any field; an explicit `null` clears `notes` or `ownerID`, an absent key
/// leaves the field as it is.
struct CardPatch: Decodable, Sendable {
    var title: String?
    var notes: String??
    var status: String?
    var priority: Int?
    var ownerID: Int64??
    /// A field that cannot be cleared (title, status, priority) sent as `null`.
    var nullField: String?

    private enum CodingKeys: String, CodingKey {
        case title, notes, status, priority, ownerID
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        status = try container.decodeIfPresent(String.self, forKey: .status)
        priority = try container.decodeIfPresent(Int.self, forKey: .priority)
        for key in [CodingKeys.title, .status, .priority] where container.contains(key) {
            if try container.decodeNil(forKey: key) { nullField = key.stringValue }
        }
        if container.contains(.notes) {
            notes = .some(try container.decodeIfPresent(String.self, forKey: .notes))
        }
        if container.contains(.ownerID) {
            ownerID = .some(try container.decodeIfPresent(Int64.self, forKey: .ownerID))
        }
    }
}
