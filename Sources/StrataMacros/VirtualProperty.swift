/// A computed instance property of an `@Entity` struct: never stored, listed as virtual so that the query
/// layer can tell the user why it cannot filter or sort on it.
struct VirtualProperty {
    /// The property name as Swift code spells it, backticks included.
    var identifier: String
    /// The property name as a plain string.
    var name: String
}
