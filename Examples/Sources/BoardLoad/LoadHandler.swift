import NIOCore
import NIOHTTP1

/// What one connection of the load does: the mix, the IDs to read and update, the window.
struct LoadPlan: Sendable {
    var host: String
    var mix: Mix
    var cardIDs: [Int]
    var ownerIDs: [Int]
    /// Responses that complete from `windowStart` (inclusive) to `windowEnd` (exclusive) count;
    /// before is the warm-up. The connection stops sending at the first response after `windowEnd`.
    var windowStart: NIODeadline
    var windowEnd: NIODeadline
}

/// What one connection saw in the window.
struct ConnectionStats: Sendable {
    /// Latencies of the window's responses, in microseconds.
    var latencies: [UInt32] = []
    /// The same latencies by kind of request (indexed by `Mix.Kind.rawValue`).
    var latenciesByKind: [[UInt32]] = Array(repeating: [], count: Mix.Kind.allCases.count)
    /// Responses of the window whose status is not 2xx.
    var non2xx = 0
    /// Connection errors and timeouts (a run with any is invalid).
    var failures = 0
    /// The first few unexpected responses, for the log.
    var samples: [String] = []

    mutating func merge(_ other: ConnectionStats) {
        latencies += other.latencies
        for kind in Mix.Kind.allCases { latenciesByKind[kind.rawValue] += other.latenciesByKind[kind.rawValue] }
        non2xx += other.non2xx
        failures += other.failures
        samples += other.samples.prefix(max(0, 3 - samples.count))
    }
}

/// One keep-alive connection with one request in flight: sends a request, waits for its whole
/// response, records the latency, sends the next one. Everything runs on the channel's event loop.
final class LoadHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let plan: LoadPlan
    private let done: EventLoopPromise<ConnectionStats>
    private var random: SplitMix64
    private var stats = ConnectionStats()
    private var sentAt = NIODeadline.now()
    private var kind = Mix.Kind.health
    private var status: UInt = 0
    private var body = ByteBuffer()
    private var created = 0
    private var finished = false

    init(plan: LoadPlan, seed: UInt64, done: EventLoopPromise<ConnectionStats>) {
        self.plan = plan
        self.random = SplitMix64(seed: seed)
        self.done = done
    }

    func channelActive(context: ChannelHandlerContext) {
        // A server that stops answering must not hang the run.
        context.eventLoop.assumeIsolated().scheduleTask(deadline: plan.windowEnd + .seconds(10)) {
            if !self.finished {
                self.stats.failures += 1
                self.stats.samples.append("timeout")
                self.finish(context: context)
            }
        }
        sendNext(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = head.status.code
            if !(200..<300).contains(status) { body.clear() }
        case .body(var part):
            if !(200..<300).contains(status) { body.writeBuffer(&part) }
        case .end:
            let now = NIODeadline.now()
            if now >= plan.windowStart && now < plan.windowEnd {
                let micros = (now - sentAt).nanoseconds / 1000
                stats.latencies.append(UInt32(clamping: micros))
                stats.latenciesByKind[kind.rawValue].append(UInt32(clamping: micros))
                if !(200..<300).contains(status) {
                    stats.non2xx += 1
                    if stats.samples.count < 3 { stats.samples.append("\(status) \(String(buffer: body))") }
                }
            }
            if now >= plan.windowEnd {
                finish(context: context)
            } else {
                sendNext(context: context)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !finished {
            stats.failures += 1
            stats.samples.append("\(error)")
        }
        finish(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !finished {
            stats.failures += 1
            stats.samples.append("connection closed by the server")
            finish(context: context)
        }
        context.fireChannelInactive()
    }

    private func finish(context: ChannelHandlerContext) {
        guard !finished else { return }
        finished = true
        done.succeed(stats)
        context.close(promise: nil)
    }

    private func sendNext(context: ChannelHandlerContext) {
        let request: HTTPRequest
        kind = plan.mix.kind(at: Int.random(in: 0..<plan.mix.total, using: &random))
        switch kind {
        case .list:
            request = HTTPRequest(.GET, "/cards?status=todo&sort=-priority&limit=20")
        case .get:
            request = HTTPRequest(.GET, "/cards/\(plan.cardIDs.randomElement(using: &random)!)")
        case .create:
            created += 1
            let owner = plan.ownerIDs.randomElement(using: &random)!
            let priority = Int.random(in: 0...9, using: &random)
            // Not `todo`: the list request reads and sorts every `todo` card, so new `todo` cards
            // would make it dearer the faster a server goes, penalising the faster one.
            let status = Bool.random(using: &random) ? "doing" : "done"
            request = HTTPRequest(
                .POST, "/cards",
                json: #"{"title":"load \#(created)","status":"\#(status)","priority":\#(priority),"ownerID":\#(owner)}"#)
        case .patch:
            let id = plan.cardIDs.randomElement(using: &random)!
            let status = ["todo", "doing", "done"].randomElement(using: &random)!
            let priority = Int.random(in: 0...9, using: &random)
            request = HTTPRequest(.PATCH, "/cards/\(id)", json: #"{"status":"\#(status)","priority":\#(priority)}"#)
        case .health:
            request = HTTPRequest(.GET, "/health")
        }
        sentAt = NIODeadline.now()
        request.write(on: context, host: plan.host)
    }
}
