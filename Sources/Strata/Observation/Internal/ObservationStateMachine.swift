/// The state of one shared observation, as a pure value: what consumers wait for, whether a fetch runs,
/// which changes arrived meanwhile. Every event returns the actions to perform outside the lock.
///
/// - One fetch at a time: changes that arrive while a fetch runs are coalesced into the next one.
/// - A change the current value already saw (its commit's number is at most the number of commits the
///   value's read saw) starts no fetch: a fetch that waited for a reader while commits landed covers
///   them all, even when their change sets reach the observation after it started.
/// - Consumers only ever receive the newest value: a slow consumer skips stale ones, so nothing grows.
/// - With no consumer left the observation deactivates and forgets its value; a fetch that completes
///   after that is dropped (its epoch is stale).
/// - A failed fetch ends every consumer with its error; once all have received it, the observation
///   deactivates, so a later consumer starts over.
struct ObservationStateMachine<Value: Sendable> {
    typealias Continuation = CheckedContinuation<Value?, any Error>

    struct Actions {
        /// Register with the observation center.
        var activate = false
        /// Unregister from the observation center.
        var deactivate = false
        /// Start a fetch from the previous value and the changes since (nil: fetch everything).
        var fetch: (epoch: Int, previous: Value?, changes: [ChangeSet]?)?
        /// Continuations to resume.
        var resume: [(Continuation, Result<Value?, any Error>)] = []
    }

    private struct Consumer {
        var delivered = 0
        var waiting: Continuation?
    }

    private enum Fetching {
        case idle
        case running(dirty: Bool)
    }

    private var consumers: [UInt64: Consumer] = [:]
    private var nextConsumer: UInt64 = 0
    private var value: Value?
    private var generation = 0
    private var fetching = Fetching.idle
    private var pending: [ChangeSet] = []
    private var pendingOverflow = false
    /// The number of commits the current value's read saw (the commit gate's count), when known.
    private var seen: Int?
    /// The newest commit number among the changes that arrived while the fetch runs, and whether one of
    /// them had none (a fetch is then needed whatever the running one saw).
    private var pendingNewest = 0
    private var pendingUnnumbered = false
    private var failure: (any Error)?
    private var epoch = 0

    /// Whether a fetch started for `epoch` is still the one the observation waits for: it is active,
    /// and no stop or newer fetch made the epoch stale.
    func wants(epoch: Int) -> Bool {
        epoch == self.epoch && isActive
    }
    private(set) var isActive = false
    /// How many fetches were started, for tests of coalescing and relevance.
    private(set) var fetchCount = 0

    /// The most changes kept for an incremental fetch; beyond it the next fetch reads everything.
    private static var pendingLimit: Int { 64 }

    var consumerCount: Int { consumers.count }

    mutating func addConsumer() -> (UInt64, Actions) {
        let id = nextConsumer
        nextConsumer += 1
        consumers[id] = Consumer()
        var actions = Actions()
        if !isActive {
            isActive = true
            epoch += 1
            value = nil
            seen = nil
            generation = 0
            failure = nil
            pending = []
            pendingOverflow = false
            pendingNewest = 0
            pendingUnnumbered = false
            actions.activate = true
            fetching = .running(dirty: false)
            fetchCount += 1
            actions.fetch = (epoch, nil, nil)
        }
        return (id, actions)
    }

    mutating func next(_ id: UInt64, _ continuation: Continuation) -> Actions {
        var actions = Actions()
        guard var consumer = consumers[id] else {
            actions.resume.append((continuation, .success(nil)))
            return actions
        }
        if let failure {
            consumers[id] = nil
            actions.resume.append((continuation, .failure(failure)))
            deactivateIfUnused(&actions)
            return actions
        }
        if generation > consumer.delivered, let value {
            consumer.delivered = generation
            consumers[id] = consumer
            actions.resume.append((continuation, .success(value)))
            return actions
        }
        consumer.waiting = continuation
        consumers[id] = consumer
        return actions
    }

