import DequeModule

/// The change sets of the stack's latest commits, by the commit gate's numbers (see
/// `Connection.commitsSeen()`), so that a list publisher can bring a snapshot up to exactly the state
/// a read sees: the commits between two reads are known even when their change sets have not reached
/// the publisher yet.
///
/// The writer adds each commit under the commit gate, in the same critical section as its `COMMIT`; a
/// read that learned under the gate that it sees the commits up to *n* finds every one of them here
/// (unless it was dropped: the log keeps the latest ``capacity`` and only small change sets).
/// Commits of other connections are added when the stack notices them.
final class CommitLog: Sendable {
    /// How many of the latest commits are kept.
    static let capacity = 64
    /// A change set naming more objects than this is not kept (a reader then fetches anew): a list
    /// would not merge that many changes anyway, and the log must not hold a bulk import's IDs.
    static let largestKept = 1_000

    private struct State {
        /// The latest commits, oldest first; `nil` for one not kept (a large or unknown change set).
        var recent = Deque<(number: Int, changes: ChangeSet?)>()
        /// The number of the newest commit dropped from `recent` (0: none yet).
        var droppedThrough = 0
    }

    private let state = Locked(State())

    /// Records commit `number`, which made `changes`. Numbers come in increasing order.
    func add(_ number: Int, _ changes: ChangeSet) {
        let kept = changes.isUnknown || changes.changedObjectCount > Self.largestKept ? nil : changes
        state.withLock { state in
            state.recent.append((number, kept))
            if state.recent.count > Self.capacity, let dropped = state.recent.popFirst() {
                state.droppedThrough = dropped.number
            }
        }
    }

    /// The change sets of the commits after `first` up to `last` (both commit numbers), oldest first;
    /// `nil` when one of them is not kept. Commits with no change set are absent: nothing changed.
    func changes(after first: Int, through last: Int) -> [ChangeSet]? {
        guard first < last else { return [] }
        return state.withLock { state -> [ChangeSet]? in
            guard first >= state.droppedThrough else { return nil }
            var result: [ChangeSet] = []
            for entry in state.recent where entry.number > first && entry.number <= last {
                guard let changes = entry.changes else { return nil }
                result.append(changes)
            }
            return result
        }
    }
}
