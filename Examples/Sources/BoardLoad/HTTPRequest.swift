import NIOCore
import NIOHTTP1

/// One request to send: method, target and an optional JSON body.
struct HTTPRequest: Sendable {
    var method: HTTPMethod
    var uri: String
    var body: ByteBuffer?

    init(_ method: HTTPMethod, _ uri: String, json: String? = nil) {
        self.method = method
        self.uri = uri
        self.body = json.map { ByteBuffer(string: $0) }
    }

    /// Writes the request (head, body, end) and flushes it.
    func write(on context: ChannelHandlerContext, host: String) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        if let body {
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(body.readableBytes))
        }
        let head = HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: headers)
        context.write(NIOAny(HTTPClientRequestPart.head(head)), promise: nil)
        if let body {
            context.write(NIOAny(HTTPClientRequestPart.body(.byteBuffer(body))), promise: nil)
        }
        context.writeAndFlush(NIOAny(HTTPClientRequestPart.end(nil)), promise: nil)
    }
}
