public import Strata
public import Foundation

/// A person cards are assigned to. Names are unique.
@Entity
public struct Owner: Sendable {
    @Field(.unique) public var name: String = ""
    public var email: String?
    /// The owner's cards. Deleting an owner leaves the cards unassigned.
    @Relationship(deleteRule: .nullify, inverse: \Card.owner) public var cards: Set<Card.ID> = []
    /// How many cards the owner has, computed by SQLite when the owner is read.
    @Derived(count: \Owner.cards) public var cardCount: Int = 0
}

/// Where a card stands.
public enum CardStatus: String, DatabaseValueConvertible, Codable, Sendable, CaseIterable {
    case todo, doing, done
}

/// One task on the board.
@Entity
public struct Card: Sendable {
    public var title: String = ""
    public var notes: String?
    @Field(.indexed) public var status: CardStatus = .todo
    @Field(.indexed) public var priority: Int = 0
    @Field(dynamicInitialValue: { Date() }) public var createdAt: Date = .distantPast
    @Relationship public var owner: Owner.ID?
}

/// The board's schema.
public let boardSchema = Schema("Board1", Owner.self, Card.self)
