import Foundation

/// How a list publisher groups its objects into sections: by the value of one stored field.
///
/// ```swift
/// stack.listPublisher(From<Person>().sectionBy(\.age) { "Age \($0)" }.orderBy(.ascending(\.name)))
/// ```
/// Objects are ordered by the section field first (ascending), then by the fetch's own order.
public struct SectionBy<E: Entity>: Sendable {
    let column: Result<ColumnRef, StrataError>
    let fieldIndex: Int?
    let name: @Sendable (DatabaseValue) -> String?

    /// The section identifier of a stored value: the text itself, or the number written out; empty
    /// for `NULL`. `-0.0` is the section of `0.0`: SQLite sorts the two as equal, so they would
    /// interleave as two sections. So that no value shares `NULL`'s identifier, an empty text (or
    /// blob) is `"\u{0}"`, and a text that starts with `"\u{0}"` gets one more in front.
    static func identifier(of value: DatabaseValue) -> String {
        let written: String
        switch value {
        case .null: return ""
        case .integer(let value): return String(value)
        case .real(let value): return String(value == 0 ? 0.0 : value)
        case .text(let value): written = value
        case .blob(let value): written = value.base64EncodedString()
        }
        return written.isEmpty || written.utf8.first == 0 ? "\u{0}" + written : written
    }
}

extension From {
    /// Groups the objects of a list publisher into sections by a stored field; `name` turns a section's
    /// value into its display name (the value written out by default).
    public func sectionBy<V: DatabaseValueConvertible>(
        _ keyPath: KeyPath<E, V>, name: (@Sendable (V) -> String?)? = nil
    ) -> From<E> {
        var copy = self
        let column = ColumnResolver.column(for: keyPath)
        var index: Int?
        if case .field(let field) = E.member(for: keyPath) { index = field }
        copy.sections = SectionBy(
            column: index == nil && (try? column.get()) != nil
                ? .failure(StrataError(
                    .unsupportedQuery, "Sections can only be made from a stored field of \(E.self).",
                    entity: E.entityDescription.name))
                : column,
            fieldIndex: index,
            name: { value in
                if let name, let typed = V(databaseValue: value) { return name(typed) }
                switch value {
                case .null: return nil
                case .text(let text): return text
                default: return SectionBy<E>.identifier(of: value)
                }
            })
        return copy
    }
}
