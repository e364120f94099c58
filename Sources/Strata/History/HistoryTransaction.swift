public import Foundation

/// One recorded commit of the persistent history: when, by whom, and what it changed, in one store.
///
/// A stack of several stores records each commit in the history of every store it changed, so a
/// commit that wrote to two stores reads as two transactions, one per store (``configuration``), with
/// the same date and author.
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
    /// Its place in the history; store it to resume after it. Read from a stack of several stores, it
    /// also holds the positions reached in the other stores' histories.
    public internal(set) var token: HistoryToken
    /// The configuration of the store whose history recorded it: `nil` for the default one.
    public var configuration: String? { storeConfiguration.isEmpty ? nil : storeConfiguration }
    /// The configuration's key (`""` for the default one) and the transaction's number in that store.
    let storeConfiguration: String
    let storePosition: Int64
    /// The tag of the store file that recorded it (0 when not known).
    let storeTag: UInt32
    /// When it was committed.
    public let date: Date
    /// Its author: ``DataStack/perform(author:_:)``'s, or ``TransactionAuthor/current`` when it committed.
    public let author: String?
    /// The committing stack's ``HistoryOptions/contextName``.
    public let contextName: String?
    /// What it created, edited (with the changed fields) and deleted, per entity; for deleted objects,
    /// the values the history preserves (``ChangeSet/preservedValues(of:)``).
    public internal(set) var changes: ChangeSet

    /// Identifies the transaction: the position in its store's history alone, so the same transaction
    /// has the same identity however it was read (its ``token`` also carries the positions reached in
    /// the other stores of the read; in a stack of one store the two are the same).
    public var id: HistoryToken { HistoryToken(positions: [storeConfiguration: storePosition]) }

    init(
        token: HistoryToken, configuration: String, storeTag: UInt32 = 0, storePosition: Int64, date: Date,
        author: String?, contextName: String?, changes: ChangeSet
    ) {
        self.token = token
        self.storeConfiguration = configuration
        self.storeTag = storeTag
        self.storePosition = storePosition
        self.date = date
        self.author = author
        self.contextName = contextName
        self.changes = changes
    }
}
