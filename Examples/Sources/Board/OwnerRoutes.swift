public import Hummingbird
public import Strata
import Foundation

/// `POST /owners`, `GET /owners`, `GET /owners/{id}`, `DELETE /owners/{id}`.
public struct OwnerRoutes<Context: RequestContext>: Sendable {
    public let stack: DataStack

    public init(stack: DataStack) { self.stack = stack }

    public func add(to group: RouterGroup<Context>) {
        group.post(use: create)
        group.get(use: list)
        group.get(":id", use: get)
        group.delete(":id", use: delete)
    }

    @Sendable func create(_ request: Request, context: Context) async throws -> Response {
        let input = try await request.decodeJSON(NewOwner.self, context: context)
        let name = input.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw APIError.badRequest("empty_name", "name must not be empty") }
        let owner: Owner
        do {
            owner = try await stack.perform { tx in
                try tx.create(Into<Owner>()) {
                    $0.name = name
                    $0.email = input.email
                }
            }
        } catch let error as StrataError where error.code == .uniqueConstraint {
            throw APIError(.conflict, "duplicate", "an owner named \"\(name)\" already exists")
        }
        return try .json(OwnerResource(owner), status: .created)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let owners = try await stack.fetchAll(From<Owner>().orderBy(.ascending(\.name)))
        return try .json(OwnerList(items: owners.map(OwnerResource.init)))
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> Response {
        let id = try Self.ownerID(context)
        guard let owner = try await stack.fetchExisting(id) else { throw Self.missing(id) }
        return try .json(OwnerResource(owner))
    }

    @Sendable func delete(_ request: Request, context: Context) async throws -> Response {
        let id = try Self.ownerID(context)
        let deleted = try await stack.perform { tx in
            guard try tx.fetchExisting(id) != nil else { return false }
            try tx.delete(id)   // the delete rule unassigns the owner's cards
            return true
        }
        guard deleted else { throw Self.missing(id) }
        return Response(status: .noContent)
    }

    static func ownerID(_ context: Context) throws -> Owner.ID {
        let text = context.parameters.get("id") ?? ""
        guard let raw = Int64(text), raw > 0 else { throw APIError.notFound("no owner with id \(text)") }
        return Owner.ID(rawValue: raw)
    }

    static func missing(_ id: Owner.ID) -> APIError { .notFound("no owner with id \(id.rawValue)") }
}
