#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// How far the process's resident memory rose during a span, for m2 and m3 (Linux only).
///
/// At the start, the heap's free memory goes back to the system (`malloc_trim`), so that what the
/// span allocates shows as new resident pages rather than reusing pages an earlier workload freed,
/// and the kernel's peak (`VmHWM`) is reset to the resident size now (`5` written to
/// `/proc/self/clear_refs`). The growth is the peak at the end less the resident size at the start.
/// It counts every thread of the process, and file pages mapped meanwhile (SQLite's WAL index). It
/// can understate a peak: memory an allocator still holds from earlier work is reused without
/// showing, and `malloc_trim` does not return the free top of a thread's own arena. So it tells the
/// scale (a few MiB, or the size of the rows), not an exact figure, and the tables show no ratios of it.
struct PeakMemory {
    private let startKiB: Int

    /// Starts a span, or returns `nil` where the peak cannot be reset (not Linux, or no permission).
    static func start() -> PeakMemory? {
        #if os(Linux)
        _ = trimHeap?(0)
        guard let handle = fopen("/proc/self/clear_refs", "w") else { return nil }
        let written = fputs("5", handle)
        guard fclose(handle) == 0, written >= 0, let resident = status("VmRSS") else { return nil }
        return PeakMemory(startKiB: resident)
        #else
        return nil
        #endif
    }

    /// The peak resident size since ``start()`` less the resident size then, in MiB.
    func growth() -> Double? {
        guard let peak = Self.status("VmHWM") else { return nil }
        return Double(peak - startKiB) / 1024
    }

    #if os(Linux)
    /// glibc's `malloc_trim`, which Swift's Glibc module does not declare (it is in `malloc.h`).
    private static let trimHeap: (@convention(c) (Int) -> Int32)? = dlsym(nil, "malloc_trim").map {
        unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self)
    }
    #endif

    /// A `kB` line of `/proc/self/status`.
    private static func status(_ key: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }
}
