public import HTTPTypes

/// An error the API reports to its client, always as JSON:
/// `{"error":{"status":404,"code":"not_found","message":"no card with id 7"}}`.
///
/// Routes throw it for what they validate themselves; ``APIError/init(_:)`` maps every other error
/// (Strata's included) to one, without letting internals reach the client.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    /// A stable, machine-readable name (`not_found`, `duplicate`, `invalid_filter`, …).
    public var code: String
    /// What went wrong, for a person; never SQL, stored values or Swift types.
    public var message: String

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    public static func badRequest(_ code: String, _ message: String) -> APIError {
        APIError(.badRequest, code, message)
    }

    public static func notFound(_ message: String) -> APIError {
        APIError(.notFound, "not_found", message)
    }

    /// The JSON body: `{"error":{"status","code","message"}}`.
    public struct Body: Codable, Sendable {
        public struct Detail: Codable, Sendable {
            public var status: Int
            public var code: String
            public var message: String
        }
        public var error: Detail
    }

    public var body: Body { Body(error: .init(status: status.code, code: code, message: message)) }
}
