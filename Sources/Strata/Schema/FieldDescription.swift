import Foundation

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
    /// The options declared with ``Field(column:_:renamedFrom:)``, and ``Unique(_:)`` or ``Index(_:)``
    /// lists of this field alone.
    public internal(set) var options: Set<FieldOption>
    /// The declared default value, as stored, when one was declared.
    public private(set) var defaultValue: DatabaseValue?
    /// Whether a fresh value is computed for every created object.
    public let hasDynamicInitialValue: Bool
    /// What kind of stored field this is.
    public let kind: FieldKind
    /// Whether the field holds a `Decimal` (optional or not), stored as text so that no digit is lost:
    /// SQL orders that text character by character ("10" before "9"), so queries must not order by it.
    var isDecimal = false
    /// What makes a fresh stored value for each object when the field has a dynamic initial value: a
    /// migration that adds the field gives every existing object its own. Not part of the field's
    /// equality.
    public private(set) var initialValue: InitialValueMaker? = nil
    /// The field's name in the version before (`@Field(renamedFrom:)`): a migration from a version whose
    /// entity has a field of that name and none of this one's name or column renames it.
    public private(set) var renamedFrom: String? = nil
    /// The family of the field's Swift type, for migrations that convert it (see ``ValueFamily``).
    var valueFamily = ValueFamily.other
    /// For a plain ID field (`var recipe: Recipe.ID?` without `@Relationship`): the type it names, for
    /// the message of a query that tries to follow it. Not part of the field's equality.
    var plainID = PlainIDTarget()

    /// The kinds of stored field.
    public enum FieldKind: Sendable, Hashable {
        /// A value of a ``DatabaseValueConvertible`` type.
        case attribute
        /// A `Codable` value stored as JSON text, or a value stored through a custom encode / decode pair.
        case coded
        /// A to-one relationship: the ID of an object of another entity, stored as a foreign key.
        case toOne(ToOneRelationship)
    }

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
        var field = FieldDescription(
            property: property, column: column, storageClass: Value.storageClass,
            isOptional: Value.isOptional, options: options, defaultValue: nil,
            hasDynamicInitialValue: hasDynamicInitialValue, kind: .attribute)
        field.isDecimal = Value.self == Decimal.self || Value.self == Decimal?.self
        field.valueFamily = .named(Value.self)
        field.plainID = PlainIDTarget(typeName: (Value.self as? any EntityIDValue.Type)?.targetTypeName)
        return field
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
        var field = FieldDescription(
            property: property, column: column, storageClass: Value.storageClass,
            isOptional: Value.isOptional, options: options, defaultValue: defaultValue.databaseValue,
            hasDynamicInitialValue: hasDynamicInitialValue, kind: .attribute)
        field.isDecimal = Value.self == Decimal.self || Value.self == Decimal?.self
        field.valueFamily = .named(Value.self)
        field.plainID = PlainIDTarget(typeName: (Value.self as? any EntityIDValue.Type)?.targetTypeName)
        return field
    }

    /// Describes a to-one relationship. The macro calls this; the key path gives the target entity.
    public static func toOne<Root, Target: Entity>(
        _ keyPath: KeyPath<Root, EntityID<Target>?>,
        property: String,
        column: String,
        options: Set<FieldOption> = [],
        deleteRule: DeleteRule = .nullify,
        inverse: String? = nil
    ) -> FieldDescription {
        FieldDescription(
            property: property, column: column, storageClass: .integer, isOptional: true, options: options,
            defaultValue: nil, hasDynamicInitialValue: false,
            kind: .toOne(ToOneRelationship(target: EntityReference(Target.self), deleteRule: deleteRule, inverse: inverse)))
    }

    /// Describes a `Codable` field stored as JSON text. The macro calls this.
    public static func coded<Root, Value: Codable>(
        _ keyPath: KeyPath<Root, Value>,
        property: String,
        column: String,
        options: Set<FieldOption> = [],
        isOptional: Bool = false
    ) -> FieldDescription {
        FieldDescription(
            property: property, column: column, storageClass: .text, isOptional: isOptional, options: options,
            defaultValue: nil, hasDynamicInitialValue: false, kind: .coded)
    }

    /// Describes a `Codable` field stored as JSON text, with a declared default value. The macro calls
    /// this; a migration gives existing objects the default's JSON when the field is new.
    public static func coded<Root, Value: Codable>(
        _ keyPath: KeyPath<Root, Value>,
        property: String,
        column: String,
        options: Set<FieldOption> = [],
        isOptional: Bool = false,
        default defaultValue: Value
    ) -> FieldDescription {
        // An optional field's `nil` is stored as NULL, not as JSON's `null`.
        let json = FieldEncoder.json(defaultValue)
        return FieldDescription(
            property: property, column: column, storageClass: .text, isOptional: isOptional, options: options,
            defaultValue: isOptional && json == "null" ? .null : json.map(DatabaseValue.text),
            hasDynamicInitialValue: false, kind: .coded)
    }

    /// Describes a field stored through a custom encode / decode pair as `Stored`. The macro calls this.
    public static func coded<Root, Value, Stored: DatabaseValueConvertible>(
        _ keyPath: KeyPath<Root, Value>,
        storedAs stored: Stored.Type,
        property: String,
        column: String,
        options: Set<FieldOption> = []
    ) -> FieldDescription {
        var field = FieldDescription(
            property: property, column: column, storageClass: Stored.storageClass, isOptional: Stored.isOptional,
            options: options, defaultValue: nil, hasDynamicInitialValue: false, kind: .coded)
        field.isDecimal = Stored.self == Decimal.self || Stored.self == Decimal?.self
        field.valueFamily = .named(Stored.self)
        return field
    }

    /// Describes a field stored through a custom encode / decode pair. The macro calls this with the
    /// `encode` closure of `@Coded(encode:decode:)`, which it never calls: the closure only lets the compiler
    /// infer `Stored`, the type the value is stored as, which the macro cannot tell from syntax.
    public static func coded<Root, Value, Stored: DatabaseValueConvertible>(
        _ keyPath: KeyPath<Root, Value>,
        encode: (Value) -> Stored,
        property: String,
        column: String,
        options: Set<FieldOption> = []
    ) -> FieldDescription {
        coded(keyPath, storedAs: Stored.self, property: property, column: column, options: options)
    }

    /// Describes a field stored through a custom encode / decode pair, with a declared default value.
    /// The macro calls this with the `encode` closure of `@Coded(encode:decode:)`, which it calls once, on
    /// the default: a migration gives existing objects that stored value when the field is new.
    public static func coded<Root, Value, Stored: DatabaseValueConvertible>(
        _ keyPath: KeyPath<Root, Value>,
        encode: (Value) -> Stored,
        property: String,
        column: String,
        options: Set<FieldOption> = [],
        default defaultValue: Value
    ) -> FieldDescription {
        var field = coded(keyPath, storedAs: Stored.self, property: property, column: column, options: options)
        field.defaultValue = encode(defaultValue).databaseValue
        return field
    }

    /// The same field, declared as renamed from `old` (its property name in the version before). The
    /// macro calls this for `@Field(renamedFrom:)`.
    public func renamed(from old: String) -> FieldDescription {
        var field = self
        field.renamedFrom = old
        return field
    }

    /// The same field, with the dynamic initial value `value` to give each object a migration adds it to.
    /// The macro calls this for `@Field(dynamicInitialValue:)`.
    public func initialValues<Root, Value: DatabaseValueConvertible>(_ value: DynamicInitialValue<Root, Value>) -> FieldDescription {
        var field = self
        field.initialValue = InitialValueMaker { value.make().databaseValue }
        return field
    }

    /// The same field, a `Codable` one stored as JSON, with the dynamic initial value `value`. The macro
    /// calls this for `@Coded @Field(dynamicInitialValue:)`.
    public func initialJSONValues<Root, Value: Encodable & Sendable>(_ value: DynamicInitialValue<Root, Value>) -> FieldDescription {
        var field = self
        let isOptional = self.isOptional
        field.initialValue = InitialValueMaker {
            guard let json = FieldEncoder.json(value.make()) else { return .null }
            return isOptional && json == "null" ? .null : .text(json)
        }
        return field
    }

    /// The same field, stored through `coded`'s encode closure, with the dynamic initial value `value`.
    /// The macro calls this for `@Coded(encode:decode:) @Field(dynamicInitialValue:)`.
    public func initialValues<Root, Value, Stored: DatabaseValueConvertible>(
        _ value: DynamicInitialValue<Root, Value>, encodedBy coded: CodedClosures<Root, Value, Stored>
    ) -> FieldDescription {
        var field = self
        field.initialValue = InitialValueMaker { coded.encode(value.make()).databaseValue }
        return field
    }

    /// The to-one relationship this field stores, if it is one.
    public var toOne: ToOneRelationship? {
        if case .toOne(let relationship) = kind { return relationship }
        return nil
    }
}

/// Makes a fresh stored value of a field with a dynamic initial value (see
/// ``FieldDescription/initialValue``). Every maker is equal to every other: a closure has no identity
/// to compare, and a field's description is the same whatever its closure computes.
public struct InitialValueMaker: Sendable, Hashable {
    /// Makes one value, as stored.
    public let make: @Sendable () -> DatabaseValue

    /// A maker of values.
    public init(_ make: @escaping @Sendable () -> DatabaseValue) {
        self.make = make
    }

    public static func == (lhs: InitialValueMaker, rhs: InitialValueMaker) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}
