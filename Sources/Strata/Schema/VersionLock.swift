/// The fingerprint of a schema version that shipped, declared in code so that an accidental edit of
/// that version fails at once (as CoreStore's `VersionLock`), naming what changed.
///
/// Print ``Schema/versionLock`` once the version ships and paste it into the declaration:
///
/// ```swift
/// print(Schema("V1", V1.Person.self).versionLock)
/// // ["Person": "age=5c1a90e2 name=0b5e77f1"]
/// let v1 = Schema("V1", V1.Person.self, versionLock: ["Person": "age=5c1a90e2 name=0b5e77f1"])
/// ```
///
/// A stack created with a schema (or a ``SchemaHistory`` holding one) whose entities no longer match
/// its lock throws ``StrataError/Code/schemaMismatch`` before any store is opened, naming each entity
/// and field that was added, removed or changed. Each entity's entry holds a short hash per member
/// (field, to-many relationship, derived field) of what decides how it is stored: its column, type,
/// optionality, options, and what it points to. The hashes do not depend on the order of declarations
/// nor on how Swift prints a value.
public struct VersionLock: Sendable, Hashable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// Per entity name, its members' hashes as `"member=hash member=hash"`, members sorted by name.
    public let entities: [String: String]

    /// A lock of entity names and their members' hashes, as ``description`` prints them.
    public init(dictionaryLiteral elements: (String, String)...) {
        var entities: [String: String] = [:]
        for (name, members) in elements { entities[name] = members }
        self.entities = entities
    }

    init(entities: [String: String]) {
        self.entities = entities
    }

    /// The lock as a Swift dictionary literal, ready to paste after `versionLock:`.
    public var description: String {
        "[" + entities.keys.sorted().map { "\"\($0)\": \"\(entities[$0] ?? "")\"" }.joined(separator: ", ") + "]"
    }

    /// The first entry that is not a list of `member=hash` pairs as ``description`` prints them, if any.
    var malformedEntry: (entity: String, text: String)? {
        for name in entities.keys.sorted() {
            let entry = entities[name] ?? ""
            let tokens = entry.split(separator: " ")
            let wellFormed = tokens.allSatisfy { token in
                let parts = token.split(separator: "=", omittingEmptySubsequences: false)
                return parts.count == 2 && !parts[0].isEmpty && parts[1].count == 8 && parts[1].allSatisfy(\.isHexDigit)
            }
            if !wellFormed { return (name, entry) }
        }
        return nil
    }

    /// Each member's hash by name, of an entity's entry.
    static func members(_ entry: String) -> [String: String] {
        var members: [String: String] = [:]
        for token in entry.split(separator: " ") {
            let parts = token.split(separator: "=", maxSplits: 1)
            members[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return members
    }

    /// What differs from `declared` (entity and member names), in a stable order; empty when nothing does.
    func differences(from declared: VersionLock) -> [(entity: String, member: String?, change: String)] {
        var differences: [(entity: String, member: String?, change: String)] = []
        for name in Set(entities.keys).union(declared.entities.keys).sorted() {
            guard let now = entities[name] else {
                differences.append((name, nil, "entity \(name) was removed"))
                continue
            }
            guard let then = declared.entities[name] else {
                differences.append((name, nil, "entity \(name) was added"))
                continue
            }
            let current = Self.members(now)
            let locked = Self.members(then)
            for member in Set(current.keys).union(locked.keys).sorted() {
                switch (locked[member], current[member]) {
                case (nil, _): differences.append((name, member, "\(name).\(member) was added"))
                case (_, nil): differences.append((name, member, "\(name).\(member) was removed"))
                case (let old?, let new?) where old != new: differences.append((name, member, "\(name).\(member) changed"))
                default: break
                }
            }
        }
        return differences
    }
}
