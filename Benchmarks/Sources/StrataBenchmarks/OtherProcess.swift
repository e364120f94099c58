import CSQLiteBench
import Foundation

/// Workload n: how soon an observer sees a commit made by **another process**.
///
/// Each round, every implementation makes a fresh store with the `item` table (its own schema: raw
/// SQLite's `item`, Strata's `Item`) and starts observing its row count. A child process (this
/// executable again, run with ``childFlag``) opens the same file with plain SQLite calls, the same for
/// every implementation, waits for the word "go" on its standard input, then commits ``commitCount``
/// rows one transaction at a time, ``pause`` apart (seeded jitter, so commits never fall in step with
/// anything periodic), and after each `COMMIT` returns writes `CLOCK_MONOTONIC` (system-wide, so
/// comparable between the two processes) to its standard output. The delay of a commit is the time
/// from there to the first snapshot of the observer that counts its row (one snapshot may cover several
/// commits); the sample is the p50 and p99 of the round's delays.
///
/// GRDB is not measured: its `ValueObservation` sees the commits made through its own
/// `DatabasePool` or `DatabaseQueue` only, never another process's.
enum OtherProcess {
    /// The hidden first argument that makes the executable the committing child.
    static let childFlag = "--n-child"
    static let commitCount = 200
    /// The pause before each commit: 5 to 15 ms.
    static let pause = 5_000...15_000
    /// How long the observer runs before the child starts committing: long enough for any start-up
    /// work (Strata's first checks) to be over, so every commit meets the observer in its steady state.
    static let settle: Duration = .milliseconds(500)

    /// The delays in milliseconds: for each commit (its time, in order), the first snapshot counting
    /// its row (`initialCount + index + 1` rows or more), from `snapshots` in the order they came.
    static func delays(commits: [UInt64], snapshots: [(count: Int64, at: UInt64)], initialCount: Int64 = 0) throws -> [Double] {
        var delays: [Double] = []
        var next = snapshots.startIndex
        for (index, committed) in commits.enumerated() {
            let rows = initialCount + Int64(index) + 1
            while next < snapshots.endIndex, snapshots[next].count < rows { next += 1 }
            guard next < snapshots.endIndex else {
                throw RawError(description: "n: no snapshot counted commit \(index + 1) of \(commits.count)")
            }
            // A snapshot can come before the child reads its clock after `COMMIT` returns: count 0 then.
            let seen = snapshots[next].at
            delays.append(seen > committed ? Double(seen - committed) / 1e6 : 0)
        }
        return delays
    }

    static func sample(_ delays: [Double], rows: Int64) -> Sample {
        let sorted = delays.sorted()
        var checksum = Checksum()
        checksum.addValue(Int(rows))
        return Sample(
            values: [Metrics.otherProcessP50: percentile(sorted, 50), Metrics.otherProcessP99: percentile(sorted, 99)],
            checksum: checksum)
    }
}

/// The committing child, seen from the benchmark: started, told to go, and read until it exits.
final class CommitChild: @unchecked Sendable {
    // @unchecked: `process` and the pipes are set in `init` and then only used through Foundation's
    // thread-safe calls; the commit times are behind a lock.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let times = Locked<(values: [UInt64], ready: Bool, ended: Bool)>(([], false, false))
    private let readyOrEnded = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    /// Starts the child on `path`, inserting into `table`; it waits for ``go()``.
    init(path: String, table: String, seed: Int, fullSync: Bool) throws {
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: "/proc/self/exe")
        process.executableURL = executable
        process.arguments = [
            OtherProcess.childFlag, path, table, "\(OtherProcess.commitCount)", "\(seed)", fullSync ? "FULL" : "NORMAL",
        ]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let reading = output.fileHandleForReading
        let times = self.times
        let readyOrEnded = self.readyOrEnded
        let ended = self.ended
        Thread.detachNewThread {
            var pending = Data()
            while case let chunk = reading.availableData, !chunk.isEmpty {
                pending += chunk
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[pending.index(after: newline)...])
                    if line == "ready" {
                        times.withLock { $0.ready = true }
                        readyOrEnded.signal()
                    } else if let value = UInt64(line) {
                        times.withLock { $0.values.append(value) }
                    }
                }
            }
            times.withLock { $0.ended = true }
            readyOrEnded.signal()
            ended.signal()
        }
    }

    /// Waits (on a plain thread) until the child has opened the store.
    func ready() async throws {
        try await onPlainThread { [readyOrEnded, times] in
            readyOrEnded.wait()
            guard times.withLock({ $0.ready }) else { throw RawError(description: "n: the child ended before it was ready") }
        }
    }

    /// Lets the child commit.
    func go() throws {
        try input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
        try input.fileHandleForWriting.close()
    }

    /// Waits until the child has exited; returns the times of its commits.
    func commitTimes() async throws -> [UInt64] {
        try await onPlainThread { [ended, process, times] in
            ended.wait()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw RawError(description: "n: the child exited with status \(process.terminationStatus)")
            }
            return times.withLock { $0.values }
        }
    }

    /// The child: `strata-benchmarks --n-child <path> <table> <count> <seed> NORMAL|FULL`. Commits one
    /// row per transaction with plain SQLite calls (WAL, `synchronous = NORMAL` like every store of the
    /// benchmarks, or `FULL`) and prints the monotonic time after each `COMMIT`. Exits the process.
    static func runChild(_ arguments: [String]) -> Never {
        do {
            guard arguments.count == 5, let count = Int(arguments[2]), let seed = UInt64(arguments[3]),
                ["NORMAL", "FULL"].contains(arguments[4])
            else {
                throw RawError(description: "usage: \(OtherProcess.childFlag) <path> <table> <count> <seed> NORMAL|FULL")
            }
            let db = try RawDatabase(path: arguments[0])
            try db.execute("PRAGMA synchronous = \(arguments[4])")
            let insert = try db.prepare("INSERT INTO \"\(arguments[1])\"(name, age, score, created) VALUES (?, ?, 0, 0)")
            let begin = try db.prepare("BEGIN IMMEDIATE")
            let commit = try db.prepare("COMMIT")
            var random = SplitMix64(seed: seed)
            say("ready")
            _ = readLine()
            for index in 0..<count {
                let span = UInt64(OtherProcess.pause.upperBound - OtherProcess.pause.lowerBound + 1)
                usleep(UInt32(OtherProcess.pause.lowerBound) + UInt32(random.next() % span))
                try begin.run()
                insert.bind("n \(index)", at: 1)
                insert.bind(Int64(index), at: 2)
                try insert.run()
                try commit.run()
                say("\(nanoseconds())")
            }
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("n child: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Writes a line to standard output at once (unbuffered).
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
