/// Makes a struct storable: generates its `id`, column metadata, row decoding and field encoding.
///
/// Every stored property must be a `var` of a ``DatabaseValueConvertible`` type with a default value
/// (optionals default to `nil`), or have a dynamic initial value given with ``Field(column:_:renamedFrom:dynamicInitialValue:)``.
/// Computed properties become virtual fields (never stored, refused in queries); static properties are ignored. The macro reports anything it cannot store at the
/// offending declaration.
///
/// - Parameters:
///   - name: The entity (and table) name; the type name when omitted.
///   - renamedFrom: The entity's name in the schema version before, when this version renames it: a
///     migration from that version renames the entity (same objects, same IDs) without a step saying so.
@attached(member, names: named(id), named(ID), named(entityDescription), named(encodeFields), named(_StrataScope))
@attached(extension, conformances: Entity, names: named(init), named(member), named(navigableMembers), named(decodeAll))
public macro Entity(name: String? = nil, renamedFrom: String? = nil) = #externalMacro(module: "StrataMacros", type: "EntityMacro")

/// Sets the options of a stored field of an ``Entity(name:renamedFrom:)`` struct.
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
///   - renamedFrom: The field's property name in the schema version before, when this version renames
///     it: a migration from that version moves its values over without a step saying so
///     (`@Field(renamedFrom: "fullName") var name: String = ""`). A name that version's entity does not
///     have, on a field it does not have either, is refused with ``StrataError/Code/invalidMigration``
///     (a misspelling would drop the old values); left on the field in later versions, it is ignored.
@attached(peer)
public macro Field(column: String? = nil, _ options: FieldOption..., renamedFrom: String? = nil) =
    #externalMacro(module: "StrataMacros", type: "FieldMacro")

/// Sets the options of a stored field whose initial value is computed anew for every created object,
/// like a fresh `UUID` or the creation date (Core Data's and CoreStore's dynamic initial value).
///
/// ```swift
/// @Field(dynamicInitialValue: { Date() }) var created: Date = .distantPast
/// ```
@attached(peer)
public macro Field<Value>(
    column: String? = nil, _ options: FieldOption..., renamedFrom: String? = nil,
    dynamicInitialValue: @escaping @Sendable () -> Value
) = #externalMacro(module: "StrataMacros", type: "FieldMacro")

/// Declares a relationship to another entity.
///
/// - A to-one relationship is an optional ID: `@Relationship var owner: Person.ID?`, stored as a foreign key.
/// - A to-many relationship is a set of IDs (unordered) or an array of IDs (ordered):
///   `@Relationship(deleteRule: .cascade, inverse: \Pet.owner) var pets: Set<Pet.ID> = []`.
///
/// Declare the inverse on one side only; Strata finds it from the other. (Declaring it on both sides
/// makes the compiler report a circular reference between the two attributes.) A to-many whose inverse is a to-one
/// is stored through the to-one's foreign key; other to-many relationships get a join table.
///
/// - Parameters:
///   - deleteRule: What deleting this object does to the related ones (``DeleteRule/nullify`` by default).
///   - inverse: The relationship on the other entity that points back.
///   - renamedFrom: The relationship's property name in the schema version before, when this version
///     renames it: a migration from that version keeps its links without a step saying so. A name that
///     version's entity does not have, on a relationship it does not have either, is refused with
///     ``StrataError/Code/invalidMigration``; left on the relationship in later versions, it is ignored.
@attached(peer)
public macro Relationship(deleteRule: DeleteRule = .nullify, inverse: AnyKeyPath? = nil, renamedFrom: String? = nil) =
    #externalMacro(module: "StrataMacros", type: "RelationshipMacro")

/// Stores a `Codable` value as JSON text: `@Coded var tags: [String] = []`.
///
/// The value's type must also be `Hashable` and `Sendable`, as every field's is (an ``Entity`` is both):
/// `struct Address: Codable, Hashable`.
@attached(peer)
public macro Coded() = #externalMacro(module: "StrataMacros", type: "CodedMacro")

/// Stores a value through a custom encode / decode pair:
/// `@Coded(encode: { $0.hex }, decode: { Color(hex: $0) }) var tint: Color = .red`.
///
/// The value's type must be `Hashable` and `Sendable`, as every field's is (an ``Entity`` is both).
@attached(peer)
public macro Coded<Value, Stored: DatabaseValueConvertible>(
    encode: @escaping @Sendable (Value) -> Stored, decode: @escaping @Sendable (Stored) throws -> Value
) = #externalMacro(module: "StrataMacros", type: "CodedMacro")

/// A derived field: the number of objects in a to-many relationship, kept right by the store:
/// `@Derived(count: \Person.pets) var petCount: Int = 0`.
@attached(peer)
public macro Derived(count relationship: AnyKeyPath) = #externalMacro(module: "StrataMacros", type: "DerivedMacro")

/// A derived field: the sum of an attribute over a to-many relationship (0 when empty):
/// `@Derived(sum: \Pet.age, over: \Person.pets) var totalAge: Int = 0`.
@attached(peer)
public macro Derived(sum attribute: AnyKeyPath, over relationship: AnyKeyPath) =
    #externalMacro(module: "StrataMacros", type: "DerivedMacro")

/// A derived field: the smallest value of an attribute over a to-many relationship (`nil` when empty):
/// `@Derived(minimum: \Pet.age, over: \Person.pets) var youngest: Int?`.
@attached(peer)
public macro Derived(minimum attribute: AnyKeyPath, over relationship: AnyKeyPath) =
    #externalMacro(module: "StrataMacros", type: "DerivedMacro")

/// A derived field: the largest value of an attribute over a to-many relationship (`nil` when empty):
/// `@Derived(maximum: \Pet.age, over: \Person.pets) var oldest: Int?`.
@attached(peer)
public macro Derived(maximum attribute: AnyKeyPath, over relationship: AnyKeyPath) =
    #externalMacro(module: "StrataMacros", type: "DerivedMacro")
