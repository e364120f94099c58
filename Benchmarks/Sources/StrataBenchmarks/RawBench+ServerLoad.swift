import Foundation

/// Workload k for raw SQLite: the operations go to a ``RawServer``'s threads.
extension RawBench {
    func serve(_ load: ServerLoad) async throws -> Sample {
        let server = try RawServer(path: mainPath)
        let sample: Sample
        do {
            sample = try await ServerRun.measure(load, environment: environment) { operation in
                var rows = Checksum()
                switch operation {
                case .lookup(let id):
                    guard let item = try await server.perform({ try $0.lookup(id) }) else {
                        throw RawError(description: "lookup of \(id) found nothing")
                    }
                    rows.addServerRow(item)
                case .range(let lower):
                    for item in try await server.perform({ try $0.range(lower) }) { rows.addServerRow(item) }
                case .insert(let item):
                    try await server.perform { try $0.writer.insert(item) }
                case .update(let id, let score):
                    try await server.perform { try $0.writer.update(id: id, score: score) }
                }
                return rows
            }
        } catch {
            server.shutdown()
            throw error
        }
        server.shutdown()
        try restoreServerRows(load)
        return sample
    }

    /// Deletes the rows k inserted and gives the rows it updated their scores back, so every round
    /// starts from the same 100,000 rows.
    private func restoreServerRows(_ load: ServerLoad) throws {
        guard let writer else { throw RawError(description: "not set up") }
        let update = try writer.prepare(RawServerWriter.updateSQL)
        let items = environment.dataset.items
        try writer.execute("BEGIN IMMEDIATE")
        for id in load.updatedIDs {
            update.bind(items[Int(id) - 1].score, at: 1)
            update.bind(id, at: 2)
            try update.run()
        }
        try writer.execute("DELETE FROM item WHERE id > \(environment.rowCount)")
        try writer.execute("COMMIT")
    }
}

extension Checksum {
    mutating func addServerRow(_ item: RawItem) {
        addServerRow(id: item.id, age: item.age, created: item.created.timeIntervalSinceReferenceDate)
    }
}
