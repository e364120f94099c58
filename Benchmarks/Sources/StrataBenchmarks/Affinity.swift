import CBenchAffinity
import Foundation

/// Pins the process to one CPU, for `--load taskset`.
enum Affinity {
    /// Pins every thread of the process to `cpu`, as `taskset -c cpu` would have pinned it from the
    /// start: Linux keeps an affinity mask per thread, and a new thread inherits its creator's, so
    /// every thread that exists now (the main thread, Swift's and Dispatch's threads started so far) is
    /// pinned, and every later one (Strata's, GRDB's, the raw server's) inherits the pin. Call it
    /// before setting anything up, so that whatever sizes itself by the cores the process may use
    /// sees one. Returns the number of threads pinned.
    static func pinProcess(toCPU cpu: Int32) throws -> Int {
        var pinned: Set<Int32> = []
        // Threads may start while we pin: list again until a pass finds no new one.
        while true {
            let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
                .compactMap { Int32($0) }
                .filter { !pinned.contains($0) }
            if threads.isEmpty { break }
            for thread in threads {
                let code = bench_pin_thread(thread, cpu)
                // ESRCH: the thread ended meanwhile.
                if code != 0 && code != ESRCH {
                    throw RawError(description: "sched_setaffinity(\(thread), CPU \(cpu)) failed: \(String(cString: strerror(code)))")
                }
                pinned.insert(thread)
            }
        }
        return pinned.count
    }

    /// The number of CPUs this thread may run on (its affinity mask), or `nil` where unknown.
    static var allowedCPUs: Int? {
        let count = bench_allowed_cpus()
        return count > 0 ? Int(count) : nil
    }
}
