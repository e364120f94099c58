public import Observation

/// The latest snapshot of one object, for UI code: an `@Observable` object on the main actor
/// (CoreStore's `ObjectState`).
@MainActor
@Observable
public final class ObjectState<E: Entity> {
    /// The newest snapshot; `nil` until the first one arrives, and after the object is deleted.
    public private(set) var object: E?
    /// Whether the object was deleted (or never existed).
    public private(set) var isDeleted = false
    /// The error that ended the observation, if one did.
    public private(set) var error: (any Error)?
    @ObservationIgnored private var task: Task<Void, Never>?

    /// Starts observing an object publisher.
    public init(_ publisher: ObjectPublisher<E>) {
        task = Task { [weak self] in
            do {
                for try await object in publisher {
                    guard let self else { return }
                    self.object = object
                    if object == nil { self.isDeleted = true }
                }
            } catch {
                self?.error = error
            }
        }
    }

    /// Stops observing; the last snapshot stays.
    public func stop() {
        task?.cancel()
        task = nil
    }

    isolated deinit {
        task?.cancel()
    }
}
