/// What Strata knows about one stored field of an entity.
public struct FieldDescription: Sendable, Hashable {
    /// The Swift property name.
    public let property: String
    /// The column name in the table; independent of the property name, so that renaming a property
    /// does not change the table.
    public let column: String
    /// The column type.
    public let storageClass: StorageClass
    /// Whether the column accepts `NULL`.
    public let isOptional: Bool
    /// The options declared with ``Field(column:_:)``.
    public let options: Set<FieldOption>
    /// The declared default value, as stored, when one was declared.
    public let defaultValue: DatabaseValue?
    /// Whether a fresh value is computed for every created object.
    public let hasDynamicInitialValue: Bool

    /// Whether the field has the ``FieldOption/unique`` option.
    public var isUnique: Bool { options.contains(.unique) }
    /// Whether the field has the ``FieldOption/indexed`` option.
    public var isIndexed: Bool { options.contains(.indexed) }

    /// Describes a field. The macro calls this; the key path only serves to infer the value type.
    public static func stored<Root, Value: DatabaseValueConvertible>(
        _ keyPath: KeyPath<Root, Value>,
        property: String,
        column: String,
        options: Set<FieldOption> = [],
        hasDynamicInitialValue: Bool = false
    ) -> FieldDescription {
        FieldDescription(
            property: property, column: column, storageClass: Value.storageClass,
            isOptional: Value.isOptional, options: options, defaultValue: nil,
            hasDynamicInitialValue: hasDynamicInitialValue)
    }

    /// Describes a field with a declared default value. The macro calls this.
    public static func stored<Root, Value: DatabaseValueConvertible>(
        _ keyPath: KeyPath<Root, Value>,
        property: String,
        column: String,
        options: Set<FieldOption> = [],
        hasDynamicInitialValue: Bool = false,
        default defaultValue: Value
    ) -> FieldDescription {
        FieldDescription(
            property: property, column: column, storageClass: Value.storageClass,
            isOptional: Value.isOptional, options: options, defaultValue: defaultValue.databaseValue,
            hasDynamicInitialValue: hasDynamicInitialValue)
    }
}
