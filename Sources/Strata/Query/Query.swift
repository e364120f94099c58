/// A query: select terms over an entity, with an optional filter, grouping and order.
///
/// Make one from a ``From`` clause:
/// ```swift
/// let oldest = try await stack.queryValue(From<Person>().select(Int.self, .maximum(\.age)))
/// let byAge = try await stack.queryAttributes(
///     From<Person>().select(.attribute(\.age), .count(\.id)).where(\.age >= 18).groupBy(\.age).orderBy(.ascending(\.age)))
/// ```
/// `Result` is the type ``DataStack/queryValue(_:)`` returns, or ``QueryRow`` for
/// ``DataStack/queryAttributes(_:)``.
public struct Query<E: Entity, Result: Sendable>: Sendable {
    var from: From<E>
    let terms: [SelectTerm<E>]
    var groups: [Swift.Result<ColumnRef, StrataError>] = []

    /// Whether the query aggregates, without groups, rows that a limit or an offset chooses: the rows
    /// are then selected in a subquery the aggregates read.
    var aggregatesLimitedRows: Bool {
        groups.isEmpty && (from.limit != nil || from.offset != nil) && terms.contains { $0.function != .attribute }
    }

    /// Keeps only the objects that match (AND-combined with an earlier filter).
    public func `where`(_ predicate: Where<E>) -> Query<E, Result> {
        var copy = self
        copy.from = from.where(predicate)
        return copy
    }

    /// Orders the rows.
    public func orderBy(_ order: OrderBy<E>) -> Query<E, Result> {
        var copy = self
        copy.from = from.orderBy(order)
        return copy
    }

    /// Keeps only the objects whose Boolean field is `true` (AND-combined with an earlier filter).
    public func `where`(_ keyPath: KeyPath<E, Bool>) -> Query<E, Result> {
        self.where(keyPath == true)
    }

    /// Groups rows by fields; aggregates are computed per group.
    public func groupBy(_ keyPaths: PartialKeyPath<E>...) -> Query<E, Result> {
        var copy = self
        copy.groups += keyPaths.map { ColumnResolver.column(for: $0) }
        return copy
    }

    /// Groups rows by fields named by their property names.
    public func groupBy(_ keys: String...) -> Query<E, Result> {
        var copy = self
        copy.groups += keys.map { ColumnResolver.column(forKeyPath: $0, of: E.self).map(\.0) }
        return copy
    }

    /// Applies limit and offset. Without `groupBy`, they choose the rows
    /// the query reads: `From<Person>().orderBy(.descending(\.age)).limit(10).select(Double.self,
    /// .average(\.age))` is the average age of the ten oldest, as ``DataStack/fetchCount(_:)`` counts the
    /// rows a limit and an offset choose. With groups, they choose groups.
    public func tweak(_ tweaks: Tweak...) -> Query<E, Result> {
        var copy = self
        for tweak in tweaks { copy.from = copy.from.tweak(tweak) }
        return copy
    }
}

extension From {
    /// A query for one value, such as an aggregate: `From<Person>().select(Int.self, .count(\.id))`.
    public func select<T: DatabaseValueConvertible>(_ type: T.Type, _ term: SelectTerm<E>) -> Query<E, T> {
        Query(from: self, terms: [term])
    }

    /// A query for rows of keyed values: `From<Person>().select(.attribute(\.age), .count(\.id))`.
    public func select(_ terms: SelectTerm<E>...) -> Query<E, QueryRow> {
        Query(from: self, terms: terms)
    }
}
