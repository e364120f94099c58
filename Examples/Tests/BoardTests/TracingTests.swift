import AsyncHTTPClient
import Board
import Foundation
import NIOCore
import NIOHTTP1
import InMemoryTracing
import Instrumentation
import Strata
import Testing
import Tracing

/// Hummingbird's `TracingMiddleware` uses the global tracer, so this test bootstraps one, once for the
/// test process (other tests' stacks then record spans too, harmlessly).
let processTracer: InMemoryTracer = {
    let tracer = InMemoryTracer()
    InstrumentationSystem.bootstrap(tracer)
    return tracer
}()

@Suite("Tracing")
struct TracingTests {
    @Test func theTransactionSpanIsAChildOfTheRequestSpan() async throws {
        let tracer = processTracer   // bootstrapped before the stack opens
        try await withBoard { board async throws in
            let response = try await board.send(.POST, "/cards", json: NewCard(title: "spanned"))
            #expect(response.status == 201)
            // The request span ends once the response is written, which may be just after the client
            // has read it: look among the active spans too.
            let requests = tracer.finishedSpans.map { ($0.operationName, $0.spanContext) }
                + tracer.activeSpans.map { ($0.operationName, $0.spanContext) }
            let transactions = tracer.finishedSpans.filter { $0.operationName == "strata.transaction" }
            let pairs = transactions.compactMap { transaction in
                requests.first { $0.0 == "/cards" && $0.1.spanID == transaction.spanContext.parentSpanID }
                    .map { (request: $0.1, transaction: transaction.spanContext) }
            }
            let pair = try #require(pairs.first, "no strata.transaction span under a /cards request span")
            #expect(pair.transaction.traceID == pair.request.traceID)
        }
    }
}
