import Foundation
import GRDB

/// Workload k for GRDB: each operation is one async `read` or `write` of the `DatabasePool`.
extension GRDBBench {
    func serve(_ load: ServerLoad, _ pool: DatabasePool) async throws -> Sample {
        let sample = try await ServerRun.measure(load, environment: environment) { operation in
            var rows = Checksum()
            switch operation {
            case .lookup(let id):
                guard let item = try await pool.read({ db in try Record.fetchOne(db, key: id) }) else {
                    throw RawError(description: "lookup of \(id) found nothing")
                }
                rows.addServerRow(item)
            case .range(let lower):
                let items = try await pool.read { db in
                    try Record.filter((lower...lower + 1).contains(Column("age"))).fetchAll(db)
                }
                for item in items { rows.addServerRow(item) }
            case .insert(let data):
                try await pool.write { db in
                    var record = Record(data)
                    try record.insert(db)
                }
            case .update(let id, let score):
                // The idiomatic read-modify-write, as Strata's `edit` does: fetch the record, change
                // it, write the changed columns.
                try await pool.write { db in
                    guard var record = try Record.fetchOne(db, key: id) else {
                        throw RawError(description: "no row \(id) to update")
                    }
                    try record.updateChanges(db) { $0.score = score }
                }
            }
            return rows
        }
        try await restoreServerRows(load, pool)
        return sample
    }

    /// Deletes the rows k inserted and gives the rows it updated their scores back.
    private func restoreServerRows(_ load: ServerLoad, _ pool: DatabasePool) async throws {
        let items = environment.dataset.items
        let rowCount = environment.rowCount
        try await pool.write { db in
            for id in load.updatedIDs {
                try Record.filter(key: id).updateAll(db, Column("score").set(to: items[Int(id) - 1].score))
            }
            _ = try Record.filter(Column("id") > rowCount).deleteAll(db)
        }
    }
}

extension Checksum {
    mutating func addServerRow(_ item: some GRDBItemRecord) {
        addServerRow(id: item.id ?? 0, age: item.age, created: item.created.timeIntervalSinceReferenceDate)
    }
}
