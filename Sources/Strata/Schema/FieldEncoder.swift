/// Receives the stored fields of an entity in order; generated `encodeFields(to:)` code feeds it.
///
/// Strata uses it to bind fields straight to a prepared statement (no intermediate array on the
/// insert path) or to collect them as ``DatabaseValue``s to find which fields an edit changed.
public struct FieldEncoder {
    @usableFromInline
    enum Mode {
        case collect
        case bind(Statement, firstIndex: Int32)
    }

    @usableFromInline
    var mode: Mode
    /// The collected values, in collect mode.
    public private(set) var values: [DatabaseValue] = []
    @usableFromInline
    var count: Int32 = 0
    @usableFromInline
    var failure: StrataError?

    /// An encoder that collects the values, readable afterwards from ``values``.
    public static func collecting() -> FieldEncoder {
        FieldEncoder(mode: .collect)
    }

    init(mode: Mode) {
        self.mode = mode
    }

    /// Encodes the next field.
    @inlinable
    public mutating func encode<V: DatabaseValueConvertible>(_ value: V) {
        switch mode {
        case .collect:
            append(value.databaseValue)
        case .bind(let statement, let firstIndex):
            if failure == nil {
                do {
                    try statement.bind(value.databaseValue, at: firstIndex + count)
                } catch {
                    failure = error
                }
            }
            count += 1
        }
    }

    @usableFromInline
    mutating func append(_ value: DatabaseValue) {
        values.append(value)
        count += 1
    }

    /// Collects the fields of an object.
    static func values<E: Entity>(of object: E) -> [DatabaseValue] {
        var encoder = FieldEncoder.collecting()
        encoder.values.reserveCapacity(E.entityDescription.fields.count)
        object.encodeFields(to: &encoder)
        return encoder.values
    }
}

@available(*, unavailable)
extension FieldEncoder: Sendable {}
