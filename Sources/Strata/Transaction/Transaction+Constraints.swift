import Foundation

/// The errors of a write that broke a constraint, told in the entity's terms.
extension Transaction {
    /// Names the entity and field of a constraint violation reported as `table.column`, or the entity and
    /// every field of a unique constraint over several fields (`table.a, table.b`).
    func describeConstraint(_ error: any Error, entity: EntityDescription) -> any Error {
        guard let error = error as? StrataError else { return error }
        guard error.code == .uniqueConstraint || error.code == .constraint else {
            return error.with(entity: entity.name)
        }
        let sqliteMessage = error.message
        var target: (entity: String, fields: [String]) = (entity.name, [])
        if let colon = sqliteMessage.range(of: ": "),
            let named = store.describeConstraint(columns: sqliteMessage[colon.upperBound...])
        {
            target = named
        }
        let what: String
        if error.code != .uniqueConstraint {
            what = "A constraint of \(target.entity) failed: \(sqliteMessage)."
        } else if target.fields.count > 1 {
            let fields = target.fields.spokenList
            what = "Another \(target.entity) already has these values of \(fields); a #Unique constraint of \(target.entity) "
                + "says no two objects may share all of \(fields). Change one of them, or edit the object that holds them."
        } else {
            let field = target.fields.first
            what = "Another \(target.entity) already has this \(field ?? "value"); \(field ?? "the field") must be unique."
        }
        return StrataError(
            error.code, what, sqliteCode: error.sqliteCode, extendedCode: error.extendedCode, sql: error.sql,
            entity: target.entity, field: target.fields.first
        ).naming(fields: target.fields)
    }
}
