import Synchronization

/// Strata's threads that are busy, running a job on an executor or spinning for the next one, against
/// the cores the process may use (``ProcessorCount/available``).
///
/// Running a job always counts; spinning is allowed only while the busy threads leave a core free, so
/// that on a loaded machine (or a single core) Strata's idle threads park and leave the cores to the
/// work. Nothing else spins: a caller waiting for a result suspends.
enum CoreBudget {
    static let cores = ProcessorCount.available
    private static let busy = Atomic<Int>(0)

    /// Counts a thread that starts running work.
    static func take() {
        busy.add(1, ordering: .relaxed)
    }

    /// The busy threads that leave a core to the rest of the process (the tasks that use Strata's
    /// results run on Swift's pool): none on one core.
    static let spinningCores = cores - 1

    /// Counts a thread that wants to spin, if the busy threads still leave a core to the rest.
    static func takeForSpinning() -> Bool {
        if busy.add(1, ordering: .relaxed).newValue <= spinningCores { return true }
        busy.subtract(1, ordering: .relaxed)
        return false
    }

    /// Whether the busy threads, a counted spinner among them, leave a core to the rest.
    static var isWithinSpinningCores: Bool { busy.load(ordering: .relaxed) <= spinningCores }

    static func release() {
        busy.subtract(1, ordering: .relaxed)
    }
}
