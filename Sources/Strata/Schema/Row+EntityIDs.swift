/// Decoding relationships: to-many relationships are stored as JSON arrays of IDs.
extension Row {
    /// Decodes an unordered to-many relationship (a JSON array of IDs). Generated code calls this.
    public func decodeIDs<T: Entity>(at index: Int32) throws -> Set<EntityID<T>> {
        Set(try decodeIDs(at: index) as [EntityID<T>])
    }

    /// Decodes an ordered to-many relationship (a JSON array of IDs, in order). Generated code calls this.
    public func decodeIDs<T: Entity>(at index: Int32) throws -> [EntityID<T>] {
        let value = statement.value(at: index)
        guard case .text(let text) = value else {
            if value.isNull { return [] }
            throw typeMismatch([EntityID<T>].self, value: value, at: index)
        }
        let tag = storeTag
        return try IDList.parse(text).map { EntityID<T>(rawValue: $0, storeTag: tag) }
    }

    /// Decodes an ID (an object's own, or a to-one relationship), tagged with the store it comes from.
    /// Generated code calls this.
    public func decodeID<T: Entity>(at index: Int32) throws -> EntityID<T> {
        if statement.columnType(at: index) == .integer {
            return EntityID(rawValue: statement.integer(at: index), storeTag: storeTag)
        }
        let value = statement.value(at: index)
        guard case .integer(let raw) = value else { throw typeMismatch(EntityID<T>.self, value: value, at: index) }
        return EntityID(rawValue: raw, storeTag: storeTag)
    }

    /// Decodes an optional to-one relationship, tagged with the store it comes from.
    public func decodeID<T: Entity>(at index: Int32) throws -> EntityID<T>? {
        let value = statement.value(at: index)
        switch value {
        case .null: return nil
        case .integer(let raw): return EntityID(rawValue: raw, storeTag: storeTag)
        default: throw typeMismatch(EntityID<T>?.self, value: value, at: index)
        }
    }
}
