/// Names the entity a transaction creates an object of: `tx.create(Into<Person>()) { ... }`, and, in
/// a stack of several stores, the store it goes to: `tx.create(Into<Thumbnail>("Cache"))`.
public struct Into<E: Entity>: Sendable {
    /// The configuration whose store receives the object (`nil`: the default configuration), when one
    /// was named.
    public let configuration: String?
    /// Whether a configuration was named.
    let isScoped: Bool

    /// Targets entity `E`, in the one store of the stack that holds it. When several stores hold `E`,
    /// creating throws ``StrataError/Code/invalidArgument`` listing them: name one with ``init(_:)``.
    public init() {
        configuration = nil
        isScoped = false
    }

    /// Targets entity `E` in the store of configuration `configuration` (`nil`: the default one).
    /// Creating throws ``StrataError/Code/storeNotFound`` when the stack has no such store, or its
    /// store does not hold `E`, and ``StrataError/Code/invalidArgument`` for the name `""`: the
    /// default configuration is `nil`.
    public init(_ configuration: String?) {
        self.configuration = configuration
        isScoped = true
    }
}
