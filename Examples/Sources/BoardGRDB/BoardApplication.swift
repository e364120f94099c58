public import GRDB
public import Hummingbird
public import Logging
import NIOCore

/// The board service on GRDB: the router, the error middleware, the endpoints.
public enum BoardApplication {
    /// An application serving the board from `pool` at `host:port`; `onListening` gets the bound
    /// port once the server runs (the real one when `port` is 0).
    public static func make(
        pool: DatabasePool,
        host: String,
        port: Int,
        logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        // The Strata service's middleware, in its order: tracing (a no-op until a tracer is
        // bootstrapped, as in the benchmark), request ID, JSON errors.
        let router = Router(context: BoardContext.self)
        router.add(middleware: TracingMiddleware())
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: APIErrorMiddleware())
        BoardController(pool: pool).addRoutes(to: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}
