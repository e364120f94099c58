/// The author recorded in the persistent history for the transactions a task commits.
///
/// A server sets it once per request, and every transaction the request's task (and its child tasks)
/// commits is recorded with it:
/// ```swift
/// try await TransactionAuthor.$current.withValue("user:\(userID)") {
///     try await handle(request)      // every stack.perform inside is recorded with this author
/// }
/// ```
/// ``DataStack/perform(author:_:)`` sets it for one transaction. Without either, transactions are
/// recorded with no author. The closure of a transaction runs inside the calling task, so the value
/// is the caller's.
public enum TransactionAuthor {
    /// The author of the transactions committed by the current task; `nil` records none.
    @TaskLocal public static var current: String?
}
