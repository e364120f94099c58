import Synchronization

/// Observation latency probe for g, for implementations whose consumer is a task: the writer calls
/// ``expect(_:)`` before a write and ``stamp()`` inside its transaction after the last statement, the
/// consumer calls ``received(_:)`` with each value, and the writer awaits ``delivery()``.
final class LatencyProbe: Sendable {
    private struct State {
        var expected: Int?
        var stamp: UInt64 = 0
        var isDelivered = false
        var waiter: CheckedContinuation<Void, Never>?
        var latencies: [Double] = []
        var values: [Int] = []
        var last: Int?
    }

    private let state = Mutex(State())

    init() {}

    /// The next value the writer's write will produce (`nil`: the first value, whatever it is).
    func expect(_ value: Int?) {
        state.withLock { state in
            state.expected = value
            state.isDelivered = false
        }
    }

    func stamp() {
        let now = nanoseconds()
        state.withLock { $0.stamp = now }
    }

    func received(_ value: Int) {
        let now = nanoseconds()
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.last = value
            guard !state.isDelivered, state.expected == nil || state.expected == value else { return nil }
            if state.expected != nil {
                state.latencies.append(Double(now - state.stamp) / 1000)
                state.values.append(value)
            }
            state.isDelivered = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once the expected value was received.
    func delivery() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.isDelivered { return true }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The last value received.
    var last: Int? { state.withLock { $0.last } }

    /// p50 and p99 of the latencies (µs), and a checksum of the values the consumer received.
    func sample() -> Sample {
        let (latencies, values) = state.withLock { ($0.latencies.sorted(), $0.values) }
        var checksum = Checksum()
        for value in values { checksum.addValue(value) }
        return Sample(
            values: [Metrics.latencyP50: percentile(latencies, 50), Metrics.latencyP99: percentile(latencies, 99)],
            checksum: checksum)
    }
}
