/// The closures of a `@Coded(encode:decode:)` field, which `@Entity` keeps in a type nested in the entity
/// so that they are compiled in the entity's own scope (where they can name the types declared beside
/// it). The macro makes these; the key path only gives the types.
public struct CodedClosures<Root, Value, Stored: DatabaseValueConvertible>: Sendable {
    /// Makes the stored value of a field's value.
    public let encode: @Sendable (Value) -> Stored
    /// Makes a field's value from its stored value.
    public let decode: @Sendable (Stored) throws -> Value

    /// The closures of the field at `keyPath`.
    public init(
        _ keyPath: KeyPath<Root, Value>, encode: @escaping @Sendable (Value) -> Stored,
        decode: @escaping @Sendable (Stored) throws -> Value
    ) {
        self.encode = encode
        self.decode = decode
    }
}

/// The `@Field(dynamicInitialValue:)` closure of a field, which `@Entity` keeps in a type nested in the
/// entity so that it is compiled in the entity's own scope. The macro makes these; the key path only
/// gives the types.
public struct DynamicInitialValue<Root, Value>: Sendable {
    /// Makes a fresh value for a new object.
    public let make: @Sendable () -> Value

    /// The dynamic initial value of the field at `keyPath`.
    public init(_ keyPath: KeyPath<Root, Value>, _ make: @escaping @Sendable () -> Value) {
        self.make = make
    }
}
