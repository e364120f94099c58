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
    ///
    /// A member name that holds a space, `=`, `%` or another whitespace or control character (a raw
    /// identifier: a property named `tint color` between backticks) is written with those characters
    /// percent-encoded (`tint%20color`), so that the entry reads back as the same names; other names
    /// are written as they are.
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

    /// The lock as a Swift dictionary literal, ready to paste after `versionLock:` (a `"` or `\` in a
    /// name is escaped).
    public var description: String {
        "[" + entities.keys.sorted().map { "\(Self.literal($0)): \(Self.literal(entities[$0] ?? ""))" }
            .joined(separator: ", ") + "]"
    }

    /// `text` as a Swift string literal.
    private static func literal(_ text: String) -> String {
        var literal = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "\n": literal += "\\n"
            case "\r": literal += "\\r"
            case "\t": literal += "\\t"
            case _ where scalar.properties.generalCategory == .control:
                literal += "\\u{\(String(scalar.value, radix: 16))}"
            default: literal.unicodeScalars.append(scalar)
            }
        }
        return literal + "\""
    }

    /// A member name as an entry writes it: a space, `=`, `%`, and other whitespace and control
    /// characters percent-encoded (`tint%20color`), so that splitting the entry at spaces and each pair
    /// at its `=` gives the name back. Names without them are written unchanged, as before encoding.
    static func escaped(_ name: String) -> String {
        var written = ""
        for scalar in name.unicodeScalars {
            guard scalar == "=" || scalar == "%" || scalar.properties.isWhitespace
                || scalar.properties.generalCategory == .control
            else {
                written.unicodeScalars.append(scalar)
                continue
            }
            for byte in String(scalar).utf8 {
                let hex = String(byte, radix: 16, uppercase: true)
                written += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return written
    }

    /// The member name an entry writes as `written` (see ``escaped(_:)``); a `%` not followed by two hex
    /// digits is kept as it is.
    static func unescaped(_ written: Substring) -> String {
        guard written.contains("%") else { return String(written) }
        let bytes = Array(written.utf8)
        var decoded: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
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
            members[unescaped(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
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
