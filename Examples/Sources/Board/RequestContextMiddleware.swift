public import Hummingbird
public import HTTPTypes
import Foundation
import Strata
import Logging

/// Gives each request its context as task-locals for everything its handler awaits:
/// - the request ID, the client's `X-Request-ID` or a new one, echoed on the response;
/// - the author of the request's writes, from `X-Author`, as `TransactionAuthor.current` (the
///   history's author of every transaction the handler performs).
public struct RequestContextMiddleware<Context: RequestContext>: RouterMiddleware {
    public static var requestIDHeader: HTTPField.Name { HTTPField.Name("X-Request-ID")! }
    public static var authorHeader: HTTPField.Name { HTTPField.Name("X-Author")! }

    public init() {}

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let requestID = request.headers[Self.requestIDHeader].flatMap(Self.acceptable) ?? UUID().uuidString
        let authorHeader = request.headers[Self.authorHeader]
        let author = authorHeader.flatMap(Self.acceptable)
        if authorHeader != nil && author == nil {
            let error = APIError.badRequest("invalid_author", "X-Author must be 1 to 128 printable ASCII characters")
            var response = try Response.json(error.body, status: error.status)
            response.headers[Self.requestIDHeader] = requestID
            return response
        }
        var context = context
        context.logger[metadataKey: "request.id"] = .string(requestID)
        var response = try await RequestContextLocals.$requestID.withValue(requestID) {
            try await TransactionAuthor.$current.withValue(author) {
                try await next(request, context)
            }
        }
        response.headers[Self.requestIDHeader] = requestID
        return response
    }

    /// A header value short and plain enough to log and store: 1 to 128 printable ASCII characters.
    static func acceptable(_ value: String) -> String? {
        guard (1...128).contains(value.utf8.count), value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            return nil
        }
        return value
    }
}
