import Foundation
import Testing
@testable import Strata

/// A dial whose version D2 only adds a field: the table stays, no row is copied.
enum ReportingV1 {
    @Entity(name: "Dial") struct Dial { var position: Int = 0 }
}

enum ReportingV2 {
    @Entity(name: "Dial") struct Dial {
        var position: Int = 0
        var unit: String = "deg"
    }
}

let reportingHistory = SchemaHistory(Schema("D1", ReportingV1.Dial.self), Schema("D2", ReportingV2.Dial.self))

/// A store of version D1 at `path` holding `count` dials, closed.
private func makeDialStore(at path: String, count: Int) async throws {
    let stack = try await DataStack(Schema("D1", ReportingV1.Dial.self), storage: SQLiteStore(path: path))
    try await stack.perform { tx in
        for position in 0..<count { _ = try tx.create(Into<ReportingV1.Dial>()) { $0.position = position } }
    }
    await stack.close()
}

/// What a migration tells before and while it runs: forecasts and progress.
extension MigrationTests {
    @Test("a MigrationProgress given to a second stack is refused before anything opens, not left silent")
    func progressReused() async throws {
        let directory = try TemporaryDirectory()
        let paths = ["a", "b", "c", "d"].map { directory.path("\($0).sqlite") }
        for path in paths { try await makeDialStore(at: path, count: 2) }
        let progress = MigrationProgress()
        let collector = Task { var count = 0; for await _ in progress { count += 1 }; return count }
        await (try DataStack(reportingHistory, storage: SQLiteStore(path: paths[0]), progress: progress)).close()
        #expect(await collector.value > 0)
        // Its sequence ended with that migration, so it could report nothing of another: the stack
        // refuses it, before opening anything.
        let error = await expectStrataError(.invalidArgument) {
            try await DataStack(reportingHistory, storage: SQLiteStore(path: paths[1]), progress: progress)
        }
        #expect(error?.message.contains("new MigrationProgress") == true, "\(String(describing: error))")
        #expect(try storeValue(paths[1], "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "D1")
        // A progress given to a second opening while the first migrates: the second is refused, and the
        // first one's sequence goes on to its finished event.
        let latch = Latch()
        let held = SchemaHistory(
            Schema("D1", ReportingV1.Dial.self), Schema("D2", ReportingV2.Dial.self),
            steps: [MigrationStep(from: "D1", to: "D2", .transform(ReportingV2.Dial.self) { _, _ in latch.hold() })])
        let shared = MigrationProgress()
        let events = Task { var events: [MigrationProgress.Event] = []; for await event in shared { events.append(event) }; return events }
        let opening = Task { try await DataStack(held, storage: SQLiteStore(path: paths[2]), progress: shared) }
        await latch.reached()
        _ = await expectStrataError(.invalidArgument) {
            try await DataStack(reportingHistory, storage: SQLiteStore(path: paths[3]), progress: shared)
        }
        latch.release()
        latch.release()
        try await opening.value.close()
        // Every event is the held migration's (it copies 2 rows; the refused one would have copied none).
        let reported = await events.value
        #expect(reported.last?.isFinished == true && reported.allSatisfy { $0.overallTotalRows == 2 }, "\(reported)")
        #expect(try storeValue(paths[3], "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "D1")
    }

    @Test("a forecast says a step that only adds fields copies no rows instead of claiming the table's rows")
    func forecastOfAddedFields() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("dial.sqlite")
        try await makeDialStore(at: path, count: 3)
        let forecast = try await DataStack.forecast(reportingHistory, storage: SQLiteStore(path: path))
        let dial = try #require(forecast.steps.first?.entities.first)
        #expect(dial.entity == "Dial" && dial.kind == .inferred)
        #expect(dial.rows == 0)
        #expect(forecast.description == "D1 → D2: Dial inferred (in place, no rows copied)", "\(forecast)")
    }
}
