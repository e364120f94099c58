public import Foundation

/// An error thrown by a migration step's own code (a ``MigrationChange/transform(_:_:)``,
/// ``MigrationChange/deleteObjects(_:where:)`` or ``MigrationChange/custom(_:)`` closure), with where it
/// happened. The migration rolled back: the store is still at its old version.
///
/// ```swift
/// do {
///     stack = try await DataStack(history, storage: SQLiteStore(path: path))
/// } catch let error as MigrationError {
///     log("step \(error.source) → \(error.destination), \(error.entity ?? "-") #\(error.objectID ?? 0): \(error.underlying)")
/// }
/// ```
/// Strata's own errors during a migration (a constraint, a full disk, a value a closure read with the
/// wrong type) arrive as ``StrataError``, their message ending with the step they happened in (and,
/// inside a transform or a `deleteObjects` predicate, the object).
public struct MigrationError: Error, CustomStringConvertible {
    /// The version the failing step starts from.
    public internal(set) var source: String
    /// The version the failing step leads to.
    public internal(set) var destination: String
    /// The entity whose objects the closure was migrating (for a transform, the destination's name; for
    /// `deleteObjects`, the source's); `nil` for a `custom` closure.
    public let entity: String?
    /// The row ID of the object the closure was given; `nil` for a `custom` closure.
    public let objectID: Int64?
    /// What the closure threw.
    public let underlying: any Error

    init(entity: String?, objectID: Int64?, underlying: any Error) {
        self.source = ""
        self.destination = ""
        self.entity = entity
        self.objectID = objectID
        self.underlying = underlying
    }

    /// This error, naming the step it happened in.
    func inStep(from source: String, to destination: String) -> MigrationError {
        var copy = self
        copy.source = source
        copy.destination = destination
        return copy
    }

    public var description: String {
        var place = "the migration step \(source) → \(destination)"
        if let entity { place += ", \(entity)" }
        if let objectID { place += " object \(objectID)" }
        return "The migration's own code failed in \(place), and the whole migration rolled back (the store keeps "
            + "the version it had): \(underlying)"
    }
}

/// Foundation's `localizedDescription` of a ``MigrationError`` names the step, the object and the error
/// (``MigrationError/description``).
extension MigrationError: LocalizedError {
    public var errorDescription: String? { description }
}
