public import GRDB

/// Where a card stands, stored as its raw value.
public enum CardStatus: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case todo, doing, done
}
