// The probe's writer of a stack of two stores: each transaction writes to both, for the test of what a
// kill -9 during such commits leaves in each store.
import Foundation
import Strata

@Entity
struct StoresRecord {
    var step: Int = 0
    var half: Int = 0
}

/// The schema of the probe's two stores: records live in the default configuration and in "Other".
let storesProbeSchema = Schema("S1", StoresRecord.self)
    .configuration("Other", StoresRecord.self)
    .configuration(nil, StoresRecord.self)

/// The stack of the probe's two stores in `directory`.
func storesProbeStack(_ directory: String) async throws -> DataStack {
    // With the persistent history on: each store records its own changes in its own file.
    var configuration = DataStack.Configuration()
    configuration.history = HistoryOptions(contextName: "probe")
    return try await DataStack(
        storesProbeSchema,
        storages: [
            SQLiteStore(path: directory + "/main.sqlite"),
            SQLiteStore(path: directory + "/other.sqlite").configuration("Other"),
        ],
        configuration: configuration)
}

/// `strata-probe stores <directory> <count>`: commits `count` transactions, each creating two records
/// in each store; prints "committed <n>" after each.
func storesProbe(directory: String, count: Int) async throws {
    let stack = try await storesProbeStack(directory)
    for step in 0..<count {
        try await stack.perform { tx in
            for configuration in [nil, "Other"] as [String?] {
                for half in 0..<2 { _ = try tx.create(Into<StoresRecord>(configuration)) { $0.step = step; $0.half = half } }
            }
        }
        say("committed \(step + 1)")
    }
    await stack.close()
}
