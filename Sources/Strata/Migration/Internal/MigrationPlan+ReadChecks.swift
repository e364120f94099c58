/// Fields whose Swift type changes while their column type stays (`String` to an enum of `String`
/// raw values, `Int` to an enum of `Int` raw values, a type of the app's own): the column keeps its
/// values, so the planner sees no change, but the new type may not read every one of them.
extension MigrationPlan {
    /// A field whose every stored value is read with its new Swift type once the step has run, before the
    /// migration commits (see `Migrator.checkReads(_:)`).
    struct ReadCheck {
        let column: String
        let property: String
        let oldType: String
        let newType: String
        let reads: @Sendable (DatabaseValue) -> Bool
    }

    /// The check of a field whose Swift type changes in a way the planner does not check itself, or `nil`:
    /// changes between the number, `Bool` and `Date` types are checked, exactly, in SQL
    /// (``sameColumnChange(from:to:)`` and ``conversion(from:to:entity:checked:)``); coded fields and
    /// relationships are not values of a `DatabaseValueConvertible` type.
    static func readCheck(from old: FieldDescription, to new: FieldDescription) -> ReadCheck? {
        guard case .attribute = old.kind, case .attribute = new.kind,
            old.valueFamily.kind == .other || new.valueFamily.kind == .other,
            let oldType = old.valueFamily.typeName, let newType = new.valueFamily.typeName, oldType != newType,
            let reads = new.valueFamily.reads
        else { return nil }
        return ReadCheck(column: new.column, property: new.property, oldType: oldType, newType: newType, reads: reads)
    }
}
