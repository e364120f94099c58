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
        return try IDList.parse(text).map(EntityID<T>.init(rawValue:))
    }
}
