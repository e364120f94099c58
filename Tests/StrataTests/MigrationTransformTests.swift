import Foundation
import Testing
@testable import Strata

enum TransformV1 {
    @Entity(name: "Task")
    struct Task {
        var title: String = ""
        var status: String = ""
        /// Tags separated by commas.
        var tags: String = ""
        var due: Int?
    }
}

enum TransformV2 {
    enum Status: String, DatabaseValueConvertible, Sendable {
        case open, done
    }

    /// `status` keeps its column type but becomes an enum; `tags` becomes a coded array; `due` becomes required.
    @Entity(name: "Task")
    struct Task {
        var title: String = ""
        var status: Status = .open
        @Coded var tags: [String] = []
        var due: Int = 0
    }
}

@Suite("Migrations: transforms of fields whose type changed", .timeLimit(.minutes(1)))
struct MigrationTransformTests {
    let v1 = Schema("V1", TransformV1.Task.self)
    let v2 = Schema("V2", TransformV2.Task.self)

    /// A V1 store at `path` holding one task made by each closure.
    func makeStore(_ path: String, _ tasks: [@Sendable (inout TransformV1.Task) -> Void]) async throws {
        let stack = try await DataStack(v1, storage: SQLiteStore(path: path))
        try await stack.perform { tx in
            for configure in tasks { _ = try tx.create(Into<TransformV1.Task>()) { configure(&$0) } }
        }
        await stack.close()
    }

    @Test("a transform converts a field whose stored value the new type cannot read: it arrives with its default")
    func convertsUnreadableFields() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("tasks.sqlite")
        try await makeStore(path, [
            { $0.title = "a"; $0.status = "finished"; $0.tags = "x,y"; $0.due = nil },
            // "open" is an enum case already, "[]" JSON already: they arrive as stored.
            { $0.title = "b"; $0.status = "open"; $0.tags = "[]"; $0.due = 7 },
        ])
        let seen = Locked<[String: [String]]>([:])
        let step = MigrationStep(
            from: "V1", to: "V2",
            .transform(TransformV2.Task.self) { old, task in
                let title: String = try old.value("title")
                seen.withLock { $0[title] = ["\(task.status)", "\(task.tags)", "\(task.due)"] }
                if task.status == .open, try old.value("status") as String == "finished" { task.status = .done }
                let tags: String = try old.value("tags")
                if task.tags.isEmpty, tags != "[]" { task.tags = tags.split(separator: ",").map(String.init) }
                if (try old.value("due") as Int?) == nil { task.due = -1 }
            })
        let stack = try await DataStack(SchemaHistory(v1, v2, steps: [step]), storage: SQLiteStore(path: path))
        let tasks = try await stack.fetchAll(From<TransformV2.Task>().orderBy(.ascending(\.title)))
        #expect(tasks.map(\.status) == [.done, .open])
        #expect(tasks.map(\.tags) == [["x", "y"], []])
        #expect(tasks.map(\.due) == [-1, 7])
        // The unreadable values arrived as the fields' defaults; the readable ones as stored.
        #expect(seen.withLock { $0 } == ["a": ["open", "[]", "0"], "b": ["open", "[]", "7"]])
        await stack.close()
    }

    @Test("a transform that does not convert an unreadable value leaves the field's default, as for a new field")
    func unconvertedKeepsDefault() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("tasks.sqlite")
        try await makeStore(path, [{ $0.status = "finished" }])
        let step = MigrationStep(from: "V1", to: "V2", .transform(TransformV2.Task.self) { _, _ in })
        let stack = try await DataStack(SchemaHistory(v1, v2, steps: [step]), storage: SQLiteStore(path: path))
        #expect(try await stack.fetchAll(From<TransformV2.Task>()).map(\.status) == [.open])
        await stack.close()
    }
}
