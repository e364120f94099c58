/// The order of fetched objects: a list of fields, each ascending or descending.
///
/// ```swift
/// From<Person>().orderBy(.ascending(\.name) + .descending(\.age))
/// ```
public struct OrderBy<E: Entity>: Sendable {
    struct Term: Sendable {
        let column: Result<String, StrataError>
        let ascending: Bool
    }

    let terms: [Term]

    init(terms: [Term] = []) {
        self.terms = terms
    }

    /// Smallest values first.
    public static func ascending<V: DatabaseValueConvertible>(_ keyPath: KeyPath<E, V>) -> OrderBy<E> {
        OrderBy(terms: [Term(column: Where<E>.column(for: keyPath), ascending: true)])
    }

    /// Largest values first.
    public static func descending<V: DatabaseValueConvertible>(_ keyPath: KeyPath<E, V>) -> OrderBy<E> {
        OrderBy(terms: [Term(column: Where<E>.column(for: keyPath), ascending: false)])
    }

    /// The keys of `lhs`, then those of `rhs`.
    public static func + (lhs: OrderBy<E>, rhs: OrderBy<E>) -> OrderBy<E> {
        OrderBy(terms: lhs.terms + rhs.terms)
    }

    /// Adds the keys of `rhs` after those of `lhs`.
    public static func += (lhs: inout OrderBy<E>, rhs: OrderBy<E>) {
        lhs = lhs + rhs
    }
}
