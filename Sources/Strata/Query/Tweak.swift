/// Options of a fetch beyond filtering and ordering: how many objects, from where, in which batches.
///
/// ```swift
/// From<Person>().orderBy(.ascending(\.name)).tweak(.limit(20), .offset(40))
/// From<Person>().tweak(.batchSize(500))    // the chunk size of DataStack.fetchBatches(_:)
/// ```
public struct Tweak: Sendable, Hashable {
    enum Option: Sendable, Hashable {
        case limit(Int)
        case offset(Int)
        case batchSize(Int)
    }

    let option: Option

    /// Fetches at most `count` objects.
    public static func limit(_ count: Int) -> Tweak { Tweak(option: .limit(count)) }

    /// Skips the first `count` matching objects.
    public static func offset(_ count: Int) -> Tweak { Tweak(option: .offset(count)) }

    /// Streams results in chunks of `count` objects (see ``DataStack/fetchBatches(_:)``). Default: 256.
    public static func batchSize(_ count: Int) -> Tweak { Tweak(option: .batchSize(count)) }
}
