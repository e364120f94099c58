/// Every sample of a run, by workload and implementation, in round order.
struct Results: Sendable {
    private(set) var samples: [Workload: [Contender: [Int: Sample]]] = [:]
    private(set) var failures: [Workload: [Contender: String]] = [:]

    mutating func record(_ sample: Sample, _ workload: Workload, _ contender: Contender, round: Int) {
        samples[workload, default: [:]][contender, default: [:]][round] = sample
    }

    mutating func fail(_ workload: Workload, _ contender: Contender, _ message: String) {
        failures[workload, default: [:]][contender] = message
    }

    func contenders(_ workload: Workload) -> [Contender] {
        Contender.allCases.filter { samples[workload]?[$0]?.isEmpty == false }
    }

    /// The values of one metric, round by round.
    func values(_ workload: Workload, _ contender: Contender, _ metric: Metric) -> [Int: Double] {
        (samples[workload]?[contender] ?? [:]).compactMapValues { $0.values[metric] }
    }

    /// How a ratio of `metric` is oriented: speed (above 1, the numerator is faster), except for
    /// latencies, compared as the issue states their target (below 1, the numerator is quicker).
    static func isLatency(_ metric: Metric) -> Bool {
        metric.unit == .microseconds || metric == Metrics.otherProcessP50 || metric == Metrics.otherProcessP99
    }

    /// The median over rounds of `numerator` compared with `denominator` in the same round.
    func ratio(_ workload: Workload, _ metric: Metric, _ numerator: Contender, _ denominator: Contender) -> Double? {
        let ratios = ratios(workload, metric, numerator, denominator)
        return ratios.isEmpty ? nil : median(ratios)
    }

    /// `numerator` compared with `denominator`, round by round (the rounds both ran), in round order.
    func ratios(_ workload: Workload, _ metric: Metric, _ numerator: Contender, _ denominator: Contender) -> [Double] {
        let top = values(workload, numerator, metric)
        let bottom = values(workload, denominator, metric)
        return top.keys.sorted().compactMap { round -> Double? in
            guard let a = top[round], let b = bottom[round], a > 0, b > 0 else { return nil }
            if Self.isLatency(metric) { return a / b }
            return metric.unit.higherIsBetter ? a / b : b / a
        }
    }

    /// Whether every implementation read the same data in every round: `nil` when the workload has no
    /// checksum, otherwise the distinct checksums seen (one when all agree).
    func checksums(_ workload: Workload) -> [Checksum: [String]]? {
        var seen: [Checksum: [String]] = [:]
        for (contender, rounds) in samples[workload] ?? [:] {
            for (round, sample) in rounds {
                if let checksum = sample.checksum { seen[checksum, default: []].append("\(contender.rawValue) #\(round)") }
            }
        }
        return seen.isEmpty ? nil : seen
    }
}
