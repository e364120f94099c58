/// Makes a struct storable: generates its `id`, column metadata, row decoding and field encoding.
///
/// Every stored property must be a `var` of a ``DatabaseValueConvertible`` type with a default value
/// (optionals default to `nil`), or have a dynamic initial value given with ``Field(column:_:dynamicInitialValue:)``.
/// Computed and static properties are ignored. The macro reports anything it cannot store at the
/// offending declaration.
///
/// - Parameter name: The entity (and table) name; the type name when omitted.
@attached(member, names: named(id))
@attached(extension, conformances: Entity, names: named(entityDescription), named(init), named(encodeFields), named(fieldIndex), named(idKeyPath))
public macro Entity(name: String? = nil) = #externalMacro(module: "StrataMacros", type: "EntityMacro")

/// Sets the options of a stored field of an ``Entity(name:)`` struct.
///
/// ```swift
/// @Field(column: "full_name", .indexed) var name: String = ""
/// @Field(.unique) var email: String? = nil
/// ```
///
/// - Parameters:
///   - column: The column name; the property name when omitted. Keep it when you rename the property
///     and the table does not change.
///   - options: ``FieldOption/unique`` and ``FieldOption/indexed``.
@attached(peer)
public macro Field(column: String? = nil, _ options: FieldOption...) =
    #externalMacro(module: "StrataMacros", type: "FieldMacro")

/// Sets the options of a stored field whose initial value is computed anew for every created object,
/// like a fresh `UUID` or the creation date (Core Data's and CoreStore's dynamic initial value).
///
/// ```swift
/// @Field(dynamicInitialValue: { Date() }) var created: Date = .distantPast
/// ```
@attached(peer)
public macro Field<Value>(
    column: String? = nil, _ options: FieldOption..., dynamicInitialValue: @escaping @Sendable () -> Value
) = #externalMacro(module: "StrataMacros", type: "FieldMacro")
