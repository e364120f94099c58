/// A point in a stack's persistent history: how far a consumer has read in each store's history.
///
/// Each store keeps the history of its own changes, numbered from 1 by its own counter. A token holds
/// one position per store, keyed by the store's configuration (`""` for the default one); the only
/// store of a stack of one store is always keyed `""`, and its position is ``rawValue``. Positions grow
/// with every recorded commit, whichever process made it, and are never reused, even after
/// ``DataStack/purgeHistory(before:)-(HistoryToken)`` removed older history.
///
/// A token read from a stack also keeps the tag of the store file each position belongs to (a random
/// number the file keeps), so a position applies to that file whatever key another stack gives it (a
/// stack that opens one of the files alone), and never to another file: a store made anew at the same
/// path, or one the token does not name, is read from its first recorded transaction. A token read from
/// another file under the same key (another app's store, say) cannot be told from one of a store made
/// anew, so it too reads this store from its start. A token none of whose positions is keyed by a store
/// of the stack (a misspelt configuration, or the token of a stack of other configurations) is refused
/// with ``StrataError/Code/invalidArgument`` rather than read as the start of every store.
///
/// Tokens are `Codable`: a sync service or an app extension stores the token of the last transaction
/// it processed and resumes from it with ``DataStack/history(after:authors:excludingAuthors:entities:limit:)``
/// or ``DataStack/historyUpdates(after:)``, even after a restart. A token read from a stack encodes as
/// `{"positions": {…}, "stores": {…}}`; one made from positions alone as a bare number (the default
/// store's) or an object of positions by configuration.
///
/// ```swift
/// let data = try JSONEncoder().encode(transaction.token)
/// let token = try JSONDecoder().decode(HistoryToken.self, from: data)
/// ```
public struct HistoryToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The position reached in each store's history (the token of its last transaction read), by
    /// configuration name: `""` for the default configuration, and for the only store of a stack of one.
    public let positions: [String: Int64]
    /// For the positions read from a stack: the tag of the store file each belongs to (a random number
    /// the file keeps), so that a position is applied to the file it was read from whatever key another
    /// stack gives that file, and never to another file (one made anew, say).
    let storeTags: [String: UInt32]

    /// A token from its positions, by configuration name (`""` for the default configuration).
    /// Negative positions count as 0.
    public init(positions: [String: Int64]) {
        self.init(positions: positions, storeTags: [:])
    }

    init(positions: [String: Int64], storeTags: [String: UInt32]) {
        self.positions = positions.mapValues { max(0, $0) }
        self.storeTags = storeTags.filter { positions[$0.key] != nil && $0.value != 0 }
    }

    /// The token of a stack of one store (or of the default store of a stack of several) from its
    /// position, as ``rawValue`` gave it: a stored number, say. A negative number counts as 0.
    public init(rawValue: Int64) {
        self.init(positions: ["": rawValue])
    }

    /// The position of a token of a stack of one store (or of the default store alone); `nil` for a
    /// token that names another store, or several: such a token has no single number, so store the
    /// token itself (it is `Codable`).
    public var rawValue: Int64? {
        positions.count == 1 ? positions[""] : nil
    }

    /// The position reached in the history of the store of `configuration` (`nil`: the default one,
    /// or the only store of a stack of one), or `nil` when the token names no position there.
    public subscript(configuration: String?) -> Int64? {
        positions[configuration ?? ""]
    }

    /// Two tokens are equal when they hold the same positions.
    public static func == (lhs: HistoryToken, rhs: HistoryToken) -> Bool {
        lhs.positions == rhs.positions
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(positions)
    }

    /// The position this token holds in the history of a store that a stack keys `key` and whose file
    /// is tagged `tag` (0: unknown): the one read from that file, under whatever key; otherwise the one
    /// under `key`, unless the token says it was read from another file (then none: the store is read
    /// from its start).
    func position(key: String, tag: UInt32) -> Int64? {
        if tag != 0 {
            if let entry = storeTags.first(where: { $0.value == tag }), let position = positions[entry.key] { return position }
            if let known = storeTags[key], known != tag { return nil }
        }
        return positions[key]
    }

    /// Whether some position of this token applies to a stack whose stores are keyed `keys` and whose
    /// files are tagged `tags`: a position under one of those keys, or one read from one of those files.
    /// A token without positions (the start of every store) applies to any stack.
    func applies(toKeys keys: [String], tags: [UInt32]) -> Bool {
        positions.isEmpty || positions.keys.contains(where: keys.contains)
            || storeTags.values.contains(where: tags.contains)
    }

    /// This token as a stack whose stores are `places` (each store's key and file tag) holds it: each
    /// store's position under the store's key (see ``position(key:tag:)``), and the positions of other
    /// files as they were. Before a merge of several stores' histories, so that moving on in one store
    /// never overwrites the position of another file that the token held under the same key (a token
    /// of a stack that opened the cache file alone holds it under `""`, the full stack's main store).
    func rekeyed(for places: [(key: String, tag: UInt32)]) -> HistoryToken {
        var positions = self.positions
        var tags = storeTags
        // The entries that name one of these stores, by key or by file, are replaced by its own.
        let placeTags = Set(places.map(\.tag).filter { $0 != 0 })
        for (key, tag) in storeTags where placeTags.contains(tag) {
            positions[key] = nil
            tags[key] = nil
        }
        for place in places {
            positions[place.key] = nil
            tags[place.key] = nil
        }
        for place in places {
            if let position = position(key: place.key, tag: place.tag) { positions[place.key] = position }
            if place.tag != 0 { tags[place.key] = place.tag }
        }
        return HistoryToken(positions: positions, storeTags: tags)
    }

    /// This token moved on past `position` in the store keyed `key`, whose file is tagged `tag`.
    func advanced(in key: String, tag: UInt32, to position: Int64) -> HistoryToken {
        var positions = self.positions
        var tags = storeTags
        if tag != 0 {
            // The same file under another key (a token of a stack that keys it otherwise): one entry.
            for (other, otherTag) in tags where otherTag == tag && other != key {
                positions[other] = nil
                tags[other] = nil
            }
            tags[key] = tag
        }
        positions[key] = position
        return HistoryToken(positions: positions, storeTags: tags)
    }

    private enum CodingKeys: String, CodingKey {
        case positions, stores
    }

    /// Decodes any of the forms ``encode(to:)`` writes (and the bare numbers and position objects of
    /// earlier versions). Decoding refuses a negative position (no token has one).
    public init(from decoder: any Decoder) throws {
        var positions: [String: Int64]
        var tags: [String: UInt32] = [:]
        if let single = try? decoder.singleValueContainer(), let number = try? single.decode(Int64.self) {
            positions = ["": number]
        } else if let single = try? decoder.singleValueContainer(), let plain = try? single.decode([String: Int64].self) {
            positions = plain
        } else {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            positions = try container.decode([String: Int64].self, forKey: .positions)
            tags = try container.decodeIfPresent([String: UInt32].self, forKey: .stores) ?? [:]
        }
        guard positions.values.allSatisfy({ $0 >= 0 }) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "A history token's positions are never negative: \(positions)"))
        }
        self.init(positions: positions, storeTags: tags)
    }

    /// Encodes a token of the default configuration alone, without store tags, as a bare number; one of
    /// several stores without tags as an object of positions by configuration; a token read from a
    /// stack as `{"positions": {…}, "stores": {…}}` with the tag of each position's store file.
    public func encode(to encoder: any Encoder) throws {
        if storeTags.isEmpty {
            var container = encoder.singleValueContainer()
            if positions.count == 1, let number = positions[""] {
                try container.encode(number)
            } else {
                try container.encode(positions)
            }
            return
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(positions, forKey: .positions)
        try container.encode(storeTags, forKey: .stores)
    }

    public var description: String {
        if positions.count == 1, let number = positions[""] { return "HistoryToken(\(number))" }
        let parts = positions.keys.sorted().map { "\($0.isEmpty ? "default" : $0): \(positions[$0, default: 0])" }
        return "HistoryToken(\(parts.joined(separator: ", ")))"
    }
}
