import AsyncHTTPClient
import Board
import Hummingbird
import HummingbirdTesting
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

    struct Surprise: Error {}

    @Test func aServerErrorMarksTheRequestSpanFailedAndAClientErrorDoesNot() async throws {
        let tracer = processTracer
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: TracingMiddleware())
        router.add(middleware: ErrorMiddleware())
        router.get("boom") { _, _ -> String in throw Surprise() }
        router.get("gone") { _, _ -> String in throw HTTPError(.notFound) }
        let app = Application(router: router)
        try await app.test(.router) { client in
            try await client.execute(uri: "/boom", method: .get) { response in
                #expect(response.status == .internalServerError)
            }
            try await client.execute(uri: "/gone", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
        // A request span ends once its response is written: look among the active spans too.
        let spans = tracer.finishedSpans.map { ($0.operationName, $0.status?.code, $0.errors.count) }
            + tracer.activeSpans.map { ($0.operationName, $0.status?.code, $0.errors.count) }
        let boom = try #require(spans.first { $0.0 == "/boom" })
        #expect(boom.1 == .error)
        #expect(boom.2 == 1)
        let gone = try #require(spans.first { $0.0 == "/gone" })
        #expect(gone.1 == nil)
        #expect(gone.2 == 0)
    }
}
