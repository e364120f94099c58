import Synchronization

/// One shared observation: the storage around an ``ObservationStateMachine``, which it drives under a
/// lock and whose actions it performs outside of it. Every consumer of a publisher shares its core, so a
/// relevant commit costs one fetch however many consumers there are.
final class ObservationCore<Value: Sendable>: Sendable {
    typealias Fetch = @Sendable (_ previous: Value?, _ changes: [ChangeSet]?) async throws -> Value

    private let center: ObservationCenter
    private let isRelevant: @Sendable (ChangeSet) -> Bool
    private let fetch: Fetch
    private let isDuplicate: @Sendable (Value, Value) -> Bool
    private let machine = Mutex(ObservationStateMachine<Value>())
    private let registration = Mutex<UInt64?>(nil)

    init(
        center: ObservationCenter, isRelevant: @escaping @Sendable (ChangeSet) -> Bool,
        isDuplicate: @escaping @Sendable (Value, Value) -> Bool, fetch: @escaping Fetch
    ) {
        self.center = center
        self.isRelevant = isRelevant
        self.isDuplicate = isDuplicate
        self.fetch = fetch
    }

    /// How many fetches ran, for tests.
    var fetchCount: Int { machine.withLock { $0.fetchCount } }
    /// How many consumers are attached.
    var consumerCount: Int { machine.withLock { $0.consumerCount } }
    /// Whether the observation is registered and working.
    var isActive: Bool { machine.withLock { $0.isActive } }

    func addConsumer() -> UInt64 {
        let (id, actions) = machine.withLock { $0.addConsumer() }
        perform(actions)
        return id
    }

    func removeConsumer(_ id: UInt64) {
        perform(machine.withLock { $0.removeConsumer(id) })
    }

    /// The next value for a consumer: at once when it has not seen the newest one, otherwise when the
    /// next fetch completes; `nil` when the consumer was removed or its task cancelled.
    func next(_ id: UInt64) async throws -> Value? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                perform(machine.withLock { $0.next(id, continuation) })
            }
        } onCancel: {
            removeConsumer(id)
        }
    }

    private func perform(_ actions: ObservationStateMachine<Value>.Actions) {
        if actions.activate {
            let id = center.register(ObservationCenter.Observer(
                isRelevant: isRelevant,
                notify: { [weak self] changes in self?.changeArrived(changes) }))
            registration.withLock { $0 = id }
        }
        if actions.deactivate, let id = registration.withLock({ registration in
            defer { registration = nil }
            return registration
        }) {
            center.unregister(id)
        }
        if let (epoch, previous, changes) = actions.fetch {
            let fetch = self.fetch
            Task { [weak self] in
                let result: Result<Value, any Error>
                do {
                    result = .success(try await fetch(previous, changes))
                } catch {
                    result = .failure(error)
                }
                guard let self else { return }
                let isDuplicate = self.isDuplicate
                self.perform(self.machine.withLock { $0.fetchCompleted(epoch: epoch, result, isDuplicate: isDuplicate) })
            }
        }
        for (continuation, result) in actions.resume {
            continuation.resume(with: result)
        }
    }

    private func changeArrived(_ changes: ChangeSet) {
        perform(machine.withLock { $0.changeArrived(changes) })
    }
}

/// One consumer of an observation: an iterator's handle, removed when the iterator is released.
final class ObservationConsumer<Value: Sendable>: Sendable {
    let core: ObservationCore<Value>
    let id: UInt64

    init(core: ObservationCore<Value>) {
        self.core = core
        self.id = core.addConsumer()
    }

    func next() async throws -> Value? {
        try await core.next(id)
    }

    deinit {
        core.removeConsumer(id)
    }
}
