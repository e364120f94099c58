import Foundation
import Strata

/// Workload k for Strata, through the public API: `fetchExisting`, `fetchAll`, `perform`.
extension StrataBench {
    func serve(_ load: ServerLoad, _ stack: DataStack) async throws -> Sample {
        let sample = try await ServerRun.measure(load, environment: environment) { operation in
            var rows = Checksum()
            switch operation {
            case .lookup(let id):
                guard let item = try await stack.fetchExisting(Item.ID(rawValue: id)) else {
                    throw RawError(description: "lookup of \(id) found nothing")
                }
                rows.addServerRow(item)
            case .range(let lower):
                for item in try await stack.fetchAll(From<Item>().where(.between(\.age, lower...lower + 1))) {
                    rows.addServerRow(item)
                }
            case .insert(let data):
                try await stack.perform { tx in try Self.create(data, tx) }
            case .update(let id, let score):
                try await stack.perform { tx in
                    try tx.edit(Item.ID(rawValue: id)) { $0.score = score }
                }
            }
            return rows
        }
        try await restoreServerRows(load, stack)
        return sample
    }

    /// Deletes the rows k inserted and gives the rows it updated their scores back.
    private func restoreServerRows(_ load: ServerLoad, _ stack: DataStack) async throws {
        let items = environment.dataset.items
        let last = EntityID<Item>(rawValue: environment.rowCount)
        try await stack.perform { tx in
            for id in load.updatedIDs {
                let score = items[Int(id) - 1].score
                try tx.edit(Item.ID(rawValue: id)) { $0.score = score }
            }
            _ = try tx.deleteAll(From<Item>().where(\.id > last))
        }
    }
}

extension Checksum {
    mutating func addServerRow(_ item: Item) {
        addServerRow(id: item.id.rawValue, age: item.age, created: item.created.timeIntervalSinceReferenceDate)
    }
}
