public import Foundation

/// One recorded commit of the persistent history: when, by whom, and what it changed.
///
/// ```swift
/// for transaction in try await stack.history(after: lastToken) {
///     for id in transaction.changes.deletedIDs(Person.self) {
///         let name = transaction.changes.preservedValues(of: id)?["name"]
///     }
///     lastToken = transaction.token
/// }
/// ```
public struct HistoryTransaction: Sendable, Identifiable, Equatable {
    /// Its place in the history; store it to resume after it.
    public let token: HistoryToken
    /// When it was committed.
    public let date: Date
    /// Its author: ``DataStack/perform(author:_:)``'s, or ``TransactionAuthor/current`` when it committed.
    public let author: String?
    /// The committing stack's ``HistoryOptions/contextName``.
    public let contextName: String?
    /// What it created, edited (with the changed fields) and deleted, per entity; for deleted objects,
    /// the values the history preserves (``ChangeSet/preservedValues(of:)``).
    public internal(set) var changes: ChangeSet

    /// The token, which identifies the transaction.
    public var id: HistoryToken { token }
}
