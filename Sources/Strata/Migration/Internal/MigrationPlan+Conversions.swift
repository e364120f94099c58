import Foundation

/// The changes of a field's column type a migration infers: only those that keep every value, checked
/// against the values stored where the type alone cannot tell.
extension MigrationPlan {
    enum Inferred {
        /// The values convert this way; `exactness`, when given, names the stored values that would not.
        case converted(Conversion, exactness: Exactness?)
        /// No conversion keeps the values: why not.
        case refused(String)
    }

    /// How `old` (the source version's field) becomes `new`, when their column types differ. With
    /// `checked`, a conversion that is exact for some values only names the others, to be refused before
    /// anything is copied (a step with a transform of the entity reads the old values itself).
    static func conversion(from old: FieldDescription, to new: FieldDescription, entity: String, checked: Bool) -> Inferred {
        let from = old.valueFamily.kind
        let to = new.valueFamily.kind
        let column = SQLiteDialect().quote(old.column)
        // Values past `limit` either way; for an unsigned field, negative stored values are past Int64.max.
        func beyond(_ limit: Int64, _ reason: String) -> Exactness? {
            guard checked else { return nil }
            let below = from == .unsigned ? "0" : "-\(limit)"
            return Exactness(
                column: old.column, property: new.property, condition: "\(column) > \(limit) OR \(column) < \(below)",
                reason: reason)
        }
        switch (old.storageClass, new.storageClass) {
        case (.integer, .real):
            if to == .date {
                return .refused("and a number of what since when is for you to say")
            }
            let isFloat = to == .float
            let limit: Int64 = isFloat ? 1 << 24 : 1 << 53
            let type = isFloat ? "Float" : "Double"
            // A Bool or a small integer always fits; only another program's text or blob in the
            // column would not (SQL's CAST makes it 0), and the same bounds find it: SQLite orders
            // text and blobs after every number.
            if from == .bool || (from == .smallInteger && !isFloat) {
                return .converted(.cast("REAL"), exactness: beyond(limit, "hold values that are not numbers"))
            }
            switch from {
            case .unsigned:
                return .converted(.cast("REAL"), exactness: beyond(limit, "hold values past \(limit) (or past Int64.max, "
                    + "stored as negative numbers), which \(type) cannot hold exactly"))
            default:
                return .converted(.cast("REAL"), exactness: beyond(limit, "hold values past ±\(limit), which \(type) "
                    + "cannot hold exactly (or values that are not numbers)"))
            }
        case (.integer, .text):
            if from == .bool { return .converted(.boolText, exactness: nil) }
            guard from == .unsigned else { return .converted(.cast("TEXT"), exactness: nil) }
            let exactness = checked
                ? Exactness(
                    column: old.column, property: new.property, condition: "\(column) < 0",
                    reason: "hold values past Int64.max, stored as negative numbers, whose digits SQL would get wrong")
                : nil
            return .converted(.cast("TEXT"), exactness: exactness)
        case (.real, .text):
            if from == .date {
                return .refused("and the text's format is for you to choose")
            }
            return .converted(.realText(float: from == .float), exactness: nil)
        default:
            return .refused("which can lose data")
        }
    }
}

extension MigrationPlan {
    enum SameColumnChange {
        /// The values are kept as they are; those where the check's condition holds would not read back.
        case checked(Exactness)
        /// No value can be trusted to mean the same: why not.
        case refused(String)
    }

