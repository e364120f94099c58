/// The number of objects that match a fetch, over time: an `AsyncSequence` of counts (PeakCoreData's
/// count observer).
///
/// ```swift
/// for try await count in stack.countPublisher(From<Person>().where(\.age >= 18)) {
///     badge = count
/// }
/// ```
/// It yields the current count first, then a new count after every commit that changes it.
public struct CountPublisher<E: Entity>: AsyncSequence, Sendable {
    public typealias Element = Int

    let core: ObservationCore<Int>

    public func makeAsyncIterator() -> Iterator {
        Iterator(consumer: ObservationConsumer(core: core))
    }

    /// Delivers the counts.
    public struct Iterator: AsyncIteratorProtocol {
        let consumer: ObservationConsumer<Int>

        /// The next count, or `nil` when iteration ends.
        public mutating func next() async throws -> Int? {
            try await consumer.next()
        }
    }
}
