public import Foundation

/// The current row of a running query, read column by column.
///
/// A row is only valid while Strata is reading it: it is handed to generated `init(row:)` code and
/// cannot leave the connection's executor (it is not `Sendable`).
public struct Row {
    @usableFromInline
    let statement: Statement
    /// The tag of the store the row is read from, taken once per row reader (reading it through the
    /// statement's unowned connection for every ID would cost a reference check each time).
    let storeTag: UInt32

    init(statement: Statement) {
        self.statement = statement
        let column = statement.tagColumn
        if column >= 0, case .integer(let tag) = statement.value(at: column) {
            self.storeTag = UInt32(truncatingIfNeeded: tag)
        } else {
            self.storeTag = statement.connection.storeTag
        }
    }

    /// A row of a statement whose rows all come from the store tagged `storeTag`.
    init(statement: Statement, storeTag: UInt32) {
        self.statement = statement
        self.storeTag = storeTag
    }

    /// Decodes the value of column `index` (0-based) as `V`.
    ///
    /// - Throws: ``StrataError/Code/typeMismatch`` when the stored value cannot be read as `V`.
    @inlinable
    public func decode<V: DatabaseValueConvertible>(at index: Int32) throws -> V {
        // The common field types read their column with its own accessor when it holds their usual
        // storage class, without making a DatabaseValue. Generated code names the field's type, so in
        // its specialization each type test is a constant and the other cases vanish; anything else
        // (another storage class or type) takes the general path below.
        switch statement.columnType(at: index) {
        case .text:
            if V.self == String.self { return statement.text(at: index) as! V }
            if V.self == String?.self { return Optional(statement.text(at: index)) as! V }
            // Text another program wrote into a Data field: its bytes as they are, not repaired as UTF-8.
            if V.self == Data.self { return statement.bytes(at: index) as! V }
            if V.self == Data?.self { return Optional(statement.bytes(at: index)) as! V }
        case .integer:
            if V.self == Int.self, let exact = Int(exactly: statement.integer(at: index)) { return exact as! V }
            if V.self == Int?.self, let exact = Int(exactly: statement.integer(at: index)) { return Optional(exact) as! V }
        case .real:
            if V.self == Double.self { return statement.real(at: index) as! V }
            if V.self == Double?.self { return Optional(statement.real(at: index)) as! V }
            if V.self == Date.self { return Date(timeIntervalSinceReferenceDate: statement.real(at: index)) as! V }
            if V.self == Date?.self { return Optional(Date(timeIntervalSinceReferenceDate: statement.real(at: index))) as! V }
        case .null:
            if V.isOptional, let none = V(databaseValue: .null) { return none }
        case .blob:
            break
        }
        let value = statement.value(at: index)
        guard let decoded = V(databaseValue: value) else {
            throw typeMismatch(V.self, value: value, at: index)
        }
        return decoded
    }

    /// Decodes a `Codable` value stored as JSON text in column `index`. Generated code for `@Coded` calls this.
    ///
    /// Disfavored so that an optional result picks the overload below, which reads `NULL` as `nil`: the two
    /// differ only in their result type, which alone would leave the call ambiguous.
    @_disfavoredOverload
    public func decodeJSON<V: Decodable>(at index: Int32) throws -> V {
        let value = statement.value(at: index)
        let data: Data
        switch value {
        case .text(let text): data = Data(text.utf8)
        case .blob(let blob): data = blob
        default: throw typeMismatch(V.self, value: value, at: index)
        }
        do {
            return try JSONDecoder().decode(V.self, from: data)
        } catch {
            let column = statement.columnName(at: index)
            let advice = "The stored data does not match the field's type: check the type, or migrate the store."
            // A DecodingError may quote the stored value: logs and spans get the message without it.
            throw StrataError(
                .typeMismatch, "Column \(column) holds JSON that cannot be decoded as \(V.self): \(error). " + advice,
                sql: statement.sql, field: column
            ).hidingValues("Column \(column) holds JSON that cannot be decoded as \(V.self). " + advice)
        }
    }

    /// Decodes an optional `Codable` value stored as JSON text (`NULL` is `nil`).
    public func decodeJSON<V: Decodable>(at index: Int32) throws -> V? {
        if statement.value(at: index).isNull { return nil }
        return .some(try decodeJSON(at: index) as V)
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
        let advice = "The stored data does not match the entity's declaration: check the field's type, or migrate the store."
        return StrataError(
            .typeMismatch, "Column \(column) holds \(value), which cannot be read as \(V.self). " + advice,
            sql: statement.sql, field: column
        ).hidingValues("Column \(column) holds \(value.kindDescription), which cannot be read as \(V.self). " + advice)
    }
}

@available(*, unavailable)
extension Row: Sendable {}

/// The rows of a running query, one at a time: generated ``Entity/decodeAll(_:)`` code reads them in
/// a loop specialized for its entity type.
public struct RowSequence {
    let statement: Statement

    /// The connection's store tag, read once (through the statement's unowned connection).
    let storeTag: UInt32

    init(statement: Statement) {
        self.statement = statement
        self.storeTag = statement.connection.storeTag
    }

    /// The next row, or `nil` after the last one.
    public func next() throws -> Row? {
        guard try statement.step() else { return nil }
        // A read across stores reads each row's store tag; otherwise every row has the connection's.
        return statement.tagColumn >= 0 ? Row(statement: statement) : Row(statement: statement, storeTag: storeTag)
    }
}
