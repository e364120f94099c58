import AsyncHTTPClient
import Board
import Foundation
import NIOCore
import NIOHTTP1
import Strata
import Testing

@Suite("REST endpoints over TCP")
struct RESTTests {
    @Test func healthAnswers() async throws {
        try await withBoard { board async throws in
            #expect(try await board.send(.GET, "/health").status == 200)
        }
    }

    @Test func ownersRoundTripAndDeletingOneUnassignsItsCards() async throws {
        try await withBoard { board async throws in
            let ada = try await board.createOwner("Ada", email: "ada@example.com")
            let bob = try await board.createOwner("Bob")
            #expect(ada.name == "Ada" && ada.email == "ada@example.com" && ada.cardCount == 0)
            #expect(bob.email == nil)
            let bobJSON = try await board.send(.GET, "/owners/\(bob.id)")
            #expect(String(decoding: bobJSON.body, as: UTF8.self).contains("\"email\":null"))

            let card = try await board.createCard(NewCard(title: "Write docs", ownerID: ada.id))
            #expect(card.ownerID == ada.id)
            #expect(try await board.get("/owners/\(ada.id)", as: OwnerResource.self).cardCount == 1)
            let list = try await board.get("/owners", as: OwnerList.self)
            #expect(list.items.map(\.name) == ["Ada", "Bob"])

            #expect(try await board.send(.DELETE, "/owners/\(ada.id)").status == 204)
            #expect(try await board.send(.GET, "/owners/\(ada.id)").status == 404)
            #expect(try await board.send(.DELETE, "/owners/\(ada.id)").status == 404)
            #expect(try await board.get("/cards/\(card.id)", as: CardResource.self).ownerID == nil)
        }
    }

    @Test func cardsFilterSortAndPage() async throws {
        try await withBoard { board async throws in
            let ada = try await board.createOwner("Ada")
            let specs: [(String, String, Int, Int64?)] = [
                ("Fix login", "todo", 3, ada.id), ("Write docs", "doing", 1, nil),
                ("fix LOGOUT", "todo", 5, nil), ("Ship it", "done", 2, ada.id), ("Plan", "todo", 4, ada.id),
            ]
            var created: [CardResource] = []
            for (title, status, priority, owner) in specs {
                created.append(try await board.createCard(
                    NewCard(title: title, status: status, priority: priority, ownerID: owner)))
            }
            let todo = try await board.get("/cards?status=todo&sort=-priority", as: CardPage.self)
            #expect(todo.items.map(\.title) == ["fix LOGOUT", "Plan", "Fix login"])
            #expect(todo.total == 3 && todo.limit == 50 && todo.offset == 0)

            let owned = try await board.get("/cards?owner=\(ada.id)&sort=title", as: CardPage.self)
            #expect(owned.items.map(\.title) == ["Fix login", "Plan", "Ship it"])

            let search = try await board.get("/cards?q=FIX&sort=priority", as: CardPage.self)
            #expect(search.items.map(\.title) == ["Fix login", "fix LOGOUT"])

            let byPriority = created.sorted { $0.priority < $1.priority }.map(\.id)
            let page1 = try await board.get("/cards?sort=priority&limit=2", as: CardPage.self)
            let page2 = try await board.get("/cards?sort=priority&limit=2&offset=2", as: CardPage.self)
            let page3 = try await board.get("/cards?sort=priority&limit=2&offset=4", as: CardPage.self)
            #expect((page1.items + page2.items + page3.items).map(\.id) == byPriority)
            #expect(page1.total == 5 && page3.items.count == 1 && page2.offset == 2 && page2.limit == 2)

            let newestFirst = try await board.get("/cards?sort=-createdAt", as: CardPage.self)
            #expect(newestFirst.items.map(\.id) == created.map(\.id).reversed())
        }
    }

    @Test func patchChangesFieldsAndNullClearsNotesAndOwner() async throws {
        try await withBoard { board async throws in
            let ada = try await board.createOwner("Ada")
            let card = try await board.createCard(NewCard(title: "Draft", notes: "first", ownerID: ada.id))
            #expect(card.status == .todo && card.priority == 0 && card.notes == "first")

            let renamed = try await board.send(.PATCH, "/cards/\(card.id)", raw: #"{"title":"Final","status":"doing","priority":7}"#)
            #expect(renamed.status == 200)
            let edited = try renamed.decode(CardResource.self)
            #expect(edited.title == "Final" && edited.status == .doing && edited.priority == 7)
            #expect(edited.notes == "first" && edited.ownerID == ada.id && edited.createdAt == card.createdAt)

            let cleared = try await board.send(.PATCH, "/cards/\(card.id)", raw: #"{"notes":null,"ownerID":null}"#)
            #expect(cleared.status == 200)
            let stored = try await board.get("/cards/\(card.id)", as: CardResource.self)
            #expect(stored.notes == nil && stored.ownerID == nil && stored.title == "Final")
            #expect(try await board.get("/owners/\(ada.id)", as: OwnerResource.self).cardCount == 0)

            let reassigned = try await board.send(.PATCH, "/cards/\(card.id)", raw: #"{"ownerID":\#(ada.id)}"#)
            #expect(try reassigned.decode(CardResource.self).ownerID == ada.id)

            #expect(try await board.send(.PATCH, "/cards/999", raw: #"{"title":"x"}"#).status == 404)
            #expect(try await board.send(.DELETE, "/cards/\(card.id)").status == 204)
            #expect(try await board.send(.GET, "/cards/\(card.id)").status == 404)
            #expect(try await board.send(.DELETE, "/cards/\(card.id)").status == 404)
        }
    }

    @Test func twoHundredConcurrentPostsAreAllThere() async throws {
        // A client of its own, allowed 200 connections, so that the 200 requests are in flight at once.
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 200
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await postTwoHundred(client)
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    func postTwoHundred(_ client: HTTPClient) async throws {
        try await withBoard { board async throws in
            let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let response = try await board.send(
                            .POST, "/cards", json: NewCard(title: "card \(index)", priority: index), client: client)
                        #expect(response.status == 201)
                        return try response.decode(CardResource.self).id
                    }
                }
                return try await group.reduce(into: Set<Int64>()) { $0.insert($1) }
            }
            #expect(ids.count == 200)
            let page = try await board.get("/cards?limit=200", as: CardPage.self)
            #expect(page.total == 200)
            #expect(Set(page.items.map(\.id)) == ids)
        }
    }
}
