import AsyncHTTPClient
import Board
import Foundation
import NIOCore
import NIOHTTP1
import Strata
import Synchronization
import Testing

/// The `board-server` executable as a child process.
struct ServerProcess {
    let process: Process
    let port: Int
    /// The exit status, once the process has ended.
    let exit: AsyncStream<(Process.TerminationReason, Int32)>

    /// The built executable, next to the test bundle in the build products directory.
    static func executable() -> URL? {
        var directories = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        directories += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for directory in directories {
            let candidate = directory.appendingPathComponent("board-server")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Launches it with `arguments` and waits for its `listening on` line.
    static func launch(_ arguments: [String], stderr: URL) async throws -> ServerProcess {
        let process = Process()
        let executable: URL = try #require(Self.executable(), "board-server was not built next to the tests")
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: stderr)
        let (exit, exitSink) = AsyncStream<(Process.TerminationReason, Int32)>.makeStream()
        process.terminationHandler = { process in
            exitSink.yield((process.terminationReason, process.terminationStatus))
            exitSink.finish()
        }
        try process.run()
        let reading = output.fileHandleForReading
        // A blocking read, so on a thread of its own, never on Swift's pool.
        let line = try await onOwnThread { () -> String in
            var pending = Data()
            while case let chunk = reading.availableData, !chunk.isEmpty {
                pending += chunk
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    return String(decoding: pending[..<newline], as: UTF8.self)
                }
            }
            return String(decoding: pending, as: UTF8.self)
        }
        let prefix = "listening on http://127.0.0.1:"
        #expect(line.hasPrefix(prefix), "first line: \(line)")
        let port = try #require(Int(line.dropFirst(prefix.count)), "first line: \(line)")
        #expect(port > 0)
        return ServerProcess(process: process, port: port, exit: exit)
    }
}

/// Runs `body` on a new thread (for blocking calls) and resumes with its result.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// The IDs of the cards the server acknowledged (201), from all writers.
final class Acknowledged: Sendable {
    let ids = Mutex<[Int64]>([])
}

@Suite("Graceful shutdown of the server process")
struct ShutdownTests {
    @Test func sigtermDuringWritesLosesNoAcknowledgedWrite() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("board.sqlite").path
        let server = try await ServerProcess.launch(
            ["--port", "0", "--database", path, "--log-level", "warning"],
            stderr: directory.appendingPathComponent("stderr.log"))
        let base = "http://127.0.0.1:\(server.port)"

        // A live client, to check that open streams do not hold the shutdown up.
        let live = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/cards/live"), timeout: .seconds(60))
        var events = SnapshotEvents(body: live.body).makeIterator()
        _ = try #require(try await events.next())

        // Writers fail at once when the server is gone: by default AsyncHTTPClient retries a refused
        // connection until the request's deadline.
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let writerClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { _ = writerClient.shutdown() as EventLoopFuture<Void> }
        let acknowledged = Acknowledged()
        let (halfway, halfwaySink) = AsyncStream<Void>.makeStream()
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        for index in 0..<2_000 {   // bounded; the shutdown ends it much sooner
                            var request = HTTPClientRequest(url: base + "/cards")
                            request.method = .POST
                            request.headers.add(name: "Content-Type", value: "application/json")
                            request.body = .bytes(ByteBuffer(string: #"{"title":"w\#(writer)-\#(index)"}"#))
                            guard let response = try? await writerClient.execute(request, timeout: .seconds(30)),
                                let body = try? await response.body.collect(upTo: 1 << 20)
                            else { return }   // refused or reset: the server is going away
                            guard response.status == .created,
                                let card = try? BoardJSON.decoder().decode(CardResource.self, from: Data(body.readableBytesView))
                            else { return }
                            let count = acknowledged.ids.withLock { $0.append(card.id); return $0.count }
                            if count == 200 { halfwaySink.yield() }
                        }
                    }
                }
            }
        }
        var iterator = halfway.makeAsyncIterator()
        await iterator.next()
        kill(server.process.processIdentifier, SIGTERM)
        await writers.value

        // The live stream ends with the shutdown.
        while try await events.next() != nil {}

        var exits = server.exit.makeAsyncIterator()
        let (reason, status) = try #require(await exits.next())
        #expect(reason == .exit && status == 0)

        let ids = acknowledged.ids.withLock { $0 }
        #expect(ids.count >= 200)
        let stack = try await DataStack(boardSchema, storage: SQLiteStore(path: path), configuration: {
            var configuration = DataStack.Configuration()
            configuration.history = HistoryOptions(contextName: "board-server")
            return configuration
        }())
        let stored = try await stack.fetchExisting(ids.map { Card.ID(rawValue: $0) })
        #expect(stored.count == ids.count, "\(ids.count - stored.count) acknowledged cards are missing")
        await stack.close()
    }
}
