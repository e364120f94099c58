public import Foundation

/// The order of fetched objects: a list of fields, each ascending or descending.
///
/// ```swift
/// From<Person>().orderBy(.ascending(\.name) + .descending(\.age))
/// From<Person>().orderBy(.ascending("name"))                      // by property name
/// From<Person>().orderBy(OrderBy(SortDescriptor(\Person.age, order: .reverse)))
/// ```
/// Text sorts by its bytes (like Swift's `<` on strings) unless asked otherwise:
/// ``ascending(_:comparing:)`` and ``descending(_:comparing:)`` sort it case-insensitively or like the
/// Finder, and so does, on Apple platforms, a `SortDescriptor` with a `.localized` or `.localizedStandard`
/// comparator. `nil` sorts before every value: first in ascending order, last in descending order.
public struct OrderBy<E: Entity>: Sendable {
    struct Term: Sendable {
        let column: Result<ColumnRef, StrataError>
        let ascending: Bool
        /// The collation to sort text with, when not the default.
        var collation: String?

        /// A term; a column SQL cannot sort (a `Decimal`, stored as text) becomes its error, however the
        /// order named it.
        init(column: Result<ColumnRef, StrataError>, ascending: Bool, collation: String? = nil) {
            if case .success(let resolved) = column, let refusal = TextStoredNumbers.refusal(resolved, "sort by it") {
                self.column = .failure(refusal)
            } else {
                self.column = column
            }
            self.ascending = ascending
            self.collation = collation
        }
    }

    let terms: [Term]

    init(terms: [Term] = []) {
        self.terms = terms
    }

    /// Smallest values first; `nil` first of all.
    public static func ascending<V: DatabaseValueConvertible>(_ keyPath: KeyPath<E, V>) -> OrderBy<E> {
        OrderBy(terms: [Term(column: sortable(keyPath), ascending: true)])
    }

    /// Largest values first; `nil` last of all.
    public static func descending<V: DatabaseValueConvertible>(_ keyPath: KeyPath<E, V>) -> OrderBy<E> {
        OrderBy(terms: [Term(column: sortable(keyPath), ascending: false)])
    }

    /// The column to sort by, or the error for a field SQL cannot sort (a `Decimal`, stored as text).
    private static func sortable<V>(_ keyPath: KeyPath<E, V>) -> Result<ColumnRef, StrataError> {
        if let refusal = TextStoredNumbers.refusal(keyPath, "sort by it") { return .failure(refusal) }
        return ColumnResolver.column(for: keyPath)
    }

    /// How text compares when sorting.
    public enum TextComparison: Sendable {
        /// By Unicode scalar values, like Swift's `<` on strings (the default).
        case lexical
        /// Ignoring case.
        case caseInsensitive
        /// Like `localizedStandardCompare`: as the Finder sorts names (numbers by value, case ignored).
        case localizedStandard

        var collation: String? {
            switch self {
            case .lexical: nil
            case .caseInsensitive: Collation.caseInsensitive
            case .localizedStandard: Collation.localized
            }
        }
    }

    /// Texts in ascending order, compared as asked.
    public static func ascending(_ keyPath: KeyPath<E, String>, comparing: TextComparison) -> OrderBy<E> {
        OrderBy(terms: [Term(column: ColumnResolver.column(for: keyPath), ascending: true, collation: comparing.collation)])
    }

    /// Texts in descending order, compared as asked.
    public static func descending(_ keyPath: KeyPath<E, String>, comparing: TextComparison) -> OrderBy<E> {
        OrderBy(terms: [Term(column: ColumnResolver.column(for: keyPath), ascending: false, collation: comparing.collation)])
    }

    /// Smallest values first, naming the field by its property name (or `id`); `nil` first of all.
    public static func ascending(_ key: String) -> OrderBy<E> {
        OrderBy(terms: [Term(column: ColumnResolver.column(forKeyPath: key, of: E.self).map(\.0), ascending: true)])
    }

    /// Largest values first, naming the field by its property name (or `id`); `nil` last of all.
    public static func descending(_ key: String) -> OrderBy<E> {
        OrderBy(terms: [Term(column: ColumnResolver.column(forKeyPath: key, of: E.self).map(\.0), ascending: false)])
    }

    /// The order of Foundation sort descriptors.
    ///
    /// Key-path descriptors are supported. Strings sort lexically with no comparator or `.lexical`. On
    /// Apple platforms, `.localizedStandard` and `.localized` both sort as `localizedStandardCompare`
    /// does (as the Finder sorts names: case ignored, numbers by value): `.localized` is mapped to that
    /// same order, not to `localizedCompare`'s. No comparator sorts case-insensitively; for that, use
    /// ``ascending(_:comparing:)`` with ``TextComparison/caseInsensitive``. Any other comparator, and on
    /// Linux `.localized` and `.localizedStandard`, makes the fetch throw ``StrataError/Code/unsupportedQuery``.
    public init(_ descriptors: [SortDescriptor<E>]) {
        terms = descriptors.map { descriptor in
            let ascending = descriptor.order == .forward
            guard let keyPath = descriptor.keyPath else {
                return Term(
                    column: .failure(StrataError(
                        .unsupportedQuery,
                        "A SortDescriptor of \(E.self) without a key path cannot be translated to SQL.",
                        entity: E.entityDescription.name)),
                    ascending: ascending)
            }
            var term = Term(column: ColumnResolver.column(for: keyPath), ascending: ascending)
            if let comparator = descriptor.stringComparator {
                switch Collation.named(for: comparator) {
                case .success(let collation): term.collation = collation
                case .failure(let error): term = Term(column: .failure(error.with(entity: E.entityDescription.name)), ascending: ascending)
                }
            }
            return term
        }
    }

    /// The order of one Foundation sort descriptor.
    public init(_ descriptor: SortDescriptor<E>) {
        self.init([descriptor])
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
