/// Names the entity a transaction creates an object of: `tx.create(Into<Person>()) { ... }`.
public struct Into<E: Entity>: Sendable {
    /// Targets entity `E`.
    public init() {}
}
