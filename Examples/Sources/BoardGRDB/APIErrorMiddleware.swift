public import Hummingbird
import Logging

/// Gives every error the API's JSON shape: Hummingbird's own (an unknown route, a body that does
/// not decode, a path parameter that is not a number) and unexpected ones (a 500, logged).
public struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError {
            if error.status == .notFound {
                throw APIError.notFound("no such route: \(request.method) \(request.uri.path)")
            }
            throw APIError(error.status, code: "http_error", message: error.body ?? error.status.reasonPhrase)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            throw APIError(.internalServerError, code: "internal_error", message: "internal error")
        }
    }
}
