import AsyncHTTPClient
import Board
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import Strata
import Testing

@Suite("Errors as JSON with the right status")
struct ErrorResponseTests {
    /// Sends the request and checks the status and the JSON error body.
    func expectError(
        _ board: RunningBoard, _ method: HTTPMethod, _ path: String, raw: String? = nil,
        status: Int, code: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let response = try await board.send(method, path, raw: raw)
        #expect(response.status == status, "\(method) \(path)", sourceLocation: sourceLocation)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        let error = try response.error()
        #expect(error.status == status && error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func everyRefusalIsJSONWithItsStatus() async throws {
        try await withBoard { board async throws in
            try await board.createOwner("Ada")
            try await expectError(board, .POST, "/owners", raw: #"{"name":"Ada"}"#, status: 409, code: "duplicate")
            try await expectError(board, .POST, "/owners", raw: #"{"name":"  "}"#, status: 400, code: "empty_name")
            try await expectError(board, .GET, "/cards/12345", status: 404, code: "not_found")
            try await expectError(board, .GET, "/cards/abc", status: 404, code: "not_found")
            try await expectError(board, .GET, "/owners/77", status: 404, code: "not_found")
            try await expectError(board, .GET, "/nowhere", status: 404, code: "not_found")
            try await expectError(board, .GET, "/cards?status=later", status: 400, code: "invalid_status")
            try await expectError(board, .GET, "/cards?sort=owner", status: 400, code: "invalid_sort")
            try await expectError(board, .GET, "/cards?owner=x", status: 400, code: "invalid_owner")
            try await expectError(board, .GET, "/cards?limit=0", status: 400, code: "invalid_limit")
            try await expectError(board, .GET, "/cards?limit=201", status: 400, code: "invalid_limit")
            try await expectError(board, .GET, "/cards?limit=ten", status: 400, code: "invalid_limit")
            try await expectError(board, .GET, "/cards?offset=-1", status: 400, code: "invalid_offset")
            try await expectError(board, .GET, "/cards/live?status=later", status: 400, code: "invalid_status")
            try await expectError(board, .POST, "/cards", raw: #"{"title":""}"#, status: 400, code: "empty_title")
            try await expectError(board, .POST, "/cards", raw: #"{"title":"x","status":"someday"}"#, status: 400, code: "invalid_status")
            try await expectError(board, .POST, "/cards", raw: #"{"title":"x","ownerID":999}"#, status: 400, code: "unknown_owner")
            try await expectError(board, .POST, "/cards", raw: #"{"title":"x","priority":"high"}"#, status: 400, code: "invalid_body")
            try await expectError(board, .POST, "/cards", raw: #"{"notes":"no title"}"#, status: 400, code: "invalid_body")
            try await expectError(board, .POST, "/cards", raw: #"{"title": "x""#, status: 400, code: "invalid_json")
            try await expectError(board, .POST, "/cards", raw: "not json", status: 400, code: "invalid_json")
            let card = try await board.createCard(NewCard(title: "x"))
            try await expectError(board, .PATCH, "/cards/\(card.id)", raw: #"{"status":"someday"}"#, status: 400, code: "invalid_status")
            try await expectError(board, .PATCH, "/cards/\(card.id)", raw: #"{"title":null}"#, status: 400, code: "invalid_body")
            try await expectError(board, .PATCH, "/cards/\(card.id)", raw: #"{"ownerID":5}"#, status: 400, code: "unknown_owner")
        }
    }

    @Test func strataErrorsMapToStatusesWithoutInternals() {
        let unique = APIError(StrataError(.uniqueConstraint, "UNIQUE constraint failed: Owner.name", sql: "INSERT …", entity: "Owner", field: "name"))
        #expect(unique.status.code == 409 && !unique.message.contains("INSERT"))
        #expect(APIError(StrataError(.notFound, "gone")).status.code == 404)
        #expect(APIError(StrataError(.invalidArgument, "bad")).status.code == 400)
        #expect(APIError(StrataError(.unsupportedQuery, "bad")).status.code == 400)
        #expect(APIError(StrataError(.busy, "locked")).status.code == 503)
        #expect(APIError(StrataError(.stackClosed, "closed")).status.code == 503)
        #expect(APIError(StrataError(.diskFull, "full")).status.code == 507)
        let corrupt = APIError(StrataError(.corrupt, "database disk image is malformed", sql: "SELECT secret"))
        #expect(corrupt.status.code == 500 && corrupt.message == "internal error")
        struct Surprise: Error {}
        #expect(APIError(Surprise()).status.code == 500)
        #expect(APIError(CancellationError()).status.code == 503)
    }
}
