import AsyncHTTPClient
import Board
import Foundation
import NIOCore
import NIOHTTP1
import Logging
import NIOCore
import ServiceLifecycle
import Strata
import Testing

/// The board service running in this process on 127.0.0.1 with port 0, on a SQLite file of its own,
/// in the same service group as the server binary runs (stack first, application after).
struct RunningBoard: Sendable {
    let stack: DataStack
    let port: Int
    let databasePath: String
    /// One element each time a live stream has ended (its publisher released).
    let liveStreamEnds: AsyncStream<Void>

    var baseURL: String { "http://127.0.0.1:\(port)" }
}

/// A fresh directory under the temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("board-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// A logger that writes nothing.
let silentLogger = Logger(label: "board-tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// Starts the service, runs `body` against it, then shuts the group down gracefully and waits for it.
func withBoard<T: Sendable>(
    stackLogger: Logger = silentLogger, _ body: (RunningBoard) async throws -> T
) async throws -> T {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("board.sqlite").path
    let stack = try await BoardService.openStack(path: path, logger: stackLogger)
    let (ports, portSink) = AsyncStream<Int>.makeStream()
    let (ends, endSink) = AsyncStream<Void>.makeStream()
    let application = BoardService.application(
        stack: stack, host: "127.0.0.1", port: 0, logger: silentLogger,
        onListening: { portSink.yield($0) }, onLiveStreamEnd: { endSink.yield() })
    let group = BoardService.serviceGroup(stack: stack, application: application, logger: silentLogger, signals: [])
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let board = RunningBoard(stack: stack, port: port, databasePath: path, liveStreamEnds: ends)
        let result: Result<T, any Error>
        do { result = .success(try await body(board)) } catch { result = .failure(error) }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return try result.get()
    }
}

/// A response with its body collected.
struct TestResponse: Sendable {
    let status: Int
    let headers: [(String, String)]
    let body: Data

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try BoardJSON.decoder().decode(T.self, from: body)
    }

    /// The API's error body; fails the test when the body is not one.
    func error() throws -> APIError.Body.Detail {
        try decode(APIError.Body.self).error
    }
}

extension RunningBoard {
    /// One request over TCP with AsyncHTTPClient, the body collected (up to 16 MB).
    func send(
        _ method: HTTPMethod, _ path: String, json: (any Encodable)? = nil, raw: String? = nil,
        headers: [(String, String)] = [], client: HTTPClient = .shared
    ) async throws -> TestResponse {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.body = .bytes(ByteBuffer(bytes: try BoardJSON.encoder().encode(json)))
            request.headers.add(name: "Content-Type", value: "application/json")
        } else if let raw {
            request.body = .bytes(ByteBuffer(string: raw))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        return TestResponse(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Data(body.readableBytesView))
    }

    func get<T: Decodable>(_ path: String, as type: T.Type) async throws -> T {
        let response = try await send(.GET, path)
        #expect(response.status == 200, "GET \(path): \(String(decoding: response.body, as: UTF8.self))")
        return try response.decode(T.self)
    }

    @discardableResult
    func createOwner(_ name: String, email: String? = nil) async throws -> OwnerResource {
        let response = try await send(.POST, "/owners", json: NewOwner(name: name, email: email))
        #expect(response.status == 201)
        return try response.decode(OwnerResource.self)
    }

    @discardableResult
    func createCard(_ card: NewCard, headers: [(String, String)] = []) async throws -> CardResource {
        let response = try await send(.POST, "/cards", json: card, headers: headers)
        #expect(response.status == 201, "POST /cards: \(String(decoding: response.body, as: UTF8.self))")
        return try response.decode(CardResource.self)
    }
}

/// Reads server-sent events from a streamed response body: each `data:` payload of a `snapshot`
/// event, decoded.
struct SnapshotEvents<Body: AsyncSequence & Sendable>: Sendable where Body.Element == ByteBuffer {
    let body: Body

    func makeIterator() -> Iterator { Iterator(bytes: body.makeAsyncIterator()) }

    struct Iterator {
        var bytes: Body.AsyncIterator
        var pending = Data()

        /// The next snapshot, or nil when the stream ended.
        mutating func next() async throws -> CardListEvent? {
            while true {
                if let end = pending.range(of: Data("\n\n".utf8)) {
                    let event = String(decoding: pending[pending.startIndex..<end.lowerBound], as: UTF8.self)
                    pending = Data(pending[end.upperBound...])
                    let lines = event.split(separator: "\n")
                    guard lines.contains("event: snapshot"),
                        let data = lines.first(where: { $0.hasPrefix("data: ") })
                    else { continue }
                    return try BoardJSON.decoder().decode(CardListEvent.self, from: Data(data.dropFirst(6).utf8))
                }
                guard let chunk = try await bytes.next() else { return nil }
                pending.append(contentsOf: chunk.readableBytesView)
            }
        }
    }
}
