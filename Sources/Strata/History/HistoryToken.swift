/// A point in a stack's persistent history: how far a consumer has read in each store's history.
///
/// Each store keeps the history of its own changes, numbered from 1 by its own counter. A token holds
/// one position per store, keyed by the store's configuration (`""` for the default one); the only
/// store of a stack of one store is always keyed `""`, and its position is ``rawValue``. Positions grow
/// with every recorded commit, whichever process made it, and are never reused, even after
/// ``DataStack/purgeHistory(before:)-(HistoryToken)`` removed older history. A store the token does not
/// name is read from its first recorded transaction.
///
/// Tokens are `Codable`: a sync service or an app extension stores the token of the last transaction
/// it processed and resumes from it with ``DataStack/history(after:authors:excludingAuthors:entities:limit:)``
/// or ``DataStack/historyUpdates(after:)``, even after a restart. A token of the default store alone
/// encodes as a bare number; one of several stores as an object keyed by configuration.
///
/// ```swift
/// let data = try JSONEncoder().encode(transaction.token)
/// let token = try JSONDecoder().decode(HistoryToken.self, from: data)
/// ```
public struct HistoryToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The position reached in each store's history (the token of its last transaction read), by
    /// configuration name: `""` for the default configuration, and for the only store of a stack of one.
    public let positions: [String: Int64]

    /// A token from its positions, by configuration name (`""` for the default configuration).
    /// Negative positions count as 0.
    public init(positions: [String: Int64]) {
        self.positions = positions.mapValues { max(0, $0) }
    }

    /// The token of a stack of one store (or of the default store of a stack of several) from its
    /// position, as ``rawValue`` gave it: a stored number, say. A negative number counts as 0.
    public init(rawValue: Int64) {
        positions = ["": max(0, rawValue)]
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

    /// This token moved on past `position` in the store of `configuration`.
    func advanced(in configuration: String, to position: Int64) -> HistoryToken {
        var positions = self.positions
        positions[configuration] = position
        return HistoryToken(positions: positions)
    }

    /// Encodes a token of the default configuration alone as a bare number, any other as an object.
    /// Decoding refuses a negative position (no token has one).
    public init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        let positions: [String: Int64]
        if let number = try? single.decode(Int64.self) {
            positions = ["": number]
        } else {
            positions = try single.decode([String: Int64].self)
        }
        guard positions.values.allSatisfy({ $0 >= 0 }) else {
            throw DecodingError.dataCorruptedError(
                in: single, debugDescription: "A history token's positions are never negative: \(positions)")
        }
        self.positions = positions
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if positions.count == 1, let number = positions[""] {
            try container.encode(number)
        } else {
            try container.encode(positions)
        }
    }

    public var description: String {
        if positions.count == 1, let number = positions[""] { return "HistoryToken(\(number))" }
        let parts = positions.keys.sorted().map { "\($0.isEmpty ? "default" : $0): \(positions[$0, default: 0])" }
        return "HistoryToken(\(parts.joined(separator: ", ")))"
    }
}
