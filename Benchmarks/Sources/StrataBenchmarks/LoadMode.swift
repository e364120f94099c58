/// What else the machine does while the workloads run (`--load`), to see how each implementation
/// copes with fewer free cores than threads.
enum LoadMode: String, CaseIterable, Sendable {
    /// The machine as it is.
    case none
    /// The whole process pinned to CPU 0 at start, as under `taskset -c 0`, but done by the process
    /// itself (``Affinity/pinProcess(toCPU:)``), so that no external tool is needed.
    case taskset
    /// Two background threads spinning for the whole run (``BusyLoad``): on this 2-core machine they
    /// compete with the implementation's threads for both cores.
    case busy

    /// The load as the tables state it.
    var summary: String {
        switch self {
        case .none: "none (no background load, all cores)"
        case .taskset: "taskset (the whole process pinned to CPU 0 with sched_setaffinity)"
        case .busy: "busy (\(BusyLoad.threadCount) background threads spinning in this process, all cores)"
        }
    }
}
