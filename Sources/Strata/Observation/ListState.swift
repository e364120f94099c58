public import Observation

/// The latest snapshot of a list publisher, for UI code: an `@Observable` object on the main actor
/// (CoreStore's `ListState`).
///
/// ```swift
/// @State var people = ListState(stack.listPublisher(From<Person>().orderBy(.ascending(\.name))))
/// var body: some View { List(people.snapshot?.items ?? []) { Text($0.name) } }
/// ```
/// It starts consuming the publisher when made and stops when released or when ``stop()`` is called.
@MainActor
@Observable
public final class ListState<E: Entity> {
    /// The newest snapshot; `nil` until the first one arrives.
    public private(set) var snapshot: ListSnapshot<E>?
    /// The error that ended the observation, if one did.
    public private(set) var error: (any Error)?
    @ObservationIgnored private var task: Task<Void, Never>?

    /// Starts observing a list publisher.
    public init(_ publisher: ListPublisher<E>) {
        task = Task { [weak self] in
            do {
                for try await snapshot in publisher {
                    guard let self else { return }
                    self.snapshot = snapshot
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