    /// What a change of Swift type that keeps the column type (`Int` to `Int16`, `Int64` to `UInt64`,
    /// `Double` to `Date`) needs, where the planner knows both types: `nil` when every stored value
    /// reads back the same, the values the new type cannot read as they were, or a refusal.
    static func sameColumnChange(from old: FieldDescription, to new: FieldDescription) -> SameColumnChange? {
        let from = old.valueFamily
        let to = new.valueFamily
        guard from.kind != to.kind || from.bounds != to.bounds else { return nil }
        let column = SQLiteDialect().quote(old.column)
        switch (from.kind, to.kind) {
        case (.date, .double), (.date, .float), (.double, .date), (.float, .date):
            return .refused("and the same stored number would mean something else (a Date counts seconds since 2001)")
        default:
            break
        }
        if from.kind == .double, to.kind == .float {
            // Rounded to a Float's precision, as Swift's conversion does; past its range, a number would
            // read as infinity. (Infinities themselves are kept; text or a blob is past every number.)
            let limit = "\(Double(Float.greatestFiniteMagnitude))"
            return .checked(Exactness(
                column: old.column, property: new.property,
                condition: "(\(column) > \(limit) AND \(column) != 9e999) OR (\(column) < -\(limit) AND \(column) != -9e999)",
                reason: "hold values past ±\(limit), which a Float cannot hold"))
        }
        let integers: [ValueFamily.Kind] = [.bool, .smallInteger, .integer, .unsigned]
        guard integers.contains(from.kind), integers.contains(to.kind) else { return nil }
        if to.kind == .unsigned {
            // Stored negative numbers read as values past Int64.max.
            if let bounds = from.bounds, bounds.lowerBound >= 0 { return nil }
            return .checked(Exactness(
                column: old.column, property: new.property, condition: "\(column) < 0",
                reason: "hold negative values, which an unsigned type would read as values past Int64.max"))
        }
        // A Bool reads every integer (any but 0 is true), as it always has.
        guard to.kind != .bool, let bounds = to.bounds else { return nil }
        // An unsigned field stores values past Int64.max as negative numbers.
        let lower = from.kind == .unsigned ? max(bounds.lowerBound, 0) : bounds.lowerBound
        if let old = from.bounds, old.lowerBound >= lower, old.upperBound <= bounds.upperBound { return nil }
        let reason = "hold values outside \(lower)...\(bounds.upperBound), which the new type cannot hold"
        // Text or a blob another program stored is past every number, so the upper bound finds it too.
        return .checked(Exactness(
            column: old.column, property: new.property,
            condition: "\(column) < \(lower) OR \(column) > \(bounds.upperBound)", reason: reason))
    }
}

/// Small helpers of the planner: field kinds compared, zero values, SQL literals.
extension MigrationPlan {
    /// Whether two field kinds store the same thing (to-one relationships: to the same entity, renames applied).
    static func sameKind(
        _ old: FieldDescription.FieldKind, _ new: FieldDescription.FieldKind, sourceGraphName: (String) -> String,
        source: Schema, destination: Schema
    ) -> Bool {
        switch (old, new) {
        case (.attribute, .attribute), (.coded, .coded): return true
        case (.toOne(let a), .toOne(let b)): return sourceGraphName(source.entityName(a.target)) == destination.entityName(b.target)
        default: return false
        }
    }

    /// A value of a storage class for a field a transform fills in.
    static func zero(_ storageClass: StorageClass) -> DatabaseValue {
        switch storageClass {
        case .integer: .integer(0)
        case .real: .real(0)
        case .text: .text("")
        case .blob: .blob(Data())
        }
    }

    /// A value as an SQL literal for a column default (`ALTER TABLE ... ADD COLUMN` takes no bound
    /// parameter), or `nil` when it has no safe literal form (text with a NUL character). Text is quoted
    /// with its quotes doubled, so no value can end the literal.
    static func literal(_ value: DatabaseValue) -> String? {
        switch value {
        case .null: return "NULL"
        case .integer(let integer): return String(integer)
        case .real(let real): return real.isFinite ? "\(real)" : nil
        case .text(let text):
            guard !text.utf8.contains(0) else { return nil }
            return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let bytes):
            return "X'" + bytes.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// The fields of `entity`, as a message names them.
    static func fieldList(_ entity: EntityDescription) -> String {
        entity.fields.map { "\($0.property): \($0.storageClass.rawValue)\($0.isOptional ? "?" : "")" }.joined(separator: ", ")
    }
}
