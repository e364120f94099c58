import HTTPTypes
public import Hummingbird
import Foundation
import Logging

/// The request ID, as the Strata service handles it: the client's `X-Request-ID` (1 to 128 printable
/// ASCII characters) or a new UUID, in the request's log lines and echoed on the response.
/// (The Strata service also reads `X-Author` for its persistent history, which GRDB does not have.)
public struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var header: HTTPField.Name { HTTPField.Name("X-Request-ID")! }

    public init() {}

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let requestID = request.headers[Self.header].flatMap(Self.acceptable) ?? UUID().uuidString
        var context = context
        context.logger[metadataKey: "request.id"] = .string(requestID)
        var response = try await next(request, context)
        response.headers[Self.header] = requestID
        return response
    }

    static func acceptable(_ value: String) -> String? {
        guard (1...128).contains(value.utf8.count), value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            return nil
        }
        return value
    }
}
