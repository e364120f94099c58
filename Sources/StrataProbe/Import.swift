// The probe's chunked import: 50,000 keyed sources in chunks of 1,000, for a test that kills the
// process between (or during) chunks.
import Foundation
import Strata

@Entity
struct ProbeRecord {
    @Field(.unique) var key: String = ""
    var value: Int = 0
}

struct ProbeRecordSource: Sendable {
    let key: String
    let value: Int
}

extension ProbeRecord: ImportableUniqueObject {
    static var uniqueIDKeyPath: WritableKeyPath<ProbeRecord, String> { \.key }

    static func uniqueID(from source: ProbeRecordSource, in transaction: Transaction) -> String? { source.key }

    mutating func update(from source: ProbeRecordSource, in transaction: Transaction) { value = source.value }
}

/// `strata-probe import <path>`: imports the sources into the store at `path`, printing "chunk <n>"
/// after each committed chunk and "imported <objects>" at the end.
func importProbe(path: String) async throws {
    let stack = try await DataStack(Schema("P1", ProbeRecord.self), storage: SQLiteStore(path: path))
    let sources = AsyncStream<ProbeRecordSource> { continuation in
        for index in 0..<50_000 { continuation.yield(ProbeRecordSource(key: "key \(index)", value: index)) }
        continuation.finish()
    }
    let progress = ImportProgress()
    let reporter = Task {
        for await summary in progress { say("chunk \(summary.chunksCommitted)") }
    }
    try await stack.importUniqueObjects(Into<ProbeRecord>(), from: sources, chunkSize: 1_000, progress: progress)
    await reporter.value
    say("imported \(try await stack.fetchCount(From<ProbeRecord>()))")
    await stack.close()
}
