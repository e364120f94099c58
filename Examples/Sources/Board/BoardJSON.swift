public import Foundation
import Hummingbird

/// The API's JSON settings: ISO 8601 dates, keys sorted (so bodies are stable for tests and diffs).
public enum BoardJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

extension Response {
    /// A JSON response with the given status.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try BoardJSON.encoder().encode(value)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(data.count)],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension Request {
    /// The body decoded as JSON; a body that is not JSON of that shape is a 400 that says so.
    func decodeJSON<T: Decodable>(_ type: T.Type, context: some RequestContext) async throws -> T {
        let buffer = try await body.collect(upTo: context.maxUploadSize)
        do {
            return try BoardJSON.decoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw APIError.badRequest("invalid_json", "the request body is not valid JSON")
        } catch let error as DecodingError {
            throw APIError.badRequest("invalid_body", Self.describe(error))
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, _): return "the body lacks the field \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "the field \"\(path(context))\" has the wrong type"
        case .dataCorrupted(let context): return "the field \"\(path(context))\" is not valid"
        @unknown default: return "the request body does not match the expected JSON"
        }
    }
}
