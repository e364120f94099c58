/// An entity that imports from a source of your choosing (typically a `Decodable` struct of a JSON
/// payload): each source creates an object, or is skipped.
///
/// ```swift
/// struct NoteJSON: Decodable, Sendable { let text: String; let draft: Bool }
///
/// extension Note: ImportableObject {
///     static func shouldInsert(from source: NoteJSON, in transaction: Transaction) -> Bool { !source.draft }
///     mutating func didInsert(from source: NoteJSON, in transaction: Transaction) { text = source.text }
/// }
/// let result = try await stack.perform { tx in try tx.importObjects(Into<Note>(), from: notes) }
/// ```
public protocol ImportableObject: Entity {
    /// What one object imports from.
    associatedtype ImportSource

    /// Whether `source` becomes an object; `true` unless you say otherwise.
    static func shouldInsert(from source: ImportSource, in transaction: Transaction) throws -> Bool

    /// Fills a new object from its source, before it is inserted. It may read and write other objects
    /// through `transaction`.
    mutating func didInsert(from source: ImportSource, in transaction: Transaction) throws
}

extension ImportableObject {
    public static func shouldInsert(from source: ImportSource, in transaction: Transaction) throws -> Bool { true }
}

/// An entity that imports by a unique key: the object whose key a source names is updated, or created
/// when none has it (CoreStore's `ImportableUniqueObject`).
///
/// ```swift
/// struct PersonJSON: Decodable, Sendable { let email: String; let name: String }
///
/// extension Person: ImportableUniqueObject {
///     static var uniqueIDKeyPath: WritableKeyPath<Person, String> { \.email }
///     static func uniqueID(from source: PersonJSON, in transaction: Transaction) -> String? { source.email }
///     mutating func update(from source: PersonJSON, in transaction: Transaction) { name = source.name }
/// }
/// ```
///
/// The key is a field declared `@Field(.unique)` (or in a one-field ``Unique(_:)`` list); a unique
/// constraint over several fields cannot be the key, though imports that break one fail naming it. Existing objects are looked up a few hundred keys
/// per query. When your import code writes other objects of the same entity (a category importing
/// its parent), the sources after it are looked up again, a window at a time that starts at one
/// source and doubles while no source writes another object. When several sources of one call name
/// the same key, the last one wins: the earlier ones are not applied, and the last is applied at its
/// own position, so a source between them that looks the key up (``Transaction/uniqueIDs(_:_:for:in:)``)
/// finds the object only if it was stored before the call. (CoreStore applies the last source at the
/// first one's position.)
public protocol ImportableUniqueObject: Entity {
    /// What one object imports from.
    associatedtype ImportSource
    /// The type of the unique key.
    associatedtype UniqueID: DatabaseValueConvertible & Hashable

    /// The unique field that holds the key; a new object gets its source's key there before
    /// ``didInsert(from:in:)`` runs.
    static var uniqueIDKeyPath: WritableKeyPath<Self, UniqueID> { get }

    /// The key `source` names; `nil` skips the source. So does a key stored as SQL `NULL` (`.some(nil)`
    /// for an optional unique field): `NULL` names no object (SQLite's unique index lets many rows
    /// hold it), so no source with it can be matched or told from another.
    static func uniqueID(from source: ImportSource, in transaction: Transaction) throws -> UniqueID?

    /// Whether a source whose key no object has becomes a new object; `true` unless you say otherwise.
    static func shouldInsert(from source: ImportSource, in transaction: Transaction) throws -> Bool

    /// Whether the object with the source's key is updated from it; `true` unless you say otherwise.
    func shouldUpdate(from source: ImportSource, in transaction: Transaction) throws -> Bool

    /// Fills a new object from its source, before it is inserted; by default ``update(from:in:)``.
    mutating func didInsert(from source: ImportSource, in transaction: Transaction) throws

    /// Updates the object from its source. Only the fields that change are written.
    mutating func update(from source: ImportSource, in transaction: Transaction) throws
}

extension ImportableUniqueObject {
    public static func shouldInsert(from source: ImportSource, in transaction: Transaction) throws -> Bool { true }

    public func shouldUpdate(from source: ImportSource, in transaction: Transaction) throws -> Bool { true }

    public mutating func didInsert(from source: ImportSource, in transaction: Transaction) throws {
        try update(from: source, in: transaction)
    }
}
