import Synchronization

/// Strata's threads that are busy, running a job on an executor or spinning for the next one, against
/// the cores the process may use (``ProcessorCount/available``).
///
/// Running a job always counts; spinning is allowed only while the busy threads fit in the cores, so
/// that on a loaded machine Strata's idle threads park and leave the cores to the work. Nothing else
/// spins: a caller waiting for a result suspends.
enum CoreBudget {
    static let cores = ProcessorCount.available
    private static let busy = Atomic<Int>(0)

    /// Counts a thread that starts running work.
    static func take() {
        busy.add(1, ordering: .relaxed)
    }

    /// Counts a thread that wants to spin, if that fits in the cores.
    static func takeForSpinning() -> Bool {
        if busy.add(1, ordering: .relaxed).newValue <= cores { return true }
        busy.subtract(1, ordering: .relaxed)
        return false
    }

    /// Whether the busy threads, a counted spinner among them, fit in the cores.
    static var isWithinCores: Bool { busy.load(ordering: .relaxed) <= cores }

    static func release() {
        busy.subtract(1, ordering: .relaxed)
    }
}
