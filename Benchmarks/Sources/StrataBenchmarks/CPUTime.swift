#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time, for k's CPU cost per operation.
enum CPUTime {
    /// The user and system CPU time of the whole process so far (every thread: the implementation's
    /// own threads, Swift's pool, the harness), in seconds, from `getrusage(RUSAGE_SELF)`.
    static func process() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The CPU time of one thread, given its clock (`pthread_getcpuclockid`), in seconds.
    static func thread(_ clock: clockid_t) -> Double {
        var time = timespec()
        guard clock_gettime(clock, &time) == 0 else { return 0 }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1e6
    }
}
