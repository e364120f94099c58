public import Foundation
public import Hummingbird

/// The request context of the GRDB board: Hummingbird's basic one, with the API's JSON settings
/// (ISO 8601 dates, keys sorted, as the Strata service writes them).
public struct BoardContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: Source) {
        coreContext = .init(source: source)
    }

    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
