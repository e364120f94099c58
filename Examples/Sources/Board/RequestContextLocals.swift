public import Logging

/// What a request carries into everything it awaits: its ID and the author of its writes.
///
/// ``RequestContextMiddleware`` sets both for the duration of the request's handler. Strata runs a
/// transaction's closure inside the calling task, so the values are there too: the request ID in
/// every log line (through ``Logging/Logger/MetadataProvider/boardRequestContext``) and the author in
/// the history (`TransactionAuthor.$current`, set by the same middleware).
public enum RequestContextLocals {
    /// The current request's ID (the client's `X-Request-ID`, or one the server made).
    @TaskLocal public static var requestID: String?
}

extension Logger.MetadataProvider {
    /// Adds `request.id` to every log line written while a request is handled, by any logger whose
    /// handler was given this provider: the server's and the `DataStack`'s (Strata's own lines inside
    /// a transaction included).
    public static let boardRequestContext = Logger.MetadataProvider {
        guard let id = RequestContextLocals.requestID else { return [:] }
        return ["request.id": .string(id)]
    }
}