    mutating func removeConsumer(_ id: UInt64) -> Actions {
        var actions = Actions()
        guard let consumer = consumers.removeValue(forKey: id) else { return actions }
        if let waiting = consumer.waiting {
            actions.resume.append((waiting, .success(nil)))
        }
        deactivateIfUnused(&actions)
        return actions
    }

    /// With no consumer left the observation stops: it unregisters and forgets its value, and a fetch
    /// still running is dropped (its epoch is stale). The next consumer starts it anew, with a fresh
    /// fetch and no failure.
    ///
    /// A consumer that receives the failure of a fetch is removed, so a failed observation stops here
    /// once every consumer has seen the failure: an iterator made after that (once an I/O error is
    /// over, say) starts over, instead of being handed the old failure forever.
    private mutating func deactivateIfUnused(_ actions: inout Actions) {
        guard consumers.isEmpty, isActive else { return }
        isActive = false
        epoch += 1
        value = nil
        seen = nil
        pending = []
        fetching = .idle
        actions.deactivate = true
    }

    /// The stack closed: every consumer's iteration ends (a waiting one at once), and the observation
    /// stops. A consumer made afterwards starts a fetch, which throws `stackClosed`.
    mutating func close() -> Actions {
        var actions = Actions()
        for consumer in consumers.values {
            if let waiting = consumer.waiting { actions.resume.append((waiting, .success(nil))) }
        }
        consumers.removeAll()
        deactivateIfUnused(&actions)
        return actions
    }

    mutating func changeArrived(_ changes: ChangeSet) -> Actions {
        var actions = Actions()
        guard isActive, failure == nil else { return actions }
        // The current value was read after this commit: it is in the value already.
        if let number = changes.commitNumber, let seen, number <= seen { return actions }
        switch fetching {
        case .idle:
            fetching = .running(dirty: false)
            fetchCount += 1
            actions.fetch = (epoch, value, [changes])
        case .running:
            fetching = .running(dirty: true)
            if let number = changes.commitNumber {
                pendingNewest = max(pendingNewest, number)
            } else {
                pendingUnnumbered = true
            }
            if pending.count < Self.pendingLimit {
                pending.append(changes)
            } else {
                pendingOverflow = true
            }
        }
        return actions
    }

    /// A fetch finished, from a read that saw `seenCommits` commits (when known). A value equal to the
    /// current one (per `isDuplicate`) is not delivered again.
    mutating func fetchCompleted(
        epoch completedEpoch: Int, _ result: Result<Value, any Error>, seenCommits: Int? = nil,
        isDuplicate: (Value, Value) -> Bool
    ) -> Actions {
        var actions = Actions()
        guard completedEpoch == epoch, isActive else { return actions }
        if case .success = result { seen = seenCommits }
        switch result {
        case .success(let newValue) where value.map({ isDuplicate($0, newValue) }) == true:
            value = newValue
        case .success(let newValue):
            value = newValue
            generation += 1
            for (id, var consumer) in consumers {
                if let waiting = consumer.waiting {
                    consumer.waiting = nil
                    consumer.delivered = generation
                    consumers[id] = consumer
                    actions.resume.append((waiting, .success(newValue)))
                }
            }
        case .failure(let error):
            failure = error
            for (id, consumer) in consumers {
                if let waiting = consumer.waiting {
                    consumers[id] = nil
                    actions.resume.append((waiting, .failure(error)))
                }
            }
            fetching = .idle
            deactivateIfUnused(&actions)
            return actions
        }
        // The changes that arrived meanwhile need a fetch unless the read just done saw all of them.
        let covered = !pendingUnnumbered && seen.map { pendingNewest <= $0 } == true
        if case .running(dirty: true) = fetching, !covered {
            fetching = .running(dirty: false)
            fetchCount += 1
            actions.fetch = (epoch, value, pendingOverflow ? nil : pending)
        } else {
            fetching = .idle
        }
        pending = []
        pendingOverflow = false
        pendingNewest = 0
        pendingUnnumbered = false
        return actions
    }
}
