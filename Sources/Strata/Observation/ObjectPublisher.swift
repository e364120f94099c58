/// The snapshots of one object over time: an `AsyncSequence` that yields the object as stored now, then
/// again after every commit that changes it.
///
/// ```swift
/// for try await person in stack.objectPublisher(id) {
///     guard let person else { break }      // nil: the object was deleted
///     render(person)
/// }
/// ```
/// When the object is deleted (or does not exist), the sequence yields `nil` once and ends. Consumers
/// of one publisher share its fetches; a slow consumer skips to the newest snapshot; a publisher that
/// nobody iterates does no work; cancelling the consuming task ends the iteration.
public struct ObjectPublisher<E: Entity>: AsyncSequence, Sendable {
    public typealias Element = E?

    let core: ObservationCore<E?>

    public func makeAsyncIterator() -> Iterator {
        Iterator(consumer: ObservationConsumer(core: core))
    }

    /// Delivers the snapshots.
    public struct Iterator: AsyncIteratorProtocol {
        let consumer: ObservationConsumer<E?>
        var isFinished = false

        /// The next snapshot; `.some(nil)` once when the object is gone, then `nil`.
        public mutating func next() async throws -> E?? {
            guard !isFinished else { return nil }
            guard let object = try await consumer.next() else {
                isFinished = true
                return nil
            }
            if object == nil {
                isFinished = true
                consumer.finish()
            }
            return .some(object)
        }
    }
}

/// A snapshot of one object with the fields that changed since the previous one.
public struct ObjectChange<E: Entity>: Sendable, Equatable {
    /// The object, or `nil` once it was deleted.
    public let object: E?
    /// The property names of the observed fields that changed (empty for the first snapshot).
    public let changedFields: Set<String>
}

/// The snapshots of one object, yielded only when chosen fields change: CoreStore's object observer
/// with `changedPersistentKeys`.
///
/// ```swift
/// for try await change in stack.objectPublisher(id, fields: \.name, \.age) {
///     print(change.changedFields)          // [] (the current state), then e.g. ["age"]
/// }
/// ```
public struct ObjectFieldsPublisher<E: Entity>: AsyncSequence, Sendable {
    public typealias Element = ObjectChange<E>

    let core: ObservationCore<E?>
    /// The observed fields that differ between two versions of the object.
    let fieldsChanged: @Sendable (E, E) -> Set<String>

    public func makeAsyncIterator() -> Iterator {
        Iterator(consumer: ObservationConsumer(core: core), fieldsChanged: fieldsChanged)
    }

    /// Delivers the changes.
    public struct Iterator: AsyncIteratorProtocol {
        let consumer: ObservationConsumer<E?>
        let fieldsChanged: @Sendable (E, E) -> Set<String>
        var isFinished = false
        /// The version of the object this iterator delivered last: its changed fields are counted from
        /// it, not from the publisher's previous fetch, which a slow consumer may not have seen (and a
        /// consumer that joins later never did).
        var last: E?

        /// The next change; after the one that reports the deletion (`object == nil`), `nil`.
        public mutating func next() async throws -> ObjectChange<E>? {
            guard !isFinished else { return nil }
            while true {
                guard let read = try await consumer.next() else {
                    isFinished = true
                    return nil
                }
                guard let object = read else {
                    isFinished = true
                    consumer.finish()
                    return ObjectChange(object: nil, changedFields: [])
                }
                guard let before = last else {
                    last = object
                    return ObjectChange(object: object, changedFields: [])
                }
                let changed = fieldsChanged(before, object)
                // The values this iterator delivered already: nothing to report.
                guard !changed.isEmpty else { continue }
                last = object
                return ObjectChange(object: object, changedFields: changed)
            }
        }
    }
}
