// The probe's migration: a 100,000-row store at K1 migrated through K2 (a rename with a type change,
// which rebuilds the table, and an added field) to K3 (a transform of every object), for a test that
// kills the process in the middle.
import Foundation
import Strata

enum K1 {
    @Entity(name: "Item")
    struct Item {
        var name: String = ""
        var age: Int = 0
    }
}

enum K2 {
    @Entity(name: "Item")
    struct Item {
        var name: String = ""
        var years: Double = 0
        var note: String = "-"
    }
}

enum K3 {
    @Entity(name: "Item")
    struct Item {
        var name: String = ""
        var years: Double = 0
        var note: String = "-"
        var score: Int = 0
    }
}

let probeRows = 100_000

let probeHistory = SchemaHistory(
    Schema("K1", K1.Item.self), Schema("K2", K2.Item.self), Schema("K3", K3.Item.self),
    steps: [
        MigrationStep(from: "K1", to: "K2", .renameField("Item", from: "age", to: "years")),
        MigrationStep(from: "K2", to: "K3", .transform(K3.Item.self) { _, item in
            item.name = item.name.uppercased()
            item.score = Int(item.years) * 2
        }),
    ])

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))   // unbuffered, unlike print
}

/// `strata-probe migration make <path>`: makes the K1 store and prints "made <rows>".
/// `strata-probe migration run <path>`: migrates it, printing "progress <step> <rows done>" as it goes
/// and "migrated <version> <rows> <sum of scores>" at the end.
func migrationProbe(_ command: String, path: String) async throws {
    switch command {
    case "make":
        let stack = try await DataStack(Schema("K1", K1.Item.self), storage: SQLiteStore(path: path))
        try await stack.perform { tx in
            for index in 0..<probeRows {
                try tx.create(Into<K1.Item>()) { $0.name = "item \(index)"; $0.age = index % 1000 }
            }
        }
        say("made \(try await stack.fetchCount(From<K1.Item>()))")
        await stack.close()
    case "run":
        let progress = MigrationProgress()
        let reporter = Task {
            for await event in progress { say("progress \(event.stepIndex) \(event.completedRows)") }
        }
        let stack = try await DataStack(probeHistory, storage: SQLiteStore(path: path), progress: progress)
        await reporter.value
        let items = try await stack.fetchAll(From<K3.Item>())
        say("migrated \(stack.schema.version) \(items.count) \(items.reduce(0) { $0 + $1.score })")
        await stack.close()
    default:
        say("unknown migration command \(command)")
    }
}
