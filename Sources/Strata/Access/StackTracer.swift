import Tracing

/// The tracer of one stack: a `strata.transaction` span around each transaction, a
/// `strata.unsafe_transaction` span around each unsafe one, and a `strata.read` span around each read
/// (a fetch, a read generation's read, a `fetchBatches` iteration), started in the calling task (so the
/// caller's span, from the task-local `InstrumentationContext`, is their parent) without a hop of its
/// own. Observation fetches, which have no caller, start none.
///
/// A stack whose tracer is the no-op one (the default until the app bootstraps one) has none: callers
/// hold a `StackTracer?` that is `nil` then, and start no span at all.
struct StackTracer: Sendable {
    let tracer: any Tracer

    /// The tracer to use, or `nil` when `tracer` is the no-op one.
    static func make(_ tracer: any Tracer) -> StackTracer? {
        tracer is NoOpTracer ? nil : StackTracer(tracer: tracer)
    }

    /// Starts a client span named `name` under the calling task's context; end it with ``finish(_:error:)``.
    func start(_ name: String) -> any Span {
        tracer.startSpan(
            name, context: InstrumentationContext.current ?? .topLevel, ofKind: .client, at: DefaultTracerClock.now,
            function: name, file: #fileID, line: #line)
    }

    /// Starts a span named `name` (see ``start(_:)``), runs `body` with it, and finishes it with the error
    /// `body` threw, if any (see ``finish(_:error:)``).
    func withSpan<T>(
        _ name: String, isolation: isolated (any Actor)? = #isolation, _ body: (any Span) async throws -> T
    ) async rethrows -> T {
        let span = start(name)
        do {
            let value = try await body(span)
            StackTracer.finish(span, error: nil)
            return value
        } catch {
            StackTracer.finish(span, error: error)
            throw error
        }
    }

    /// Runs `body` with `span`'s context as the task-local one, so spans the body starts are its children.
    static func within<T>(_ span: (any Span)?, _ body: () throws -> T) rethrows -> T {
        guard let span else { return try body() }
        return try InstrumentationContext.withValue(span.context, operation: body)
    }

    /// Runs `body` with `span`'s context as the task-local one, so spans the body starts are its children.
    static func within<T>(
        _ span: (any Span)?, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        guard let span else { return try await body() }
        return try await InstrumentationContext.withValue(span.context, operation: body)
    }

    /// Records `error` on `span` (by its code and message, or its type: never a value) and ends it.
    static func finish(_ span: any Span, error: (any Error)?) {
        if let error {
            span.recordError(RecordedError(error))
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    /// An error as recorded on a span: Strata's code and message (which name entities, fields and IDs; a
    /// message that quotes a stored value is recorded without it), or only the type of any other error,
    /// whose text could hold values.
    struct RecordedError: Error, CustomStringConvertible {
        let description: String

        init(_ error: any Error) {
            if let strata = error as? StrataError {
                description = strata.summaryWithoutValues
            } else if error is CancellationError {
                description = "CancellationError"
            } else {
                description = "\(type(of: error))"
            }
        }
    }
}

extension Span {
    /// Sets the statement count and the sorted entity names on the span.
    func setStrataAttributes(statements: Int, entities: [String]) {
        attributes["strata.statements"] = statements
        if !entities.isEmpty { attributes["strata.entities"] = entities.sorted().joined(separator: ",") }
    }
}
