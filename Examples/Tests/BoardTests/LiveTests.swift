import AsyncHTTPClient
import Board
import Foundation
import NIOCore
import NIOHTTP1
import Strata
import Testing

@Suite("Live list over server-sent events")
struct LiveTests {
    /// Opens `GET path` as a stream; returns the response for its body.
    func openStream(_ board: RunningBoard, _ path: String) async throws -> HTTPClientResponse {
        let request = HTTPClientRequest(url: board.baseURL + path)
        // The deadline only bounds a test that would otherwise hang; no test waits for it.
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        #expect(response.status == .ok)
        #expect(response.headers.first(name: "Content-Type") == "text/event-stream")
        return response
    }

    @Test func aSubscriberReceivesTheSnapshotWithACardPostedAfterIt() async throws {
        try await withBoard { board async throws in
            let early = try await board.createCard(NewCard(title: "early", status: "todo"))
            let response = try await openStream(board, "/cards/live?status=todo&sort=-priority")
            var events = SnapshotEvents(body: response.body).makeIterator()
            let first = try #require(try await events.next())
            #expect(first.items.map(\.id) == [early.id])
            #expect(first.inserted.isEmpty && first.deleted.isEmpty && first.updated.isEmpty)

            let posted = try await board.createCard(NewCard(title: "posted", status: "todo", priority: 9))
            _ = try await board.createCard(NewCard(title: "filtered out", status: "done"))
            // Snapshots may coalesce commits, but one of the next few contains the card.
            var found: CardListEvent?
            for _ in 0..<10 {
                guard let event = try await events.next() else { break }
                if event.items.contains(where: { $0.id == posted.id }) { found = event; break }
            }
            let event = try #require(found)
            #expect(event.items.map(\.id) == [posted.id, early.id])
            #expect(event.inserted == [posted.id])
            #expect(!event.items.contains { $0.status != .todo })
        }
    }

    @Test func aDisconnectingClientReleasesThePublisher() async throws {
        try await withBoard { board async throws in
            let before = board.stack.activeObservations
            var ends = board.liveStreamEnds.makeAsyncIterator()
            let (subscribed, subscribedSink) = AsyncStream<Void>.makeStream()
            let client = Task {
                let response = try await openStream(board, "/cards/live")
                var events = SnapshotEvents(body: response.body).makeIterator()
                _ = try await events.next()
                subscribedSink.yield()
                while try await events.next() != nil {}   // until cancelled
            }
            var subscription = subscribed.makeAsyncIterator()
            await subscription.next()
            #expect(board.stack.activeObservations == before + 1)

            client.cancel()   // AsyncHTTPClient closes the connection
            _ = await client.result
            await ends.next()   // the route's stream ended: the iteration is over
            #expect(board.stack.activeObservations == before)
        }
    }

    @Test func manySlowAndFastSubscribersShareTheBoard() async throws {
        try await withBoard { board async throws in
            var ends = board.liveStreamEnds.makeAsyncIterator()
            let clients = (0..<5).map { _ in
                Task {
                    let response = try await openStream(board, "/cards/live?limit=3&sort=-priority")
                    var events = SnapshotEvents(body: response.body).makeIterator()
                    return try await events.next()
                }
            }
            for client in clients {
                let first = try #require(try await client.value)
                #expect(first.items.isEmpty)
            }
            for _ in clients { await ends.next() }   // each client read one event and left
            #expect(board.stack.activeObservations == 0)
        }
    }
}
