import Foundation

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
    /// The collected values of the stored fields, in collect mode.
    public private(set) var values: [DatabaseValue] = []
    /// The row IDs of each to-many relationship, in order.
    public private(set) var relationships: [[Int64]] = []
    /// The values of the derived fields (collected to refuse edits of them).
    public private(set) var derivedValues: [DatabaseValue] = []
    @usableFromInline
    var count: Int32 = 0
    @usableFromInline
    var failure: StrataError?
    /// The position of the stored field whose value failed to encode or bind, with ``failure``.
    @usableFromInline
    var failedField: Int?

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
        encodeRaw(value.databaseValue)
    }

    @usableFromInline
    mutating func encodeRaw(_ value: DatabaseValue) {
        switch mode {
        case .collect:
            append(value)
        case .bind(let statement, let firstIndex):
            if failure == nil {
                do {
                    try statement.bind(value, at: firstIndex + count)
                } catch {
                    failure = error
                    failedField = Int(count)
                }
            }
            count += 1
        }
    }

    /// Encodes the next field, a `Codable` value, as JSON text.
    public mutating func encodeJSON<V: Encodable>(_ value: V) {
        let json: DatabaseValue
        do {
            json = .text(try Self.jsonText(value))
        } catch {
            if failure == nil {
                failure = StrataError(.invalidArgument, "A @Coded value of type \(V.self) cannot be encoded as JSON: \(error).")
                failedField = Int(count)
            }
            json = .null
        }
        encodeRaw(json)
    }

    /// A `Codable` value's JSON text, as `@Coded` fields store it (keys sorted).
    static func jsonText<V: Encodable>(_ value: V) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A `Codable` value's JSON text, or nil when it cannot be encoded.
    static func json<V: Encodable>(_ value: V) -> String? {
        try? jsonText(value)
    }

    /// Encodes the next field, an optional `Codable` value, as JSON text or `NULL`.
    public mutating func encodeJSON<V: Encodable>(_ value: V?) {
        if let value { encodeJSON(value) } else { encodeRaw(.null) }
    }

    /// Encodes the next field, a to-one relationship, noting the store its ID comes from.
    public mutating func encodeID<T: Entity>(_ id: EntityID<T>?) {
        if let id, id.storeTag != 0 { idTags.append(IDTag(storeTag: id.storeTag, field: Int(count), toMany: nil)) }
        encodeRaw(id.map { .integer($0.rawValue) } ?? .null)
    }

    /// Encodes an unordered to-many relationship.
    public mutating func encodeRelationship<T: Entity>(_ ids: Set<EntityID<T>>) {
        noteTags(ids)
        relationships.append(ids.map(\.rawValue).sorted())
    }

    /// Encodes an ordered to-many relationship.
    public mutating func encodeRelationship<T: Entity>(_ ids: [EntityID<T>]) {
        noteTags(ids)
        relationships.append(ids.map(\.rawValue))
    }

    private mutating func noteTags<T: Entity, S: Sequence<EntityID<T>>>(_ ids: S) {
        for id in ids where id.storeTag != 0 {
            idTags.append(IDTag(storeTag: id.storeTag, field: nil, toMany: relationships.count))
        }
    }

    /// Where an ID tagged with a store was encoded.
    struct IDTag {
        let storeTag: UInt32
        /// The stored field (a to-one relationship), or nil.
        let field: Int?
        /// The to-many relationship, or nil.
        let toMany: Int?
    }

    /// The IDs with a store tag, among the encoded relationships.
    private(set) var idTags: [IDTag] = []

    /// The first value that failed to encode or bind, as an error naming `entity` and the field.
    func failureError(entity: EntityDescription) -> StrataError? {
        guard let failure else { return nil }
        let field = failedField.flatMap { $0 < entity.fields.count ? entity.fields[$0].property : nil }
        return failure.with(entity: entity.name, field: field)
    }

    /// The error for the first related ID that comes from another store than the one tagged `storeTag`.
    func foreignIDError(storeTag: UInt32, entity: EntityDescription) -> StrataError? {
        guard let foreign = idTags.first(where: { $0.storeTag != storeTag }) else { return nil }
        let property = foreign.field.map { entity.fields[$0].property } ?? foreign.toMany.map { entity.toMany[$0].property }
        return StrataError(
            .invalidArgument,
            "\(entity.name).\(property ?? "?") holds an ID from another store: IDs act only on the store they "
                + "were read from. Look the object up in this store, or make the ID with EntityID(rawValue:) "
                + "if you mean this store's row with that number.",
            entity: entity.name, field: property)
    }

    /// Encodes a derived field (read-only: Strata uses it to refuse edits of it).
    public mutating func encodeDerived<V: DatabaseValueConvertible>(_ value: V) {
        derivedValues.append(value.databaseValue)
    }

    @usableFromInline
    mutating func append(_ value: DatabaseValue) {
        values.append(value)
        count += 1
    }

    /// Collects the fields, relationships and derived values of an object.
    static func collect<E: Entity>(_ object: E) -> FieldEncoder {
        var encoder = FieldEncoder.collecting()
        encoder.values.reserveCapacity(E.entityDescription.fields.count)
        object.encodeFields(to: &encoder)
        return encoder
    }

    /// Collects the fields of an object.
    static func values<E: Entity>(of object: E) -> [DatabaseValue] {
        collect(object).values
    }
}

@available(*, unavailable)
extension FieldEncoder: Sendable {}
