import Foundation

/// The timing of c: each whole-table fetch is timed on its own, from the call to the array in the
/// caller's hands, which is what a user's single `fetchAll` costs. Before each fetch, untimed, every
/// implementation pauses for ``pause`` (so that work an implementation's threads still do after
/// returning the previous result, such as dropping their reference to it, is over) and then releases
/// the previous fetch's array. That release is timed apart: freeing 100,000 rows (a heap-allocated
/// `String` each) is a cost of its own, which the harness used to count inside the fetches, at a
/// different point for each implementation (README, *c*).
struct FetchTimes {
    /// The untimed pause before each fetch, in seconds.
    static let pause = 0.010

    /// ``pause``, for implementations that run on the calling thread or a thread of their own.
    static func pauseBlocking() {
        Thread.sleep(forTimeInterval: pause)
    }

    /// ``pause``, for implementations called from a task.
    static func pauseAwaiting() async throws {
        try await Task.sleep(for: .seconds(pause))
    }

    /// Seconds per fetch.
    private(set) var fetches: [Double] = []
    /// CPU seconds of the whole process per fetch (every thread: the caller's and the implementation's),
    /// less sensitive than the wall-clock time to other processes taking the cores.
    private(set) var cpu: [Double] = []
    private var cpuStart = 0.0
    /// Seconds per release of a previous, non-empty result.
    private(set) var releases: [Double] = []

    /// Releases `items` (the previous fetch's array), timed.
    mutating func release<T>(_ items: inout [T]) {
        let wasEmpty = items.isEmpty
        let start = nanoseconds()
        Self.empty(&items)
        if !wasEmpty { releases.append(seconds(since: start)) }
    }

    /// Returns the start of a fetch, a value of ``nanoseconds()``.
    mutating func start() -> UInt64 {
        cpuStart = CPUTime.process()
        return nanoseconds()
    }

    /// Records a fetch that started at `start`, a value of ``start()``.
    mutating func record(since start: UInt64) {
        fetches.append(seconds(since: start))
        cpu.append(CPUTime.process() - cpuStart)
    }

    /// Rows per second over the fetches, with the per-fetch and release times as the round's note.
    func sample(rowsPerFetch: Int, checksum: Checksum) -> Sample {
        let total = fetches.reduce(0, +)
        var sample = Sample(Metrics.fetchRate, Double(rowsPerFetch * fetches.count) / total, checksum: checksum)
        let milliseconds = { (value: Double) in String(format: "%.1f", value * 1000) }
        let fastest = fetches.min() ?? .nan
        let release = releases.isEmpty ? "–" : milliseconds(median(releases))
        sample.note = "fetch min \(milliseconds(fastest)) ms, median \(milliseconds(median(fetches))) ms, "
            + "CPU median \(milliseconds(median(cpu))) ms; release \(release) ms"
        return sample
    }

    /// Not inlined, so that the optimizer cannot fold the release into the next assignment.
    @inline(never)
    private static func empty<T>(_ items: inout [T]) {
        items = []
    }
}
