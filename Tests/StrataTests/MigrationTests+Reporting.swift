import Foundation
import Testing
@testable import Strata

/// A gauge whose version G2 only adds a field (`ProgressV1` → `ProgressV2`): the table stays, no row is copied.
let reportingHistory = SchemaHistory(Schema("G1", ProgressV1.Gauge.self), Schema("G2", ProgressV2.Gauge.self))

/// A store of version G1 at `path` holding `count` gauges, closed.
private func makeGaugeStore(at path: String, count: Int) async throws {
    let stack = try await DataStack(Schema("G1", ProgressV1.Gauge.self), storage: SQLiteStore(path: path))
    try await stack.perform { tx in
        for position in 0..<count { _ = try tx.create(Into<ProgressV1.Gauge>()) { $0.level = position } }
    }
    await stack.close()
}

/// What a migration tells before and while it runs: forecasts and progress.
extension MigrationTests {
    @Test("a MigrationProgress given to a second stack is refused before anything opens, not left silent")
    func progressReused() async throws {
        let directory = try TemporaryDirectory()
        let paths = ["a", "b", "c", "d"].map { directory.path("\($0).sqlite") }
        for path in paths { try await makeGaugeStore(at: path, count: 2) }
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
        #expect(try storeValue(paths[1], "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "G1")
        // A progress given to a second opening while the first migrates: the second is refused, and the
        // first one's sequence goes on to its finished event.
        let latch = Latch()
        let held = SchemaHistory(
            Schema("G1", ProgressV1.Gauge.self), Schema("G2", ProgressV2.Gauge.self),
            steps: [MigrationStep(from: "G1", to: "G2", .transform(ProgressV2.Gauge.self) { _, _ in latch.hold() })])
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
        #expect(try storeValue(paths[3], "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "G1")
    }

    @Test("Strata's error inside a step's closure (a value read with the wrong type) names the object and the step")
    func closureErrorsNameTheirPlace() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("typed.sqlite")
        try await makeGaugeStore(at: path, count: 2)
        let history = SchemaHistory(
            Schema("G1", ProgressV1.Gauge.self), Schema("G3", ProgressV3.Gauge.self),
            steps: [MigrationStep(from: "G1", to: "G3", .transform(ProgressV3.Gauge.self) { old, new in
                new.amount = Int(try old.value("level", as: String.self)) ?? 0
            })])
        let error = await expectStrataError(.typeMismatch) { try await DataStack(history, storage: SQLiteStore(path: path)) }
        #expect(error?.entity == "Gauge" && error?.field == "level", "\(String(describing: error))")
        #expect(error?.message.contains("transforming Gauge object 1") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("in the migration step G1 → G3") == true, "\(error?.message ?? "")")
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "G1")
    }

    @Test("a relationship a step leaves pointing at no object fails the migration naming the object and the field")
    func danglingRelationshipNamed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("library.sqlite")
        let ids = try await makeV1Store(at: path)
        let history = SchemaHistory(
            migrationV1, migrationV2, migrationV3,
            steps: [stepV1V2, MigrationStep(from: "V2", to: "V3", .transform(MV3.Book.self) { old, book in
                if old.id == ids.books[1] { book.author = MV3.Writer.ID(rawValue: 999) }
            })])
        let error = await expectStrataError(.constraint) { try await DataStack(history, storage: SQLiteStore(path: path)) }
        // Before: "After the migration, 'Book' holds a relationship to 'Writer' objects that do not exist".
        #expect(error?.entity == "Book" && error?.field == "author", "\(String(describing: error))")
        #expect(error?.message.contains("Book object \(ids.books[1]) has author pointing at a Writer object") == true,
                "\(error?.message ?? "")")
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
    }

    @Test("the fraction completed stays within 0...1 when a step adds rows that a later step copies")
    func fractionWhenRowsGrow() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("grow.sqlite")
        try await makeGaugeStore(at: path, count: 2)
        // G1 → G2 adds 8 gauges in a custom step; G2 → G3 transforms every gauge: 10 rows, where the
        // count taken before the migration said 2.
        let history = SchemaHistory(
            Schema("G1", ProgressV1.Gauge.self), Schema("G2", ProgressV2.Gauge.self), Schema("G3", ProgressV3.Gauge.self),
            steps: [
                MigrationStep(from: "G1", to: "G2", .custom { migration in
                    for level in 10..<18 { _ = try migration.transaction.create(Into<ProgressV2.Gauge>()) { $0.level = level } }
                }),
                MigrationStep(from: "G2", to: "G3", .transform(ProgressV3.Gauge.self) { old, new in
                    new.amount = try old.value("level", as: Int.self)
                }),
            ])
        let progress = MigrationProgress()
        // Each event is kept as it is made (a consumer may skip events, never see them out of order).
        let events = Task { var events: [MigrationProgress.Event] = []; for await event in progress { events.append(event) }; return events }
        let stack = try await DataStack(history, storage: SQLiteStore(path: path), progress: progress)
        #expect(try await stack.fetchCount(From<ProgressV3.Gauge>()) == 10)
        await stack.close()
        let reported = await events.value
        #expect(reported.last?.isFinished == true)
        #expect(reported.allSatisfy { (0...1).contains($0.fractionCompleted) }, "\(reported.map(\.fractionCompleted))")
        #expect(zip(reported, reported.dropFirst()).allSatisfy { $0.fractionCompleted <= $1.fractionCompleted })
    }

    @Test("objects a step deletes before copying leave the totals the progress reports")
    func totalsAfterDeletions() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("deleted.sqlite")
        try await makeGaugeStore(at: path, count: 2_000)
        let progress = MigrationProgress()
        // The transform's first object waits until the consumer has the event that starts the table:
        // nothing newer replaces it meanwhile (a consumer may skip events, not this one).
        let seen = DispatchSemaphore(value: 0)
        let history = SchemaHistory(
            Schema("G1", ProgressV1.Gauge.self), Schema("G3", ProgressV3.Gauge.self),
            steps: [MigrationStep(
                from: "G1", to: "G3", .deleteObjects("Gauge") { try $0.value("level", as: Int.self) >= 200 },
                .transform(ProgressV3.Gauge.self) { old, new in
                    if old.id == 1 { seen.wait() }
                    new.amount = try old.value("level", as: Int.self)
                })])
        let start = Task { () -> MigrationProgress.Event? in
            for await event in progress where event.entity == "Gauge" && event.completedRows == 0 {
                seen.signal()
                return event
            }
            seen.signal()
            return nil
        }
        let stack = try await DataStack(history, storage: SQLiteStore(path: path), progress: progress)
        #expect(try await stack.fetchCount(From<ProgressV3.Gauge>()) == 200)
        await stack.close()
        // Before, the 1,800 deleted rows stayed in the totals: the bar stopped at 0.1 until the end.
        let event = try #require(await start.value)
        #expect(event.totalRows == 200 && event.overallTotalRows == 200, "\(event)")
    }

    @Test("a forecast says a step that only adds fields copies no rows instead of claiming the table's rows")
    func forecastOfAddedFields() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("dial.sqlite")
        try await makeGaugeStore(at: path, count: 3)
        let forecast = try await DataStack.forecast(reportingHistory, storage: SQLiteStore(path: path))
        let dial = try #require(forecast.steps.first?.entities.first)
        #expect(dial.entity == "Gauge" && dial.kind == .inferred)
        #expect(dial.rows == 0)
        #expect(forecast.description == "G1 → G2: Gauge inferred (in place, no rows copied; adds Gauge.label)", "\(forecast)")
    }
}
