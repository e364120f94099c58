import Foundation

/// How many cores the process may really use.
///
/// `ProcessInfo.activeProcessorCount` counts the machine's online cores, which overstates what a
/// process pinned with `taskset` or running in a container with a CPU quota gets. On Linux this also
/// reads the process's CPU affinity (`Cpus_allowed_list` in `/proc/self/status`) and its cgroup's CPU
/// quota (`cpu.max` in cgroup v2, `cpu.cfs_quota_us` / `cpu.cfs_period_us` in v1), and takes the
/// smallest, rounding a fractional quota up.
enum ProcessorCount {
    /// The cores the process may use, at least 1, read once.
    static let available: Int = {
        var count = ProcessInfo.processInfo.activeProcessorCount
        #if os(Linux)
        if let affinity = affinityCount() { count = min(count, affinity) }
        if let quota = quotaCount() { count = min(count, quota) }
        #endif
        return max(1, count)
    }()

    /// The number of CPUs in a list such as `0-3,8,10-11`, or `nil` when it cannot be read.
    static func count(cpuList: some StringProtocol) -> Int? {
        var total = 0
        for part in cpuList.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",") {
            let bounds = part.trimmingCharacters(in: .whitespaces).split(separator: "-")
            guard let first = bounds.first.flatMap({ Int($0) }) else { return nil }
            let last = bounds.count == 2 ? Int(bounds[1]) : first
            guard let last, last >= first, bounds.count <= 2 else { return nil }
            total += last - first + 1
        }
        return total > 0 ? total : nil
    }

    /// Cores allowed by a quota of `quota` microseconds per `period`, rounded up; `nil` for no quota.
    static func count(quota: Int?, period: Int?) -> Int? {
        guard let quota, let period, quota > 0, period > 0 else { return nil }
        return (quota + period - 1) / period
    }

    #if os(Linux)
    private static func affinityCount() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Cpus_allowed_list:") {
            return count(cpuList: line.dropFirst("Cpus_allowed_list:".count))
        }
        return nil
    }

    private static func quotaCount() -> Int? {
        // cgroup v2: "max 100000" or "200000 100000", in the process's own cgroup or at the root.
        var candidates = ["/sys/fs/cgroup/cpu.max"]
        if let groups = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) {
            for line in groups.split(separator: "\n") where line.hasPrefix("0::") {
                let path = line.dropFirst(3)
                if path != "/" { candidates.insert("/sys/fs/cgroup\(path)/cpu.max", at: 0) }
            }
        }
        for path in candidates {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            let fields = text.split(whereSeparator: \.isWhitespace)
            guard fields.count == 2 else { continue }
            return count(quota: Int(fields[0]), period: Int(fields[1]))
        }
        // cgroup v1.
        func number(_ path: String) -> Int? {
            (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        return count(
            quota: number("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), period: number("/sys/fs/cgroup/cpu/cpu.cfs_period_us"))
    }
    #endif
}
