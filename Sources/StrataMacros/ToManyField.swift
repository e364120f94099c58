/// A to-many relationship of an `@Entity` struct, `@Relationship var pets: Set<Pet.ID> = []`: not a
/// column of its table, but a list of IDs that Strata reads and writes with the object.
struct ToManyField {
    /// The property name as Swift code spells it, backticks included.
    var identifier: String
    /// The property name as a plain string.
    var name: String
    /// The delete rule spelled as Swift code (`.cascade`), or `nil` for the default, `.nullify`.
    var deleteRule: String?
    /// The name of the inverse relationship on the target entity, when declared here.
    var inverse: String?
    /// Whether the property declares its initial value; otherwise a new object starts with `[]`.
    var hasDefault: Bool
    /// The relationship's name in the version before, from `renamedFrom:`.
    var renamedFrom: String?
}
