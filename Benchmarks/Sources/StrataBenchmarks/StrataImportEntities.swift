import Strata

/// The `contact` rows of workload l, as a Strata user declares them: `key` is unique, so Strata's
/// table has `key TEXT NOT NULL UNIQUE`, the column raw SQLite and GRDB declare.
@Entity
struct Contact {
    @Field(.unique) var key: String = ""
    var name: String = ""
    var age: Int = 0
    var score: Double = 0
}

/// l1: a `Contact` imports from a ``ContactSource`` by its key; a new contact gets the key, then
/// ``update(from:in:)`` (the protocol's default `didInsert`).
extension Contact: ImportableUniqueObject {
    static var uniqueIDKeyPath: WritableKeyPath<Contact, String> { \.key }

    static func uniqueID(from source: ContactSource, in transaction: Transaction) -> String? {
        source.key
    }

    mutating func update(from source: ContactSource, in transaction: Transaction) {
        name = source.name
        age = source.age
        score = source.score
    }
}

extension Checksum {
    mutating func add(_ contact: Contact) {
        addContact(key: contact.key, name: contact.name, age: contact.age, score: contact.score)
    }
}
