import Foundation
public import GRDB
public import Hummingbird

/// The REST endpoints of the board, on a `DatabasePool`: each request is one `read` or one `write`.
public struct BoardController: Sendable {
    let pool: DatabasePool

    public init(pool: DatabasePool) {
        self.pool = pool
    }

    /// Adds `/health`, `/owners…` and `/cards…` to `router`.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("health") { _, _ in ["status": "ok"] }
        router.group("owners")
            .post(use: createOwner)
            .get(use: listOwners)
            .get(":id", use: owner)
            .delete(":id", use: deleteOwner)
        router.group("cards")
            .post(use: createCard)
            .get(use: listCards)
            .get(":id", use: card)
            .patch(":id", use: updateCard)
            .delete(":id", use: deleteCard)
    }

    // MARK: Owners

    @Sendable func createOwner(_ request: Request, context: some RequestContext) async throws
        -> EditedResponse<OwnerInfo>
    {
        let input = try await decode(NewOwner.self, request, context)
        let name = input.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw APIError.badRequest("empty_name", "name must not be empty") }
        do {
            let info = try await pool.write { db in
                var owner = Owner(name: name, email: input.email)
                try owner.insert(db)
                return OwnerInfo(id: owner.id!, name: owner.name, email: owner.email, cardCount: 0)
            }
            return EditedResponse(status: .created, response: info)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw APIError.conflict("duplicate", "an owner named \"\(name)\" already exists")
        }
    }

    @Sendable func listOwners(_ request: Request, context: some RequestContext) async throws -> OwnerList {
        try await pool.read { db in OwnerList(items: try OwnerInfo.all().fetchAll(db)) }
    }

    @Sendable func owner(_ request: Request, context: some RequestContext) async throws -> OwnerInfo {
        let id = try Self.id(context, "owner")
        guard let owner = try await pool.read({ db in try OwnerInfo.filter(id: id).fetchOne(db) }) else {
            throw APIError.notFound("no owner with id \(id)")
        }
        return owner
    }

    @Sendable func deleteOwner(_ request: Request, context: some RequestContext) async throws -> HTTPResponse.Status {
        let id = try Self.id(context, "owner")
        // The schema's ON DELETE SET NULL unassigns the owner's cards.
        guard try await pool.write({ db in try Owner.deleteOne(db, key: id) }) else {
            throw APIError.notFound("no owner with id \(id)")
        }
        return .noContent
    }

    // MARK: Cards

    @Sendable func createCard(_ request: Request, context: some RequestContext) async throws
        -> EditedResponse<Card>
    {
        let input = try await decode(NewCard.self, request, context)
        guard !input.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError.badRequest("empty_title", "title must not be empty")
        }
        let status = try input.status.map(Self.status) ?? .todo
        let card = try await pool.write { db in
            if let ownerID = input.ownerID { try Self.checkOwner(ownerID, db) }
            var card = Card(
                title: input.title, notes: input.notes, status: status,
                priority: input.priority ?? 0, ownerID: input.ownerID)
            try card.insert(db)
            return card
        }
        return EditedResponse(status: .created, response: card)
    }

    @Sendable func listCards(_ request: Request, context: some RequestContext) async throws -> CardPage {
        let query = try CardQuery(request.uri.queryParameters)
        return try await pool.read { db in try query.fetchPage(db) }
    }

    @Sendable func card(_ request: Request, context: some RequestContext) async throws -> Card {
        let id = try Self.id(context, "card")
        guard let card = try await pool.read({ db in try Card.fetchOne(db, key: id) }) else {
            throw APIError.notFound("no card with id \(id)")
        }
        return card
    }

    @Sendable func updateCard(_ request: Request, context: some RequestContext) async throws -> Card {
        let id = try Self.id(context, "card")
        let patch = try await decode(CardPatch.self, request, context)
        if let field = patch.nullField { throw APIError.badRequest("invalid_body", "\(field) cannot be null") }
        if let title = patch.title, title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw APIError.badRequest("empty_title", "title must not be empty")
        }
        let status = try patch.status.map(Self.status)
        return try await pool.write { db in
            guard var card = try Card.fetchOne(db, key: id) else { throw APIError.notFound("no card with id \(id)") }
            if case let ownerID?? = patch.ownerID { try Self.checkOwner(ownerID, db) }
            // Writes only the columns that changed, if any.
            try card.updateChanges(db) { card in
                if let title = patch.title { card.title = title }
                if let notes = patch.notes { card.notes = notes }
                if let status { card.status = status }
                if let priority = patch.priority { card.priority = priority }
                if let ownerID = patch.ownerID { card.ownerID = ownerID }
            }
            return card
        }
    }

    @Sendable func deleteCard(_ request: Request, context: some RequestContext) async throws -> HTTPResponse.Status {
        let id = try Self.id(context, "card")
        guard try await pool.write({ db in try Card.deleteOne(db, key: id) }) else {
            throw APIError.notFound("no card with id \(id)")
        }
        return .noContent
    }

    // MARK: Helpers

    private func decode<T: Decodable>(_ type: T.Type, _ request: Request, _ context: some RequestContext)
        async throws -> T
    {
        do {
            // The decoder itself, not `request.decode`, which turns decoding errors into HTTPError.
            return try await context.requestDecoder.decode(type, from: request, context: context)
        } catch DecodingError.dataCorrupted(let error) where error.codingPath.isEmpty {
            throw APIError.badRequest("invalid_json", "the request body is not valid JSON")
        } catch is DecodingError {
            throw APIError.badRequest("invalid_body", "the request body does not match the expected JSON")
        }
    }

    private static func status(_ text: String) throws -> CardStatus {
        guard let status = CardStatus(rawValue: text) else {
            throw APIError.badRequest("invalid_status", "status must be one of todo, doing, done")
        }
        return status
    }

    /// The `{id}` of the path; one that is not a positive integer names nothing (404).
    private static func id(_ context: some RequestContext, _ noun: String) throws -> Int64 {
        let text = context.parameters.get("id") ?? ""
        guard let id = Int64(text), id > 0 else { throw APIError.notFound("no \(noun) with id \(text)") }
        return id
    }

    private static func checkOwner(_ id: Int64, _ db: Database) throws {
        guard id > 0, try Owner.exists(db, key: id) else {
            throw APIError.badRequest("unknown_owner", "no owner with id \(id)")
        }
    }
}
