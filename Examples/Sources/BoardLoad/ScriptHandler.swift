import NIOCore
import NIOHTTP1

/// Sends requests one after the other on one connection and collects the responses: the seeding.
/// The next request can depend on the responses so far.
final class ScriptHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    struct Response: Sendable {
        var status: UInt
        var body: String
    }

    private let host: String
    private var requests: IndexingIterator<[HTTPRequest]>
    private let done: EventLoopPromise<[Response]>
    private var responses: [Response] = []
    private var status: UInt = 0
    private var body = ByteBuffer()

    init(host: String, requests: [HTTPRequest], done: EventLoopPromise<[Response]>) {
        self.host = host
        self.requests = requests.makeIterator()
        self.done = done
    }

    func channelActive(context: ChannelHandlerContext) {
        sendNext(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = head.status.code
            body.clear()
        case .body(var part):
            body.writeBuffer(&part)
        case .end:
            responses.append(Response(status: status, body: String(buffer: body)))
            sendNext(context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        done.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    private func sendNext(context: ChannelHandlerContext) {
        if let request = requests.next() {
            request.write(on: context, host: host)
        } else {
            done.succeed(responses)
        }
    }
}
