import Foundation

/// The markdown tables of a run.
struct Report {
    let results: Results

    /// A target of issue 5 (or of the imports issue, for l, and of the migrations issue, for m), stated
    /// as the issue states it.
    struct Target {
        enum Kind { case vsRaw, ownValue, vsGRDB }
        var workload: Workload
        var metric: Metric
        var kind: Kind
        var threshold: Double
        /// `true`: the figure must be at least the threshold; `false`: at most.
        var atLeast: Bool
        var text: String
    }

    static let targets: [Target] = [
        Target(workload: .a, metric: Metrics.insertRate, kind: .vsRaw, threshold: 0.8, atLeast: true, text: "≥ 0.8× raw"),
        Target(workload: .b, metric: Metrics.transactionRate, kind: .vsRaw, threshold: 0.8, atLeast: true, text: "≥ 0.8× raw"),
        Target(workload: .c, metric: Metrics.fetchRate, kind: .vsRaw, threshold: 0.7, atLeast: true, text: "≥ 0.7× raw"),
        Target(workload: .d, metric: Metrics.lookupRate, kind: .vsRaw, threshold: 0.5, atLeast: true, text: "≥ 0.5× raw"),
        Target(workload: .d2, metric: Metrics.lookupRate, kind: .vsRaw, threshold: 0.8, atLeast: true, text: "≥ 0.8× raw"),
        Target(workload: .e, metric: Metrics.queryRate, kind: .vsRaw, threshold: 0.7, atLeast: true, text: "≥ 0.7× raw"),
        Target(workload: .f, metric: Metrics.groupTime, kind: .vsRaw, threshold: 0.9, atLeast: true, text: "≥ 0.9× raw speed"),
        Target(workload: .g, metric: Metrics.latencyP50, kind: .vsRaw, threshold: 1.3, atLeast: false, text: "p50 ≤ 1.3× raw latency"),
        Target(workload: .g, metric: Metrics.latencyP99, kind: .vsRaw, threshold: 1.5, atLeast: false, text: "p99 ≤ 1.5× raw latency"),
        Target(workload: .h, metric: Metrics.concurrentReads, kind: .vsRaw, threshold: 0.5, atLeast: true, text: "reads ≥ 0.5× raw threads"),
        Target(workload: .i, metric: Metrics.observedFraction, kind: .ownValue, threshold: 0.7, atLeast: true, text: "≥ 0.7× of its own b."),
        Target(workload: .j, metric: Metrics.loadTime, kind: .vsGRDB, threshold: 1.0, atLeast: true, text: "faster than GRDB init(row:)"),
        // The imports issue: the unique-import API and the batch upsert keep up with SQLite's own upsert.
        Target(workload: .l1, metric: Metrics.importRate, kind: .vsRaw, threshold: 0.7, atLeast: true, text: "≥ 0.7× raw"),
        Target(workload: .l2, metric: Metrics.importRate, kind: .vsRaw, threshold: 0.85, atLeast: true, text: "≥ 0.85× raw"),
        // "Memory stays bounded": the last 750,000 rows must not raise the peak. Holding even their IDs
        // would take 5.7 MiB, holding the rows about 70 MiB; 2 MiB leaves room for the figure's noise.
        Target(
            workload: .l3, metric: Metrics.streamMemoryRise, kind: .ownValue, threshold: 2, atLeast: false,
            text: "bounded: peak RSS rise after row 250,000 ≤ 2 MiB"),
        // The migrations issue: adding a field is quick whatever the row count; rebuilds and transforms
        // keep up with the same migration written in SQL.
        Target(workload: .m1, metric: Metrics.migrationTime, kind: .ownValue, threshold: 10, atLeast: false, text: "under 10 ms"),
        Target(workload: .m2, metric: Metrics.migrationRate, kind: .vsRaw, threshold: 0.7, atLeast: true, text: "≥ 0.7× raw"),
        Target(workload: .m3, metric: Metrics.migrationRate, kind: .vsRaw, threshold: 0.5, atLeast: true, text: "≥ 0.5× raw"),
        // The issue of changes from other processes: the delay from another process's commit to a snapshot.
        Target(workload: .n, metric: Metrics.otherProcessP50, kind: .ownValue, threshold: 10, atLeast: false, text: "p50 ≤ 10 ms"),
        Target(workload: .n, metric: Metrics.otherProcessP99, kind: .ownValue, threshold: 50, atLeast: false, text: "p99 ≤ 50 ms"),
    ]

    // MARK: Formatting

    static func format(_ value: Double, _ unit: Unit) -> String {
        guard value.isFinite else { return "–" }
        switch unit {
        case .milliseconds, .microseconds, .seconds, .cpuPerThousand, .mebibytes:
            return significant(value)
        case .fraction:
            return String(format: "%.2f", value)
        default:
            if value >= 1e6 { return significant(value / 1e6) + " M" }
            if value >= 1e3 { return significant(value / 1e3) + " k" }
            return significant(value)
        }
    }

    /// Three significant digits.
    static func significant(_ value: Double) -> String {
        if value >= 100 { return String(format: "%.0f", value) }
        if value >= 10 { return String(format: "%.1f", value) }
        if value >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.3f", value)
    }

    static func ratio(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(format: "%.2f×", value)
    }

    private func label(_ workload: Workload, _ metric: Metric) -> String {
        let name = metric.name.isEmpty ? "" : " — \(metric.name)"
        return "\(workload.title)\(name) (\(metric.unit.rawValue))"
    }

    // MARK: Tables

