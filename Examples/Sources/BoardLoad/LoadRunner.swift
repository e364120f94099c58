import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Drives one server: seeds it, then runs the timed load on N connections.
struct LoadRunner {
    let group: MultiThreadedEventLoopGroup

    /// The IDs the server gave the seeded owners and cards.
    struct Seed: Sendable {
        var ownerIDs: [Int]
        var cardIDs: [Int]
    }

    /// The result of one window.
    struct Window: Sendable {
        var stats: ConnectionStats
        var seconds: Double
        var serverCPUSeconds: Double
        var loadCPUSeconds: Double
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Seeds 20 owners and 1,000 cards through the API, one request after the other on one
    /// connection, from a fixed-seed generator: the same data, in the same order, for every server.
    func seed(host: String, port: Int) throws -> Seed {
        let owners = (0..<20).map { i in
            HTTPRequest(.POST, "/owners", json: #"{"name":"owner-\#(i)","email":"owner\#(i)@example.com"}"#)
        }
        let ownerIDs = try ids(of: run(owners, host: host, port: port))
        var random = SplitMix64(seed: 15)
        let statuses = ["todo", "doing", "done"]
        let cards = (0..<1000).map { i in
            var fields = [#""title":"Card \#(i)""#]
            if i % 3 == 0 { fields.append(#""notes":"Notes for card \#(i)""#) }
            fields.append(#""status":"\#(statuses.randomElement(using: &random)!)""#)
            fields.append(#""priority":\#(Int.random(in: 0...9, using: &random))"#)
            if Int.random(in: 0..<5, using: &random) != 0 {
                fields.append(#""ownerID":\#(ownerIDs.randomElement(using: &random)!)"#)
            }
            return HTTPRequest(.POST, "/cards", json: "{\(fields.joined(separator: ","))}")
        }
        let cardIDs = try ids(of: run(cards, host: host, port: port))
        return Seed(ownerIDs: ownerIDs, cardIDs: cardIDs)
    }

    /// Sends `requests` one after the other on one new connection.
    private func run(_ requests: [HTTPRequest], host: String, port: Int) throws -> [ScriptHandler.Response] {
        let done = group.next().makePromise(of: [ScriptHandler.Response].self)
        let hostHeader = "\(host):\(port)"
        let channel = try ClientBootstrap(group: group)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        ScriptHandler(host: hostHeader, requests: requests, done: done))
                }
            }
            .connect(host: host, port: port).wait()
        defer { channel.close(promise: nil) }
        return try done.futureResult.wait()
    }

    private func ids(of responses: [ScriptHandler.Response]) throws -> [Int] {
        struct Created: Decodable { var id: Int }
        return try responses.map { response in
            guard response.status == 201 else {
                throw Failure(description: "seeding: \(response.status) \(response.body)")
            }
            return try JSONDecoder().decode(Created.self, from: Data(response.body.utf8)).id
        }
    }

    /// Opens `connections` connections, loads the server for `warmup` seconds, then measures for
    /// `duration` seconds. Waits on the calling thread (the main thread, not a task).
    func load(
        server: ServerProcess, seed: Seed, mix: Mix, connections: Int, warmup: Double, duration: Double
    ) throws -> Window {
        let windowStart = NIODeadline.now() + .milliseconds(Int64(warmup * 1000))
        let windowEnd = windowStart + .milliseconds(Int64(duration * 1000))
        let plan = LoadPlan(
            host: "\(server.host):\(server.port)", mix: mix, cardIDs: seed.cardIDs, ownerIDs: seed.ownerIDs,
            windowStart: windowStart, windowEnd: windowEnd)
        var results: [EventLoopFuture<ConnectionStats>] = []
        var channels: [EventLoopFuture<any Channel>] = []
        for index in 0..<connections {
            let done = group.next().makePromise(of: ConnectionStats.self)
            results.append(done.futureResult)
            channels.append(
                ClientBootstrap(group: group)
                    .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHTTPClientHandlers()
                            try channel.pipeline.syncOperations.addHandler(
                                LoadHandler(plan: plan, seed: UInt64(index) &* 7919 &+ 1, done: done))
                        }
                    }
                    .connect(host: server.host, port: server.port))
        }
        for channel in channels { _ = try channel.wait() }
        Self.sleep(until: windowStart)
        let serverCPU0 = server.cpuSeconds
        let loadCPU0 = Self.ownCPUSeconds()
        Self.sleep(until: windowEnd)
        let serverCPU1 = server.cpuSeconds
        let loadCPU1 = Self.ownCPUSeconds()
        var stats = ConnectionStats()
        for result in results { stats.merge(try result.wait()) }
        return Window(
            stats: stats, seconds: duration, serverCPUSeconds: serverCPU1 - serverCPU0,
            loadCPUSeconds: loadCPU1 - loadCPU0)
    }

    private static func sleep(until deadline: NIODeadline) {
        let nanoseconds = (deadline - NIODeadline.now()).nanoseconds
        if nanoseconds > 0 { Thread.sleep(forTimeInterval: Double(nanoseconds) / 1e9) }
    }

    /// This process's CPU time so far (user + system, all threads).
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
