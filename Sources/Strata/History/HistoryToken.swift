/// A point in a store's persistent history: the token of one recorded transaction.
///
/// Tokens grow with every recorded commit, whichever process made it, and are never reused, even
/// after ``DataStack/purgeHistory(before:)-(HistoryToken)`` removed older history. They are `Codable`:
/// a sync service or an app extension stores the token of the last transaction it processed and
/// resumes from it with ``DataStack/history(after:authors:excludingAuthors:entities:limit:)`` or
/// ``DataStack/historyUpdates(after:)``, even after a restart.
///
/// ```swift
/// let data = try JSONEncoder().encode(transaction.token)
/// let token = try JSONDecoder().decode(HistoryToken.self, from: data)
/// ```
public struct HistoryToken: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The token's number: the transaction's position in the store's history, from 1.
    public let rawValue: Int64

    /// A token from its number, as ``rawValue`` gave it (a stored token, say).
    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Encodes as a bare number.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { "HistoryToken(\(rawValue))" }
}
