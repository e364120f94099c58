import Foundation

/// `Decimal` is stored as text, so that no digit is lost, and SQL orders text character by character
/// ("10" before "9"): filters that order it (`<`, `between`), sorts and `minimum` / `maximum` would give
/// wrong answers without a word. They refuse it instead. Equality (`==`, `!=`, `in`) is exact.
enum TextStoredNumbers {
    /// Whether values of `V` are decimals (optional or not).
    static func isDecimal<V>(_ type: V.Type) -> Bool {
        V.self == Decimal.self || V.self == Decimal?.self
    }

    /// The error for ordering a `Decimal` field by `operation` ("filter it with <", "sort by it").
    static func refusal<Root: Entity, V>(_ keyPath: KeyPath<Root, V>, _ operation: String) -> StrataError? {
        guard isDecimal(V.self) else { return nil }
        let property = (try? ColumnResolver.column(for: keyPath).get())?.property ?? "a field"
        return refusal(entity: Root.entityDescription.name, property: property, operation)
    }

    /// The error for ordering `column` by `operation` when it holds a `Decimal`, however the query named
    /// it (a key path, a property name, a format string, a `SortDescriptor`, a chain).
    static func refusal(_ column: ColumnRef, _ operation: String) -> StrataError? {
        guard column.isDecimal else { return nil }
        return refusal(entity: column.entity, property: column.property, operation)
    }

    private static func refusal(entity: String, property: String, _ operation: String) -> StrataError {
        StrataError(
            .unsupportedQuery,
            "\(entity).\(property) is a Decimal, which Strata stores as text to keep every digit, and SQL "
                + "orders text character by character (\"10\" before \"9\"), so Strata cannot \(operation). "
                + "Compare it with ==, != or in; to filter, sort or aggregate by amount, store it as an integer "
                + "of its smallest unit (cents) or as a Double.",
            entity: entity, field: property)
    }
}
