/// What the tasks of one k run measured.
struct ServerTally: Sendable {
    /// The time of each operation, µs: from the call to its result, in the task that awaited it.
    var latencies: [Double] = []
    /// The rows the reads returned.
    var checksum = Checksum()
}

/// The driver of workload k, shared by every implementation: it starts one task per plan of the
/// load at once (as a server starts one task per request it accepts), each task awaits its
/// operations one after the other through the implementation's `perform`, and the run ends when
/// the last task is done.
///
/// Throughput is operations over the wall-clock time from starting the first task to the end of the
/// last. Latencies are measured per operation inside the tasks. CPU is `getrusage(RUSAGE_SELF)`, user
/// and system, around the run, less the CPU of `--load busy`'s spinning threads.
enum ServerRun {
    static func measure(
        _ load: ServerLoad, environment: Environment,
        _ perform: @escaping @Sendable (ServerOperation) async throws -> Checksum
    ) async throws -> Sample {
        let cpuStart = environment.measuredCPUSeconds()
        let start = nanoseconds()
        let tally = try await withThrowingTaskGroup(of: ServerTally.self) { group in
            for plan in load.plans {
                group.addTask {
                    var tally = ServerTally()
                    tally.latencies.reserveCapacity(plan.count)
                    for operation in plan {
                        let begin = nanoseconds()
                        let rows = try await perform(operation)
                        tally.latencies.append(Double(nanoseconds() - begin) / 1000)
                        tally.checksum.merge(rows)
                    }
                    return tally
                }
            }
            var total = ServerTally()
            total.latencies.reserveCapacity(load.operationCount)
            for try await part in group {
                total.latencies += part.latencies
                total.checksum.merge(part.checksum)
            }
            return total
        }
        let elapsed = seconds(since: start)
        let cpu = environment.measuredCPUSeconds() - cpuStart
        let latencies = tally.latencies.sorted()
        let count = Double(latencies.count)
        return Sample(
            values: [
                Metrics.serverRate: count / elapsed,
                Metrics.serverP50: percentile(latencies, 50),
                Metrics.serverP99: percentile(latencies, 99),
                Metrics.serverCPU: cpu * 1000 / (count / 1000),
            ],
            checksum: tally.checksum)
    }
}
