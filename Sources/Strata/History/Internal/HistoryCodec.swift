/// The text a recorded transaction keeps its changes in, one column of its history row, so that a
/// commit adds one row to one table.
///
/// Per entity, a header `e<length>:<name>` (the name's UTF-8 length, so any name works), then its
/// changes, each after a space: `i<first>-<last>` a run of inserted IDs, `u<id>=<field>,<field>` an
/// edited object and the property names of its changed fields (Swift identifiers: no comma, no
/// space), `d<first>-<last>` a run of deleted IDs. `e6:Person i1-100 u7=age,name d3-3`.
enum HistoryCodec {
    /// The changes of a commit as text, and the `entities` column: each changed entity's name between
    /// two unit separators, which an `instr` filter can find.
    static func encode(_ changeSet: ChangeSet) -> (changes: String, entities: String) {
        var text = ""
        var entities = separator
        for name in changeSet.entities.keys.sorted() {
            guard let changes = changeSet.entities[name], !changes.isEmpty else { continue }
            entities += name + separator
            // A space before every header but the first ends the previous entity's last change.
            text += (text.isEmpty ? "" : " ") + "e\(name.utf8.count):\(name)"
            for run in changes.insertedRanges.ranges {
                text += " i\(run.lowerBound)-\(run.upperBound - 1)"
            }
            for id in changes.updated.keys.sorted() {
                text += " u\(id)=" + changes.updated[id, default: []].sorted().joined(separator: ",")
            }
            var deleted = changes.deleted.sorted()[...]
            while let first = deleted.popFirst() {
                var last = first
                while let next = deleted.first, next == last + 1 {
                    last = next
                    deleted.removeFirst()
                }
                text += " d\(first)-\(last)"
            }
        }
        return (text, entities)
    }

    /// The unit separator that brackets each name in the `entities` column.
    static let separator = "\u{1F}"

    /// The `instr` needle of an entity in the `entities` column.
    static func needle(_ entity: String) -> String { separator + entity + separator }

    /// The change set of a recorded text; entities outside `only` (when given) are left out. Text that
    /// does not parse (written by a later version, say) ends the parse: what was read so far is kept.
    static func decode(_ text: String, only: Set<String>? = nil) -> ChangeSet {
        var result = ChangeSet()
        let bytes = Array(text.utf8)
        var index = 0
        var entity: String?
        func number() -> Int64? {
            var value: Int64 = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                value = value &* 10 &+ Int64(bytes[index] - 0x30)
                index += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        while index < bytes.count {
            let kind = bytes[index]
            index += 1
            switch kind {
            case UInt8(ascii: " "):
                continue
            case UInt8(ascii: "e"):
                guard let length = number(), expect(UInt8(ascii: ":")), index + Int(length) <= bytes.count else { return result }
                let name = String(decoding: bytes[index..<(index + Int(length))], as: UTF8.self)
                index += Int(length)
                entity = only.map { $0.contains(name) } ?? true ? name : nil
            case UInt8(ascii: "i"), UInt8(ascii: "d"):
                guard let first = number(), expect(UInt8(ascii: "-")), let last = number(), first <= last else { return result }
                guard let entity else { continue }
                if kind == UInt8(ascii: "i") {
                    result.recordInserts(entity: entity, ids: first...last)
                } else {
                    for id in first...last { result.recordDelete(entity: entity, id: id) }
                }
            case UInt8(ascii: "u"):
                guard let id = number(), expect(UInt8(ascii: "=")) else { return result }
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: " ") { index += 1 }
                guard let entity else { continue }
                let fields = String(decoding: bytes[start..<index], as: UTF8.self).split(separator: ",").map(String.init)
                result.recordUpdate(entity: entity, id: id, fields: Set(fields))
            default:
                return result
            }
        }
        return result
    }
}
