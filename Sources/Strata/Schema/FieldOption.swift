/// An option of a stored field, given to the ``Field(column:_:renamedFrom:)`` macro.
public enum FieldOption: Sendable, Hashable {
    /// No two objects may hold the same value; a transaction that breaks this throws
    /// ``StrataError/Code/uniqueConstraint`` naming the entity and the field. `nil` is no value: any
    /// number of objects may hold `nil` in an optional unique field. For values unique together over
    /// several fields, declare ``Unique(_:)`` in the entity's body.
    case unique
    /// The column gets an index, so that queries on it do not scan the table. For an index over several
    /// fields, declare ``Index(_:)`` in the entity's body.
    case indexed
}
