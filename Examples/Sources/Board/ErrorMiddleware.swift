public import Hummingbird
import Logging
import Tracing

/// Turns every error a route throws (and Hummingbird's own, such as an unknown route) into the
/// API's JSON error body, and logs what the client is not told.
///
/// A server error (5xx) also marks the request's span as failed, with the error recorded: the
/// `TracingMiddleware` outside sees only the JSON response this middleware returns, and marks a span
/// failed only for an error thrown through it. The span is found through the tracer's
/// `activeSpan(identifiedBy:)`, which swift-otel's and swift-distributed-tracing's in-memory tracers
/// implement (a tracer that does not leaves its spans unmarked).
public struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError: APIError
            if let httpError = error as? HTTPError {
                apiError = APIError(
                    httpError.status, httpError.status == .notFound ? "not_found" : "http_error",
                    httpError.status == .notFound ? "no such route: \(request.method) \(request.uri.path)"
                        : (httpError.body ?? httpError.status.reasonPhrase))
            } else {
                apiError = APIError(error)
            }
            if apiError.isServerError {
                context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
                if let current = InstrumentationContext.current,
                    let span = InstrumentationSystem.tracer.activeSpan(identifiedBy: current)
                {
                    span.recordError(error)
                    span.setStatus(SpanStatus(code: .error))
                }
            } else {
                context.logger.debug("request refused", metadata: ["error": "\(apiError)"])
            }
            var response = try Response.json(apiError.body, status: apiError.status)
            if apiError.status == .serviceUnavailable { response.headers[.retryAfter] = "1" }
            return response
        }
    }
}