    /// Median and min–max per workload and implementation, with the per-round ratios.
    func fullTable(_ workloads: [Workload]) -> String {
        var lines = [
            "| workload | implementation | median | min – max | this ÷ raw | Strata ÷ this |",
            "|---|---|--:|--:|--:|--:|",
        ]
        for workload in workloads {
            let contenders = results.contenders(workload)
            guard !contenders.isEmpty else { continue }
            for metric in Metrics.of(workload) {
                var first = true
                for contender in contenders {
                    let values = Array(results.values(workload, contender, metric).values)
                    guard !values.isEmpty else { continue }
                    let med = median(values)
                    let range = "\(Self.format(values.min()!, metric.unit)) – \(Self.format(values.max()!, metric.unit))"
                    // m's memory growth is a few MiB that one side can reuse from memory it freed before
                    // (near 0 then): its ratios would mean nothing, so only the figures are shown.
                    let comparable = metric.unit != .mebibytes
                    let vsRaw = contender == .raw ? "1" : comparable ? Self.ratio(results.ratio(workload, metric, contender, .raw)) : "–"
                    let strata = contender == .strata ? "—" : comparable ? Self.ratio(results.ratio(workload, metric, .strata, contender)) : "–"
                    let name = contender == .strata ? "**Strata**" : contender.rawValue
                    let cell = first ? label(workload, metric) : ""
                    lines.append("| \(cell) | \(name) | \(Self.format(med, metric.unit)) | \(range) | \(vsRaw) | \(strata) |")
                    first = false
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// o: each stack's figures, and the two-store stacks ÷ the one-store stack, round by round.
    func storesTable(_ workloads: [Workload]) -> String {
        var lines = [
            "| workload | stack | median | min – max | ÷ one store | min – max | per round |",
            "|---|---|--:|--:|--:|--:|---|",
        ]
        for workload in workloads {
            for metric in Metrics.of(workload) {
                var first = true
                for contender in results.contenders(workload) {
                    let values = Array(results.values(workload, contender, metric).values)
                    guard !values.isEmpty else { continue }
                    let range = "\(Self.format(values.min()!, metric.unit)) – \(Self.format(values.max()!, metric.unit))"
                    var ratio = "1", ratioRange = "", perRound = ""
                    if contender != .strataOneStore {
                        let ratios = results.ratios(workload, metric, contender, .strataOneStore)
                        if !ratios.isEmpty {
                            ratio = Self.ratio(median(ratios))
                            ratioRange = "\(Self.ratio(ratios.min())) – \(Self.ratio(ratios.max()))"
                            perRound = ratios.map { String(format: "%.3f", $0) }.joined(separator: " ")
                        } else {
                            ratio = "–"
                        }
                    }
                    let cell = first ? label(workload, metric) : ""
                    lines.append(
                        "| \(cell) | \(contender.rawValue) | \(Self.format(median(values), metric.unit)) | \(range) | \(ratio) | "
                            + "\(ratioRange) | \(perRound) |")
                    first = false
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Strata against the targets.
    func targetTable(_ workloads: [Workload]) -> String {
        var lines = [
            "| workload | target | Strata | met | Strata ÷ GRDB init(row:) | GRDB init(row:) ÷ raw |",
            "|---|---|--:|:-:|--:|--:|",
        ]
        for target in Self.targets where workloads.contains(target.workload) {
            let workload = target.workload
            guard results.contenders(workload).contains(.strata) else { continue }
            let figure: Double? = switch target.kind {
            case .vsRaw: results.ratio(workload, target.metric, .strata, .raw)
            case .vsGRDB: results.ratio(workload, target.metric, .strata, .grdbRow)
            case .ownValue: median(Array(results.values(workload, .strata, target.metric).values))
            }
            let met: String
            if let figure, figure.isFinite {
                met = (target.atLeast ? figure >= target.threshold : figure <= target.threshold) ? "yes" : "**no**"
            } else {
                met = "–"
            }
            let shown = target.kind == .ownValue ? figure.map { String(format: "%.2f", $0) } ?? "–" : Self.ratio(figure)
            let vsGRDB: String
            let grdbVsRaw: String
            if target.kind == .ownValue {
                let grdb = median(Array(results.values(workload, .grdbRow, target.metric).values))
                vsGRDB = grdb.isNaN ? "GRDB: n/a" : "GRDB: " + String(format: "%.2f", grdb)
                grdbVsRaw = "raw: " + String(format: "%.2f", median(Array(results.values(workload, .raw, target.metric).values)))
            } else {
                vsGRDB = Self.ratio(results.ratio(workload, target.metric, .strata, .grdbRow))
                grdbVsRaw = Self.ratio(results.ratio(workload, target.metric, .grdbRow, .raw))
            }
            let name = target.metric.name.isEmpty ? workload.rawValue : "\(workload.rawValue) \(target.metric.name)"
            lines.append("| \(name) | \(target.text) | \(shown) | \(met) | \(vsGRDB) | \(grdbVsRaw) |")
        }
        return lines.joined(separator: "\n")
    }

    /// One line per workload: whether every implementation read the same data.
    func checksumLines(_ workloads: [Workload]) -> [String] {
        workloads.compactMap { workload in
            guard let seen = results.checksums(workload) else {
                return results.contenders(workload).isEmpty ? nil : "- \(workload.rawValue): no checksum (throughput only)"
            }
            if seen.count == 1, let (checksum, runs) = seen.first {
                return "- \(workload.rawValue): all \(runs.count) runs agree (\(checksum))"
            }
            let detail = seen.map { "\($0.key): \($0.value.sorted().joined(separator: ", "))" }.joined(separator: "; ")
            return "- \(workload.rawValue): **MISMATCH** — \(detail)"
        }
    }
}
