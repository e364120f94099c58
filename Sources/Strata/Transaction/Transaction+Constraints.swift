import Foundation

/// The errors of a write that broke a constraint, told in the entity's terms.
extension Transaction {
    /// Names the entity and field of a constraint violation reported as `table.column`.
    func describeConstraint(_ error: any Error, entity: EntityDescription) -> any Error {
        guard let error = error as? StrataError else { return error }
        guard error.code == .uniqueConstraint || error.code == .constraint else {
            return error.with(entity: entity.name)
        }
        let sqliteMessage = error.message
        var target: (entity: String, field: String?) = (entity.name, nil)
        if let colon = sqliteMessage.range(of: ": "),
            let named = store.describeConstraint(columns: sqliteMessage[colon.upperBound...])
        {
            target = named
        }
        let what = error.code == .uniqueConstraint
            ? "Another \(target.entity) already has this \(target.field ?? "value"); \(target.field ?? "the field") must be unique."
            : "A constraint of \(target.entity) failed: \(sqliteMessage)."
        return StrataError(
            error.code, what, sqliteCode: error.sqliteCode, extendedCode: error.extendedCode, sql: error.sql,
            entity: target.entity, field: target.field)
    }
}
