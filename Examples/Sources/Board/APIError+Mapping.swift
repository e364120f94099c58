import Strata
import Foundation
import HTTPTypes

extension APIError {
    /// The API's view of any error a route threw.
    ///
    /// Every `StrataError` code is mapped on purpose: what the client can fix is a 4xx, what may pass
    /// if retried (a lock held too long, a shutdown under way) is a 503, and what only an operator can
    /// fix is a 500 whose message says nothing of the internals (the log has them).
    public init(_ error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let error as StrataError:
            self.init(strata: error)
        case is DecodingError:
            self = .badRequest("invalid_body", "the request body does not match the expected JSON")
        case is CancellationError:
            self.init(.serviceUnavailable, "cancelled", "the request was cancelled; try again")
        default:
            self.init(.internalServerError, "internal_error", "internal error")
        }
    }

    private init(strata error: StrataError) {
        switch error.code {
        // What the client asked for conflicts with stored data.
        case .uniqueConstraint:
            let what = [error.entity, error.field].compactMap(\.self).joined(separator: ".")
            self.init(.conflict, "duplicate", what.isEmpty ? "the value is already taken" : "\(what) is already taken")
        case .constraint:
            self.init(.conflict, "constraint", "the change breaks a rule of the data (a reference or a required value)")
        case .deleteDenied:
            self.init(.conflict, "delete_denied", "related objects prevent the deletion")
        // What the client named does not exist.
        case .notFound:
            self.init(.notFound, "not_found", "the object does not exist")
        // What the client sent cannot be used.
        case .invalidArgument:
            self.init(.badRequest, "invalid_argument", "an argument is not valid")
        case .unsupportedQuery:
            self.init(.badRequest, "invalid_filter", "the filter or sort cannot be used")
        case .invalidEdit:
            self.init(.badRequest, "invalid_input", "the change is not allowed")
        // Temporary: retrying later may succeed.
        case .busy:
            self.init(.serviceUnavailable, "busy", "the database is busy; try again")
        case .interrupted:
            self.init(.serviceUnavailable, "cancelled", "the request was cancelled; try again")
        case .stackClosed:
            self.init(.serviceUnavailable, "shutting_down", "the service is shutting down; try again")
        case .readOnly:
            self.init(.serviceUnavailable, "read_only", "the service cannot write now; try again later")
        case .diskFull:
            self.init(HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), "storage_full", "the service is out of storage; nothing was changed")
        // A history the client asked to follow is gone (no route reads history yet).
        case .historyExpired:
            self.init(.gone, "history_expired", "that history was purged; read the current state again")
        // Only an operator (or a fix) helps: the file, the schema, the code, the disk.
        case .sqlite, .corrupt, .ioError, .notADatabase, .cannotOpen, .schemaMismatch, .invalidMigration,
            .typeMismatch, .transactionCancelled, .transactionClosed, .reentrantTransaction, .historyUnavailable,
            .storeNotFound:
            self.init(.internalServerError, "internal_error", "internal error")
        default:
            // A code added to Strata after this service was written.
            self.init(.internalServerError, "internal_error", "internal error")
        }
    }

    /// Whether the error is the server's fault, to be logged at error level.
    public var isServerError: Bool { status.code >= 500 }
}
