public import Hummingbird

/// An error the API reports as `{"error":{"status":Int,"code":String,"message":String}}`.
public struct APIError: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String

    public init(_ status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static func badRequest(_ code: String, _ message: String) -> APIError {
        APIError(.badRequest, code: code, message: message)
    }

    static func notFound(_ message: String) -> APIError {
        APIError(.notFound, code: "not_found", message: message)
    }

    static func conflict(_ code: String, _ message: String) -> APIError {
        APIError(.conflict, code: code, message: message)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(
            Envelope(error: Payload(status: Int(status.code), code: code, message: message)),
            from: request,
            context: context
        )
        response.status = status
        return response
    }

    private struct Envelope: Encodable {
        var error: Payload
    }

    private struct Payload: Encodable {
        var status: Int
        var code: String
        var message: String
    }
}
