/// A list of objects over time: an `AsyncSequence` of ``ListSnapshot``s, each with its diff from the
/// previous one.
///
/// ```swift
/// let people = stack.listPublisher(From<Person>().sectionBy(\.age).where(\.age >= 18).orderBy(.ascending(\.name)))
/// for try await list in people {
///     render(list)
/// }
/// ```
/// It yields the current list first, then a new snapshot after every commit that changes it. Commits
/// to entities the list does not depend on cost it nothing; bursts of commits are coalesced (at most one
/// fetch runs at a time); a commit that touches a few objects re-reads only those when the order can be
/// computed in Swift. Consumers of one publisher share its fetches, a slow consumer receives the newest
/// snapshot (with a diff from the one it saw last), and a publisher nobody iterates does no work.
public struct ListPublisher<E: Entity>: AsyncSequence, Sendable {
    public typealias Element = ListSnapshot<E>

    let core: ObservationCore<ListSnapshot<E>>
    let engine: ListEngine<E>
    var statistics: ListEngine<E>.Statistics { engine.statistics }

    public func makeAsyncIterator() -> Iterator {
        Iterator(consumer: ObservationConsumer(core: core), engine: engine)
    }

    /// Delivers the snapshots.
    public struct Iterator: AsyncIteratorProtocol {
        let consumer: ObservationConsumer<ListSnapshot<E>>
        let engine: ListEngine<E>
        /// The snapshot this iterator delivered last.
        var last: ListSnapshot<E>?

        /// The next snapshot, or `nil` when iteration ends. Its diff always starts from the snapshot this
        /// iterator delivered before, even when newer snapshots were made in between.
        public mutating func next() async throws -> ListSnapshot<E>? {
            guard var snapshot = try await consumer.next() else { return nil }
            if let last, snapshot.diffBase != last.token {
                snapshot = engine.rebase(snapshot, onto: last)
            } else if last == nil, snapshot.diff != nil {
                // This iterator's first snapshot: the publisher's diff starts from one it never saw.
                snapshot = snapshot.withoutDiff()
            }
            last = snapshot
            return snapshot
        }
    }
}
