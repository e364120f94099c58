import Foundation
import Strata

/// Workload n for Strata: a `DataStack` on the store with the default configuration (a file-system
/// watch, backed by a poll every 2 s) and a `countPublisher`, iterated as an app would; a snapshot's
/// time is when the iteration receives it.
extension StrataBench {
    func observeOtherProcess(round: Int) async throws -> Sample {
        let path = environment.path("strata-n-\(round).sqlite")
        environment.remove(path)
        defer { environment.remove(path) }
        let stack = try await DataStack(Self.schema, storage: SQLiteStore(path: path))
        let snapshots = Locked<[(count: Int64, at: UInt64)]>([])
        let (taken, delivered) = AsyncStream<Int>.makeStream()
        let observer = Task {
            for try await count in stack.countPublisher(From<Item>()) {
                let at = nanoseconds()
                snapshots.withLock { $0.append((Int64(count), at)) }
                delivered.yield(count)
            }
        }
        defer { observer.cancel() }
        var counts = taken.makeAsyncIterator()
        _ = await counts.next()
        let child = try CommitChild(path: path, table: "Item", seed: round, fullSync: environment.otherProcessFullSync)
        try await child.ready()
        try await Task.sleep(for: OtherProcess.settle)
        try child.go()
        let commits = try await child.commitTimes()
        // A guard against a snapshot that never comes: the poll alone would deliver it within 2 s.
        let guardTask = Task {
            try await Task.sleep(for: .seconds(10))
            delivered.finish()
        }
        defer { guardTask.cancel() }
        var last = snapshots.withLock { $0.last?.count ?? 0 }
        while last < Int64(commits.count) {
            guard let count = await counts.next() else {
                throw RawError(description: "n: Strata did not count \(commits.count) rows within 10 s")
            }
            last = Int64(count)
        }
        observer.cancel()
        await stack.close()
        let delays = try OtherProcess.delays(commits: commits, snapshots: snapshots.withLock { $0 })
        return OtherProcess.sample(delays, rows: last)
    }
}
