import AsyncHTTPClient
import Board
import Foundation
import NIOCore
import NIOHTTP1
import Logging
import Strata
import Synchronization
import Testing

/// A log handler that keeps every record, with the metadata its provider adds (as swift-log asks
/// handlers to do).
struct CapturingLogHandler: LogHandler {
    struct Record: Sendable {
        let message: String
        let metadata: Logger.Metadata
    }

    final class Store: Sendable {
        let records = Mutex<[Record]>([])
        var all: [Record] { records.withLock { $0 } }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        merged.merge(metadataProvider?.get() ?? [:]) { _, new in new }
        merged.merge(event.metadata ?? [:]) { _, new in new }
        let record = Record(message: "\(event.message)", metadata: merged)
        store.records.withLock { $0.append(record) }
    }
}

@Suite("Request context reaches transactions")
struct RequestContextTests {
    @Test func theRequestIDReachesStrataLogLinesAndTheAuthorReachesHistory() async throws {
        let store = CapturingLogHandler.Store()
        var logger = Logger(label: "strata") { _ in
            CapturingLogHandler(store: store, metadataProvider: .boardRequestContext)
        }
        logger.logLevel = .trace
        try await withBoard(stackLogger: logger) { board async throws in
            let token = try await board.stack.currentHistoryToken()
            let response = try await board.send(
                .POST, "/cards", json: NewCard(title: "traced"),
                headers: [("X-Request-ID", "req-42"), ("X-Author", "ada@example.com")])
            #expect(response.status == 201)
            #expect(response.header("X-Request-ID") == "req-42")
            let card = try response.decode(CardResource.self)

            // Strata's "committed" line is written inside the transaction, on the writer's thread.
            let committed = store.all.filter { $0.message == "committed" }
            #expect(committed.contains { $0.metadata["request.id"] == "req-42" })

            let history = try await board.stack.history(after: token)
            let recorded = try #require(history.last)
            #expect(recorded.author == "ada@example.com")
            #expect(recorded.changes.insertedIDs(Card.self) == [Card.ID(rawValue: card.id)])

            // Without the headers: a generated request ID, echoed; no author.
            let anonymous = try await board.send(.POST, "/cards", json: NewCard(title: "anonymous"))
            let generated = try #require(anonymous.header("X-Request-ID"))
            #expect(!generated.isEmpty && generated != "req-42")
            #expect(store.all.contains { $0.message == "committed" && $0.metadata["request.id"] == .string(generated) })
            #expect(try await board.stack.history(after: recorded.token).last?.author == nil)

            // Errors carry the request ID too.
            let refused = try await board.send(.GET, "/cards/999", headers: [("X-Request-ID", "req-43")])
            #expect(refused.status == 404 && refused.header("X-Request-ID") == "req-43")
        }
    }
}
