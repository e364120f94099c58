public import Hummingbird
public import Strata
import Foundation

/// `POST /cards`, `GET /cards`, `GET /cards/{id}`, `PATCH /cards/{id}`, `DELETE /cards/{id}`.
public struct CardRoutes<Context: RequestContext>: Sendable {
    public let stack: DataStack

    public init(stack: DataStack) { self.stack = stack }

    public func add(to group: RouterGroup<Context>) {
        group.post(use: create)
        group.get(use: list)
        group.get(":id", use: get)
        group.patch(":id", use: update)
        group.delete(":id", use: delete)
    }

    @Sendable func create(_ request: Request, context: Context) async throws -> Response {
        let input = try await request.decodeJSON(NewCard.self, context: context)
        let title = try Self.title(input.title)
        let status = try input.status.map(Self.status) ?? .todo
        let ownerID = input.ownerID.map(Owner.ID.init(rawValue:))
        let card = try await stack.perform { tx in
            if let ownerID { try Self.requireOwner(ownerID, tx) }
            return try tx.create(Into<Card>()) {
                $0.title = title
                $0.notes = input.notes
                $0.status = status
                $0.priority = input.priority ?? 0
                $0.owner = ownerID
            }
        }
        return try .json(CardResource(card), status: .created)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let query = try CardListQuery(request.uri.queryParameters)
        let (page, filtered) = (query.page, query.filtered)
        // One read: the page and the total agree even while writes commit.
        let (cards, total) = try await stack.read { reader in
            (try reader.fetchAll(page), try reader.fetchCount(filtered))
        }
        return try .json(CardPage(items: cards.map(CardResource.init), total: total, limit: query.limit, offset: query.offset))
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> Response {
        let id = try Self.cardID(context)
        guard let card = try await stack.fetchExisting(id) else { throw Self.missing(id) }
        return try .json(CardResource(card))
    }

    @Sendable func update(_ request: Request, context: Context) async throws -> Response {
        let id = try Self.cardID(context)
        let patch = try await request.decodeJSON(CardPatch.self, context: context)
        let title: String? =
            switch patch.title {
            case .absent: nil
            case .null: throw APIError.badRequest("invalid_body", "title cannot be null")
            case .value(let value): try Self.title(value)
            }
        let status: CardStatus? =
            switch patch.status {
            case .absent: nil
            case .null: throw APIError.badRequest("invalid_status", "status cannot be null")
            case .value(let value): try Self.status(value)
            }
        if case .null = patch.priority { throw APIError.badRequest("invalid_body", "priority cannot be null") }
        let card = try await stack.perform { tx -> Card? in
            guard let card = try tx.fetchExisting(id) else { return nil }
            if case .value(let raw) = patch.ownerID { try Self.requireOwner(Owner.ID(rawValue: raw), tx) }
            return try tx.edit(card) { card in
                if let title { card.title = title }
                if let status { card.status = status }
                if case .value(let priority) = patch.priority { card.priority = priority }
                switch patch.notes {
                case .absent: break
                case .null: card.notes = nil
                case .value(let notes): card.notes = notes
                }
                switch patch.ownerID {
                case .absent: break
                case .null: card.owner = nil
                case .value(let raw): card.owner = Owner.ID(rawValue: raw)
                }
            }
        }
        guard let card else { throw Self.missing(id) }
        return try .json(CardResource(card))
    }

    @Sendable func delete(_ request: Request, context: Context) async throws -> Response {
        let id = try Self.cardID(context)
        let deleted = try await stack.perform { tx in
            guard try tx.fetchExisting(id) != nil else { return false }
            try tx.delete(id)
            return true
        }
        guard deleted else { throw Self.missing(id) }
        return Response(status: .noContent)
    }

    // MARK: Validation

    static func title(_ text: String) throws(APIError) -> String {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .badRequest("empty_title", "title must not be empty")
        }
        return text
    }

    static func status(_ text: String) throws(APIError) -> CardStatus {
        guard let status = CardStatus(rawValue: text) else {
            throw .badRequest("invalid_status", "status must be one of todo, doing, done")
        }
        return status
    }

    /// Inside the transaction, so that the owner cannot vanish before the card refers to it.
    static func requireOwner(_ id: Owner.ID, _ tx: Transaction) throws {
        guard id.rawValue > 0, try tx.fetchExisting(id) != nil else {
            throw APIError.badRequest("unknown_owner", "no owner with id \(id.rawValue)")
        }
    }

    static func cardID(_ context: Context) throws -> Card.ID {
        let text = context.parameters.get("id") ?? ""
        guard let raw = Int64(text), raw > 0 else { throw APIError.notFound("no card with id \(text)") }
        return Card.ID(rawValue: raw)
    }

    static func missing(_ id: Card.ID) -> APIError { .notFound("no card with id \(id.rawValue)") }
}
