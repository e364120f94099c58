// The probe's history writer: one-row transactions recorded in the persistent history, for tests of
// the history across processes (a second writer, a kill -9 between or during commits).
import Foundation
import Strata

@Entity
struct HistoryRecord {
    var text: String = ""
    var step: Int = 0
}

/// `strata-probe history <path> <count> <author>`: commits `count` transactions, each creating one
/// record, recorded with `author`; prints "committed <n>" after each.
func historyProbe(path: String, count: Int, author: String) async throws {
    var configuration = DataStack.Configuration()
    configuration.history = HistoryOptions(contextName: "probe")
    let stack = try await DataStack(Schema("H1", HistoryRecord.self), storage: SQLiteStore(path: path), configuration: configuration)
    for step in 0..<count {
        try await stack.perform(author: author) { tx in
            _ = try tx.create(Into<HistoryRecord>()) { $0.text = "\(author) \(step)"; $0.step = step }
        }
        say("committed \(step + 1)")
    }
    await stack.close()
}
