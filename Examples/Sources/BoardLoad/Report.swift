import Foundation

/// One measured window: a contender, a connection count, a round.
struct RoundResult: Sendable {
    var contender: String
    var connections: Int
    var round: Int
    var window: LoadRunner.Window

    var requests: Int { window.stats.latencies.count }
    var requestsPerSecond: Double { Double(requests) / window.seconds }
    var errors: Int { window.stats.non2xx + window.stats.failures }
    var serverCores: Double { window.serverCPUSeconds / window.seconds }
    var loadCores: Double { window.loadCPUSeconds / window.seconds }
    /// Server CPU time per request, in microseconds (less sensitive than requests/s to what else
    /// the machine runs).
    var serverMicrosecondsPerRequest: Double { window.serverCPUSeconds * 1e6 / Double(max(1, requests)) }
    /// Percentiles of the window's latencies, exact (every latency is kept), in milliseconds.
    let p50: Double
    let p99: Double
    /// The same by kind of request (NaN for kinds not in the mix).
    let p50ByKind: [Double]
    let p99ByKind: [Double]

    init(contender: String, connections: Int, round: Int, window: LoadRunner.Window) {
        self.contender = contender
        self.connections = connections
        self.round = round
        self.window = window
        func percentile(_ p: Double, _ sorted: [UInt32]) -> Double {
            guard !sorted.isEmpty else { return .nan }
            let rank = min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)
            return Double(sorted[max(0, rank)]) / 1000
        }
        let sorted = window.stats.latencies.sorted()
        p50 = percentile(0.50, sorted)
        p99 = percentile(0.99, sorted)
        let byKind = window.stats.latenciesByKind.map { $0.sorted() }
        p50ByKind = byKind.map { percentile(0.50, $0) }
        p99ByKind = byKind.map { percentile(0.99, $0) }
    }
}

/// The markdown tables: medians per contender and connection count, ratios, every round.
struct Report {
    var results: [RoundResult]
    var contenders: [String]
    var connections: [Int]
    var header: String
    var mix: Mix

    func markdown() -> String {
        var lines = [header, ""]
        lines.append("| connections | server | requests/s | p50 ms | p99 ms | non-2xx + failures | server CPU (cores) | server CPU µs/request | load CPU (cores) |")
        lines.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
        for count in connections {
            for contender in contenders {
                let rounds = results.filter { $0.connections == count && $0.contender == contender }
                guard !rounds.isEmpty else { continue }
                lines.append(
                    "| \(count) | \(contender) | \(Self.format(median(rounds.map(\.requestsPerSecond)), 0)) | "
                        + "\(Self.format(median(rounds.map(\.p50)), 2)) | \(Self.format(median(rounds.map(\.p99)), 2)) | "
                        + "\(rounds.map(\.errors).reduce(0, +)) | \(Self.format(median(rounds.map(\.serverCores)), 2)) | "
                        + "\(Self.format(median(rounds.map(\.serverMicrosecondsPerRequest)), 0)) | "
                        + "\(Self.format(median(rounds.map(\.loadCores)), 2)) |")
            }
        }
        let kinds = mix.weights.map(\.kind)
        if kinds.count > 1 {
            lines += ["", "Latency by kind of request, p50 / p99 in ms (medians of the rounds):", ""]
            lines.append("| connections | server | " + kinds.map(\.name).joined(separator: " | ") + " |")
            lines.append("|---:|---|" + kinds.map { _ in "---:|" }.joined())
            for count in connections {
                for contender in contenders {
                    let rounds = results.filter { $0.connections == count && $0.contender == contender }
                    guard !rounds.isEmpty else { continue }
                    let cells = kinds.map { kind in
                        Self.format(median(rounds.map { $0.p50ByKind[kind.rawValue] }), 2) + " / "
                            + Self.format(median(rounds.map { $0.p99ByKind[kind.rawValue] }), 2)
                    }
                    lines.append("| \(count) | \(contender) | " + cells.joined(separator: " | ") + " |")
                }
            }
        }
        if contenders.count == 2 {
            let (a, b) = (contenders[0], contenders[1])
            lines += ["", "Ratios \(a)/\(b), medians of the per-round ratios (throughput above 1 and latency below 1 favour \(a)):", ""]
            lines.append("| connections | requests/s | p50 | p99 | server CPU per request |")
            lines.append("|---:|---:|---:|---:|---:|")
            for count in connections {
                let pairs = pairs(count: count, a, b)
                guard !pairs.isEmpty else { continue }
                lines.append(
                    "| \(count) | \(Self.format(median(pairs.map { $0.requestsPerSecond / $1.requestsPerSecond }), 2)) | "
                        + "\(Self.format(median(pairs.map { $0.p50 / $1.p50 }), 2)) | "
                        + "\(Self.format(median(pairs.map { $0.p99 / $1.p99 }), 2)) | "
                        + "\(Self.format(median(pairs.map { $0.serverMicrosecondsPerRequest / $1.serverMicrosecondsPerRequest }), 2)) |")
            }
        }
        lines += ["", "Every round:", ""]
        lines.append("| connections | round | server | requests/s | p50 ms | p99 ms | errors | server CPU | µs/request | load CPU |")
        lines.append("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
        for result in results {
            lines.append(
                "| \(result.connections) | \(result.round) | \(result.contender) | \(Self.format(result.requestsPerSecond, 0)) | "
                    + "\(Self.format(result.p50, 2)) | \(Self.format(result.p99, 2)) | \(result.errors) | "
                    + "\(Self.format(result.serverCores, 2)) | \(Self.format(result.serverMicrosecondsPerRequest, 0)) | "
                    + "\(Self.format(result.loadCores, 2)) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The rounds where both contenders ran, paired.
    private func pairs(count: Int, _ a: String, _ b: String) -> [(RoundResult, RoundResult)] {
        let rounds = Set(results.filter { $0.connections == count }.map(\.round)).sorted()
        return rounds.compactMap { round in
            let here = results.filter { $0.connections == count && $0.round == round }
            guard let x = here.first(where: { $0.contender == a }), let y = here.first(where: { $0.contender == b })
            else { return nil }
            return (x, y)
        }
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func format(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }
}
