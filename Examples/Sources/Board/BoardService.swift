public import Hummingbird
public import Logging
public import ServiceLifecycle
public import Strata
import NIOCore
public import UnixSignals

/// The board service put together: its stack, its router, its application, and the service group that
/// runs them and shuts them down in order.
public enum BoardService {
    /// Opens the board's stack on a SQLite file, with history on (authors come from `X-Author`).
    ///
    /// Give it a logger whose handler has ``Logging/Logger/MetadataProvider/boardRequestContext``, so
    /// that Strata's own log lines carry the request ID.
    public static func openStack(path: String, logger: Logger) async throws -> DataStack {
        var configuration = DataStack.Configuration(logger: logger)
        configuration.name = "board"
        configuration.history = HistoryOptions(contextName: "board-server")
        return try await DataStack(boardSchema, storage: SQLiteStore(path: path), configuration: configuration)
    }

    /// The routes, behind the middleware that sets each request's context:
    /// tracing (outermost, so every span below is a child of the request's), request ID and author,
    /// then the JSON error mapping.
    public static func router(
        stack: DataStack, onLiveStreamEnd: @escaping @Sendable () -> Void = {}
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: TracingMiddleware())
        router.add(middleware: RequestContextMiddleware())
        router.add(middleware: ErrorMiddleware())
        router.get("health") { _, _ in try Response.json(["status": "ok"]) }
        OwnerRoutes(stack: stack).add(to: router.group("owners"))
        let cards = router.group("cards")
        LiveRoute(stack: stack, onStreamEnd: onLiveStreamEnd).add(to: cards)
        CardRoutes(stack: stack).add(to: cards)
        return router
    }

    /// The HTTP application; `onListening` receives the bound port (the real one with port 0).
    public static func application(
        stack: DataStack, host: String, port: Int, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onLiveStreamEnd: @escaping @Sendable () -> Void = {}
    ) -> some ApplicationProtocol {
        Application(
            router: router(stack: stack, onLiveStreamEnd: onLiveStreamEnd),
            configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// The service group: the stack first, the application after it, so that at shutdown (services
    /// stop in reverse order) the server stops accepting and finishes its requests before the stack
    /// closes.
    public static func serviceGroup(
        stack: DataStack, application: some ApplicationProtocol, logger: Logger,
        signals: [UnixSignal] = [.sigterm, .sigint]
    ) -> ServiceGroup {
        ServiceGroup(
            configuration: .init(
                services: [.init(service: StackService(stack: stack)), .init(service: application)],
                gracefulShutdownSignals: signals,
                logger: logger))
    }
}
