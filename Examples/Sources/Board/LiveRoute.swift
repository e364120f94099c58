public import Hummingbird
public import Strata
import Foundation
import Logging
import ServiceLifecycle

/// `GET /cards/live?status=&owner=&q=&sort=&limit=`: server-sent events, one `snapshot` event per
/// list snapshot of a Strata `listPublisher`:
///
///     event: snapshot
///     data: {"items":[…],"inserted":[…],"deleted":[…],"updated":[…]}
///
/// The stream ends when the client disconnects or the server shuts down gracefully; either way the
/// publisher's iteration ends, which releases it (`DataStack.activeObservations` drops). A slow client
/// gets the newest snapshot when it can take one, never a backlog: the publisher coalesces commits and
/// the route keeps at most one encoded event waiting.
public struct LiveRoute<Context: RequestContext>: Sendable {
    public let stack: DataStack
    /// Called when a stream has ended and its publisher is released (tests await it).
    public let onStreamEnd: @Sendable () -> Void

    /// At most this many cards per snapshot (the `limit` parameter may ask for fewer).
    public static var defaultLimit: Int { CardListQuery.maximumLimit }

    public init(stack: DataStack, onStreamEnd: @escaping @Sendable () -> Void = {}) {
        self.stack = stack
        self.onStreamEnd = onStreamEnd
    }

    public func add(to group: RouterGroup<Context>) {
        group.get("live", use: live)
    }

    @Sendable func live(_ request: Request, context: Context) async throws -> Response {
        let query = try CardListQuery(request.uri.queryParameters, defaultLimit: Self.defaultLimit)
        let publisher = stack.listPublisher(query.page)
        let onStreamEnd = self.onStreamEnd
        let logger = context.logger
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody { writer in
                defer { onStreamEnd() }
                // Encoded events, the newest one only, from the publisher's task to this writer.
                let (events, sink) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingNewest(1))
                do {
                    try await withGracefulShutdownHandler {
                        try await request.body.consumeWithInboundCloseHandler { _ in
                            try await withThrowingTaskGroup(of: Void.self) { group in
                                group.addTask {
                                    defer { sink.finish() }
                                    for try await snapshot in publisher {
                                        sink.yield(try Self.event(snapshot))
                                    }
                                }
                                for await event in events {
                                    try await writer.write(event)
                                }
                                // The client left, the server is stopping, or the publisher ended:
                                // end the iteration (releasing the publisher) before returning.
                                group.cancelAll()
                                try await group.waitForAll()
                            }
                        } onInboundClosed: {
                            sink.finish()
                        }
                    } onGracefulShutdown: {
                        sink.finish()
                    }
                    try await writer.finish(nil)
                } catch is CancellationError {
                    // The iteration was cancelled with its task: nothing to report.
                } catch {
                    logger.debug("live stream ended", metadata: ["error": "\(error)"])
                }
            })
    }

    /// One server-sent event: `event: snapshot`, the JSON on one `data:` line, a blank line.
    static func event(_ snapshot: ListSnapshot<Card>) throws -> ByteBuffer {
        let diff = snapshot.diff
        let payload = CardListEvent(
            items: snapshot.items.map(CardResource.init),
            inserted: (diff?.insertedIDs ?? []).map(\.rawValue).sorted(),
            deleted: (diff?.deletedIDs ?? []).map(\.rawValue).sorted(),
            updated: (diff?.updatedIDs ?? []).map(\.rawValue).sorted())
        var buffer = ByteBuffer(string: "event: snapshot\ndata: ")
        buffer.writeBytes(try BoardJSON.encoder().encode(payload))
        buffer.writeString("\n\n")
        return buffer
    }
}
