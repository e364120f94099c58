/// One row of an attributes query: each select term's value under its key.
public struct QueryRow: Sendable, Hashable {
    /// The values, keyed by each term's ``SelectTerm/key``.
    public let values: [String: DatabaseValue]

    /// Makes a row from its values.
    public init(values: [String: DatabaseValue]) {
        self.values = values
    }

    /// The raw value under a key, or `nil` when the query has no such key.
    public subscript(key: String) -> DatabaseValue? {
        values[key]
    }

    /// The value under a key as `T`, or `nil` when it is missing, `NULL`, or not representable as `T`.
    public subscript<T: DatabaseValueConvertible>(key: String, as type: T.Type) -> T? {
        values[key].flatMap { T(databaseValue: $0) }
    }
}
