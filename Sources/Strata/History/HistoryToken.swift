/// A point in a stack's persistent history: how far a consumer has read in each store's history.
///
/// Each store keeps the history of its own changes, numbered from 1 by its own counter; a token holds
/// one position per store, keyed by the store's configuration (`""` for the default one). A stack of
/// one store has one position, ``rawValue``. Positions grow with every recorded commit, whichever
/// process made it, and are never reused, even after ``DataStack/purgeHistory(before:)-(HistoryToken)``
/// removed older history.
///
/// Tokens are `Codable`: a sync service or an app extension stores the token of the last transaction
/// it processed and resumes from it with ``DataStack/history(after:authors:excludingAuthors:entities:limit:)``
/// or ``DataStack/historyUpdates(after:)``, even after a restart. A token of the default configuration
/// alone encodes as a bare number; one of several stores as an object keyed by configuration.
///
/// ```swift
/// let data = try JSONEncoder().encode(transaction.token)
/// let token = try JSONDecoder().decode(HistoryToken.self, from: data)
/// ```
///
/// A store the token does not name is read from its first recorded transaction.
public struct HistoryToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The position reached in each store's history (the token of its last transaction read), by
    /// configuration name: `""` for the default configuration.
    public let positions: [String: Int64]

    /// A token from its positions, by configuration name (`""` for the default configuration).
    public init(positions: [String: Int64]) {
        self.positions = positions
    }

    /// The token of a stack of one store from its position, as ``rawValue`` gave it (a stored token,
    /// say). It names the default configuration's store, or the only store of a stack of one.
    public init(rawValue: Int64) {
        positions = ["": rawValue]
    }

    /// The position of a stack of one store: the transaction's place in its history, from 1. For a
    /// token of several stores, the sum of their positions (it grows with every transaction read).
    public var rawValue: Int64 {
        positions.values.reduce(0, +)
    }

    /// The position reached in the history of the store of `configuration` (`nil`: the default one),
    /// or `nil` when the token names no position there.
    public subscript(configuration: String?) -> Int64? {
        positions[configuration ?? ""]
    }

    /// The position in the store of `configuration` ("" for the default) of a stack whose only store
    /// it is when `onlyStore`: a token made with ``init(rawValue:)`` names the default configuration,
    /// and applies to the only store of a stack of one whatever its configuration.
    func position(in configuration: String, onlyStore: Bool) -> Int64? {
        if let position = positions[configuration] { return position }
        if onlyStore, positions.count == 1, let position = positions[""] { return position }
        return nil
    }

    /// This token moved on past `position` in the store of `configuration`.
    func advanced(in configuration: String, to position: Int64) -> HistoryToken {
        var positions = self.positions
        positions[configuration] = position
        return HistoryToken(positions: positions)
    }

    /// Encodes a token of the default configuration alone as a bare number, any other as an object.
    public init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if let number = try? single.decode(Int64.self) {
            positions = ["": number]
        } else {
            positions = try single.decode([String: Int64].self)
        }
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
