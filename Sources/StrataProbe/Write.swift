// The probe's writer in another process, for tests of changes from other processes.
import Foundation
import Strata

/// `strata-probe write <path> <count>`: opens the store at `path` (the `ProbeItem` schema), commits
/// `count` objects one transaction each, closes the store and prints "wrote <count>".
func writeProbe(path: String, count: Int) async throws {
    let stack = try await DataStack(Schema("V1", ProbeItem.self), storage: SQLiteStore(path: path))
    for index in 0..<count {
        try await stack.perform { tx in
            _ = try tx.create(Into<ProbeItem>()) { $0.name = "written \(index)"; $0.age = index }
        }
    }
    await stack.close()
    say("wrote \(count)")
}
