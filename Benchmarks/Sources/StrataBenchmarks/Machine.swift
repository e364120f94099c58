import CSQLiteBench
import Foundation

/// What the run ran on, for the README.
enum Machine {
    static func describe(load mode: LoadMode) -> [String] {
        let info = ProcessInfo.processInfo
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let memory = Double(info.physicalMemory) / 1_073_741_824
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
            .split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        formatter.timeZone = TimeZone(identifier: "UTC")
        let allowed = Affinity.allowedCPUs.map { $0 == info.processorCount ? "" : ", \($0) allowed to this process" } ?? ""
        return [
            "date: \(formatter.string(from: Date()))",
            "machine: \(info.processorCount) cores\(allowed), \(cpu), \(String(format: "%.1f", memory)) GiB memory",
            "load: \(mode.summary)",
            "load average at start: \(load)",
            "SQLite \(String(cString: sqlite3_libversion())), GRDB 7.10.0, release build",
        ]
    }

    /// The load average now (the 1-minute figure), to warn when something else is running.
    static var loadAverage: Double {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
            .split(separator: " ").first.flatMap { Double($0) } ?? 0
    }
}
