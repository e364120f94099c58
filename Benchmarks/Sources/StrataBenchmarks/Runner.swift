import Foundation

/// Runs the workloads: for each workload, every round runs each implementation once, in the same order
/// (raw, GRDB init(row:), GRDB Codable, Strata), so the ratios of a round compare runs made seconds apart.
func runBenchmarks(_ options: Options) async throws {
    let started = nanoseconds()
    if options.load == .taskset {
        let threads = try Affinity.pinProcess(toCPU: 0)
        print("pinned the process to CPU 0 (\(threads) threads so far; later threads inherit the pin)")
    }
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("strata-benchmarks-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    let northwind = FileManager.default.fileExists(atPath: options.northwindPath) ? options.northwindPath : nil
    let serverOperations = options.quick ? ServerLoad.quickOperationCount : ServerLoad.operationCount
    var serverLoads: [Workload: ServerLoad] = [:]
    for workload in options.workloads {
        guard let tasks = workload.serverTaskCount else { continue }
        serverLoads[workload] = ServerLoad(taskCount: tasks, operationCount: serverOperations, rowCount: Dataset.rowCount)
    }
    let environment = Environment(
        dataset: Dataset(), imports: ImportData(), directory: directory, northwindPath: northwind,
        concurrentSeconds: options.quick ? 2 : 5,
        northwindLoadsPerRound: max(1, ((options.quick ? 50 : northwindLoads) + options.rounds - 1) / options.rounds),
        serverLoads: serverLoads,
        busyLoad: options.load == .busy ? BusyLoad() : nil,
        otherProcessFullSync: options.otherProcessFullSync)

    // Taken once, before anything runs: the markdown file repeats these lines (the start's date and
    // load average, not those at the end).
    let machine = Machine.describe(load: options.load)
    for line in machine { print(line) }
    if Machine.loadAverage > 0.5 {
        print("warning: the load average is \(Machine.loadAverage) before the run: something else is using the CPU")
    }
    if options.workloads.contains(.n) {
        print("n: GRDB is not measured: its ValueObservation does not see commits of other processes; "
            + "the child commits with synchronous = \(options.otherProcessFullSync ? "FULL" : "NORMAL")")
    }
    print("\(options.rounds) rounds; files in \(directory.path) (WAL, synchronous = NORMAL)\n")

    let recordWorkloads: Set<Workload> = [.a, .b, .c, .d, .d2, .e, .j]
    // ob and od run o's chosen stacks side by side.
    let storesInterleave = StoresInterleave(
        environment: environment,
        layouts: StrataStoresBench.Layout.allCases.filter { options.contenders.contains(StrataStoresBench.contender(of: $0)) })
    let everyContestant: [any Contestant] = [
        RawBench(environment: environment),
        // Not n: GRDB's ValueObservation never sees another process's commits. Not o: Strata's stacks only.
        GRDBBench<GRDBRowItem, GRDBRowOrder>(
            contender: .grdbRow, environment: environment,
            workloads: Set(Workload.allCases.filter { $0 != .n && $0.storesBase == nil })),
        GRDBSyncBench(environment: environment),
        GRDBBench<GRDBCodableItem, GRDBCodableOrder>(
            contender: .grdbCodable, environment: environment, workloads: recordWorkloads),
        StrataBench(environment: environment),
        StrataBench(environment: environment, history: true),
    ] + StrataStoresBench.Layout.allCases.map { layout in
        StrataStoresBench(environment: environment, layout: layout, interleave: storesInterleave)
    }
    // Only those that run one of the chosen workloads are set up.
    let contestants = everyContestant.filter { contestant in
        options.contenders.contains(contestant.contender) && options.workloads.contains(where: contestant.runs)
    }
    for contestant in contestants {
        let start = nanoseconds()
        try await contestant.setUp()
        guard contestant.contender.hasMainStore else { continue }
        print("set up \(contestant.contender.rawValue): 100,000 rows in \(String(format: "%.2f", seconds(since: start))) s")
    }

    if let busy = environment.busyLoad {
        busy.start()
        print("started \(BusyLoad.threadCount) spinning background threads (--load busy)")
    }
    var results = Results()
    var workloads: [Workload] = []
    for workload in options.workloads {
        if workload == .j && northwind == nil {
            print("\nj skipped: \(options.northwindPath) is absent")
            continue
        }
        workloads.append(workload)
        print("\n\(workload.title)")
        if let load = environment.serverLoads[workload] {
            print("  \(load.operationCount) operations in \(load.taskCount) tasks per round; "
                + "raw SQLite serves them on \(RawServer.defaultThreadCount) threads")
        }
        var active = contestants.filter { $0.runs(workload) }
        for contestant in active {
            do {
                try await contestant.prepare(workload)
            } catch {
                print("  \(contestant.contender.rawValue) failed to prepare: \(error)")
                results.fail(workload, contestant.contender, "\(error)")
            }
        }
        active.removeAll { results.failures[workload]?[$0.contender] != nil }
        for round in 1...options.rounds {
            var line: [String] = []
            // o compares three stacks of one implementation, whose differences are small: the order
            // turns by one each round, so that no stack always runs first (or right after another).
            let shift = workload.storesBase == nil ? 0 : (round - 1) % max(active.count, 1)
            let ordered = Array(active[shift...] + active[..<shift])
            for contestant in ordered where results.failures[workload]?[contestant.contender] == nil {
                do {
                    let sample = try await contestant.run(workload, round: round)
                    results.record(sample, workload, contestant.contender, round: round)
                    let figures = Metrics.of(workload).compactMap { metric in
                        sample.values[metric].map { Report.format($0, metric.unit) }
                    }
                    let note = sample.note.map { " (\($0))" } ?? ""
                    line.append("\(contestant.contender.rawValue) \(figures.joined(separator: " / "))\(note)")
                } catch {
                    print("  \(contestant.contender.rawValue) failed: \(error)")
                    results.fail(workload, contestant.contender, "\(error)")
                }
            }
            print("  round \(round): " + line.joined(separator: " · "))
        }
    }
    environment.busyLoad?.stop()
    for contestant in contestants { await contestant.tearDown() }

    let report = Report(results: results)
    var output = ["", "Load: \(options.load.summary).", ""]
    // k and the GRDB sync variant have no target in issue 5 (l's come from the imports issue, m's from
    // the migrations issue): the table is left out when no target applies.
    if Report.targets.contains(where: { workloads.contains($0.workload) }) {
        output += [
            "## Strata against the targets of issue 5 and, for l and m, the imports and migrations issues "
                + "(median of per-round ratios; load: \(options.load.rawValue))",
            "",
            report.targetTable(workloads),
            "",
        ]
    }
    let stores = workloads.filter { $0.storesBase != nil }
    if !stores.isEmpty {
        output += [
            "## o: Strata on two stores ÷ one store (\(options.rounds) rounds, load: \(options.load.rawValue); "
                + "ratios are medians of per-round ratios, with their min – max)",
            "",
            report.storesTable(stores),
            "",
        ]
    }
    // o's figures are in its own table: its stacks are not implementations beside raw SQLite and GRDB.
    let others = workloads.filter { $0.storesBase == nil }
    if !others.isEmpty {
        output += [
            "## All figures (\(options.rounds) rounds, load: \(options.load.rawValue); ratios are medians of per-round ratios)",
            "",
            report.fullTable(others),
            "",
            "Ratios compare speed (throughput, or the inverse of a time): above 1× the numerator is faster.",
            "For g, k and n's p50 and p99 they compare latencies: below 1× the numerator is quicker. For k's CPU,",
            "above 1× the numerator uses less CPU per operation. l3's and m's memory growth has no ratios (README, m).",
            "",
        ]
    }
    output += ["Checksums (the rows each implementation or stack read, in every round):"]
    output += report.checksumLines(workloads)
    if workloads.contains(.j) {
        let loads = environment.northwindLoadsPerRound * options.rounds
        let totals = results.contenders(.j).map { contender -> String in
            let scaled = results.values(.j, contender, Metrics.loadTime).values.reduce(0, +)
            let actual = scaled * Double(environment.northwindLoadsPerRound) / Double(northwindLoads)
            return "\(contender.rawValue) \(String(format: "%.2f", actual)) s"
        }
        output.append("")
        output.append("j, total time of the \(loads) loads actually run (\(environment.northwindLoadsPerRound) per round, "
            + "after \(northwindWarmUps) warm-ups): " + totals.joined(separator: ", "))
    }
    for (workload, failures) in results.failures.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
        for (contender, message) in failures { output.append("- \(workload.rawValue) \(contender.rawValue) FAILED: \(message)") }
    }
    output.append("")
    output.append("Total run time: \(String(format: "%.0f", seconds(since: started))) s")
    let text = output.joined(separator: "\n")
    print(text)
    if let path = options.markdownPath {
        try (machine.map { "- " + $0 }.joined(separator: "\n") + "\n" + text + "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
    }
    let mismatches = workloads.contains { (results.checksums($0)?.count ?? 1) > 1 }
    if mismatches || !results.failures.isEmpty { exit(1) }
}
