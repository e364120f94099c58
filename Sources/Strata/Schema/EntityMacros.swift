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

/// Declares uniqueness constraints over several fields, in the body of an ``Entity(name:renamedFrom:)``
/// struct, as SwiftData's `#Unique` does:
///
/// ```swift
/// @Entity struct Member {
///     #Unique<Member>([\.firstName, \.lastName], [\.email])
///     var firstName: String = ""
///     var lastName: String = ""
///     var email: String? = nil
/// }
/// ```
///
/// Each argument is one constraint: no two objects may hold the same values in all of its fields (two
/// members may share a first name, or a last name, not both). A transaction that breaks one throws
/// ``StrataError/Code/uniqueConstraint`` naming the entity and every field of the constraint
/// (``StrataError/fields``), and rolls back. The fields are stored fields of the struct: attributes,
/// coded fields and to-one relationships; the macro reports a to-many relationship, a derived field, a
/// computed property, an empty list, a field named twice in a list, a constraint declared twice, or a
/// generic argument other than the struct, at compile time.
///
/// As in SQLite, `nil` is no value: two objects whose constraint holds a `nil` in an optional field
/// never conflict, whatever their other fields hold.
///
/// A list of one field is the field's ``FieldOption/unique`` option: `#Unique<Member>([\.email])` and
/// `@Field(.unique) var email` make the same table, and declaring both makes it once. Each constraint
/// over several fields is a unique index named `<Entity>_<column>_<column>_unique`; adding or removing
/// one is a schema change (a new version, which a migration infers: it refuses a new constraint that
/// existing objects break, naming their IDs). Imports keep one unique key field:
/// ``Transaction/upsertAll(_:from:uniqueBy:policy:_:)`` and ``ImportableUniqueObject``
/// do not look objects up by a constraint over several fields.
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) =
    #externalMacro(module: "StrataMacros", type: "UniqueMacro")

/// Declares indexes over several fields, in the body of an ``Entity(name:renamedFrom:)`` struct, as
/// SwiftData's `#Index` does:
///
/// ```swift
/// @Entity struct Member {
///     #Index<Member>([\.lastName, \.firstName], [\.joined])
///     var firstName: String = ""
///     var lastName: String = ""
///     var joined: Date = .distantPast
/// }
/// ```
///
/// Each argument is one index, over its fields in the order given (an index on `lastName, firstName`
/// serves queries that filter or sort by `lastName`, or by both). The fields are stored fields of the
/// struct, as for ``Unique(_:)``, which reports the same mistakes at compile time. A list of one field
/// is the field's ``FieldOption/indexed`` option; a list that a ``Unique(_:)`` constraint has in the
/// same order is left out (the unique index serves the same queries). Each index over several fields is
/// named `<Entity>_<column>_<column>_index`; adding or removing one is a schema change, which a
/// migration infers.
@freestanding(declaration)
public macro Index<T>(_ indexes: [PartialKeyPath<T>]...) =
    #externalMacro(module: "StrataMacros", type: "IndexMacro")
