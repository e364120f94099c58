// The snippets of the DocC article "Using Strata in a server" (UsingStrataInAServer.md), as written
// there, so that they compile against Hummingbird, swift-service-lifecycle and the board's entities.
// They are shorter than the example's own code in Sources/Board, which they condense; this file is
// compiled, not run (the example's tests run the real service). `.ci/check-snippets` checks that every
// line of the article appears here or elsewhere under Examples/.
import Board
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import ServiceLifecycle
import Strata
import Tracing
import UnixSignals

enum ServerArticle {
    static func openStack(logger: Logger, path: String) async throws -> DataStack {
        var configuration = DataStack.Configuration(logger: logger)
        configuration.name = "board"
        configuration.history = HistoryOptions(contextName: "board-server")
        let stack = try await DataStack(boardSchema, storage: SQLiteStore(path: path), configuration: configuration)
        return stack
    }

    struct StackService: Service {
        let stack: DataStack

        func run() async throws {
            try? await gracefulShutdown()
            await stack.close()
        }
    }

    static func serve(
        router: Router<BasicRequestContext>, host: String, port: Int, stack: DataStack, logger: Logger
    ) async throws {
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in print("listening on http://\(host):\(channel.localAddress?.port ?? port)") })
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: StackService(stack: stack)), .init(service: application)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
    }

    enum RequestContextLocals {
        @TaskLocal static var requestID: String?
    }

    struct RequestContextMiddleware<Context: RequestContext>: RouterMiddleware {
        func handle(
            _ request: Request, context: Context, next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            let requestID = request.headers[HTTPField.Name("X-Request-ID")!] ?? UUID().uuidString
            let author = request.headers[HTTPField.Name("X-Author")!]
            var response = try await RequestContextLocals.$requestID.withValue(requestID) {
                try await TransactionAuthor.$current.withValue(author) {
                    try await next(request, context)
                }
            }
            response.headers[HTTPField.Name("X-Request-ID")!] = requestID
            return response
        }
    }

    static func createCard(stack: DataStack, title: String, ownerID: Owner.ID?) async throws -> Card {
        let card = try await stack.perform { tx in
            if let ownerID, try tx.fetchExisting(ownerID) == nil {
                throw APIError.badRequest("unknown_owner", "no owner with id \(ownerID.rawValue)")
            }
            return try tx.create(Into<Card>()) { $0.title = title; $0.owner = ownerID }
        }
        return card
    }

    static func event(_ snapshot: ListSnapshot<Card>) throws -> ByteBuffer {
        ByteBuffer(string: "event: snapshot\ndata: \(snapshot.items.count)\n\n")
    }

    static func live(_ request: Request, stack: DataStack) async throws -> Response {
        let publisher = stack.listPublisher(From<Card>().where(\.status == .todo).orderBy(.descending(\.priority)).limit(200))
        return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
            let (events, sink) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingNewest(1))
            try await withGracefulShutdownHandler {
                try await request.body.consumeWithInboundCloseHandler { _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            defer { sink.finish() }
                            for try await snapshot in publisher { sink.yield(try event(snapshot)) }
                        }
                        for await event in events { try await writer.write(event) }
                        group.cancelAll()
                        try await group.waitForAll()
                    }
                } onInboundClosed: { sink.finish() }
            } onGracefulShutdown: { sink.finish() }
            try await writer.finish(nil)
        })
    }

    /// The bootstrap at the top of `main`; the article's `myMetricsFactory` and `myTracer` stand for
    /// the backends an app chooses.
    static func main(
        myMetricsFactory: any MetricsFactory, myTracer: any Tracer, path: String,
        configuration: DataStack.Configuration
    ) async throws -> DataStack {
        LoggingSystem.bootstrap(StreamLogHandler.standardError, metadataProvider: .boardRequestContext)
        MetricsSystem.bootstrap(myMetricsFactory)
        InstrumentationSystem.bootstrap(myTracer)
        let stack = try await DataStack(boardSchema, storage: SQLiteStore(path: path), configuration: configuration)
        return stack
    }
}
