/// The current row of a running query, read column by column.
///
/// A row is only valid while Strata is reading it: it is handed to generated `init(row:)` code and
/// cannot leave the connection's executor (it is not `Sendable`).
public struct Row {
    @usableFromInline
    let statement: Statement

    init(statement: Statement) {
        self.statement = statement
    }

    /// Decodes the value of column `index` (0-based) as `V`.
    ///
    /// - Throws: ``StrataError/Code/typeMismatch`` when the stored value cannot be read as `V`.
    @inlinable
    public func decode<V: DatabaseValueConvertible>(at index: Int32) throws -> V {
        let value = statement.value(at: index)
        guard let decoded = V(databaseValue: value) else {
            throw typeMismatch(V.self, value: value, at: index)
        }
        return decoded
    }

    /// The raw value of column `index` (0-based).
    public func databaseValue(at index: Int32) -> DatabaseValue {
        statement.value(at: index)
    }

    /// The number of columns.
    public var count: Int { Int(statement.columnCount) }

    @usableFromInline
    func typeMismatch<V>(_ type: V.Type, value: DatabaseValue, at index: Int32) -> StrataError {
        let column = statement.columnName(at: index)
        return StrataError(
            .typeMismatch,
            "Column \(column) holds \(value), which cannot be read as \(V.self). The stored data does not "
                + "match the entity's declaration: check the field's type, or migrate the store.",
            sql: statement.sql, field: column)
    }
}

@available(*, unavailable)
extension Row: Sendable {}
