import Foundation

/// Workload l: imports into a `contact` table whose `key` is unique (`id`, `key`, `name`, `age`,
/// `score`).
///
/// - l1, ``uniqueImport``: ``ImportData``'s 40,000 sources into a fresh copy of a store holding 20,000
///   rows (``ImportFiles``), in one transaction: half of the sources name a stored key (the row takes
///   the source's values), half a new one (a row is inserted). Raw SQLite and GRDB upsert each source;
///   Strata runs its unique-import API.
/// - l2, ``batchUpsert``: the same, with Strata's batch upsert (raw SQLite and GRDB do what they do in
///   l1).
/// - l3, ``stream``: ``StreamedSources``' 1,000,000 rows, produced one at a time, inserted into an
///   empty store in transactions of 10,000, with the peak memory after the first 250,000 rows and at
///   the end.
enum ImportPart: Sendable {
    case uniqueImport
    case batchUpsert
    case stream

    /// Whether each round starts from a copy of the 20,000-row store (l1, l2), or from an empty one (l3).
    var startsFromStoredRows: Bool {
        self != .stream
    }
}

/// One source of an import (a `contact` row), as a decoded payload would hand it over: the key, and
/// the values.
struct ContactSource: Sendable {
    var key: String
    var name: String
    var age: Int
    var score: Double
}

extension Checksum {
    /// Adds one `contact` row, without its ID (each implementation assigns IDs its own way).
    mutating func addContact(key: String, name: String, age: Int, score: Double) {
        add(Self.hash(key), Self.hash(name), UInt64(bitPattern: Int64(age)), score.bitPattern)
    }
}

extension Sample {
    /// The sample of l1 or l2, with the time in the round's note.
    static func imported(sources: Int, _ elapsed: Double, _ checksum: Checksum, note: String? = nil) -> Sample {
        var sample = Sample(Metrics.importRate, Double(sources) / elapsed, checksum: checksum)
        sample.note = String(format: "%.0f ms", elapsed * 1000) + (note.map { ", " + $0 } ?? "")
        return sample
    }

    /// The sample of l3: the rate, and the peak memory growth by the checkpoint and by the end (when
    /// ``PeakMemory`` could measure them), with the time in the round's note.
    static func streamed(rows: Int, _ elapsed: Double, atCheckpoint: Double?, atEnd: Double?, _ checksum: Checksum) -> Sample {
        var values = [Metrics.streamRate: Double(rows) / elapsed]
        if let atCheckpoint, let atEnd {
            values[Metrics.streamMemoryAtCheckpoint] = atCheckpoint
            values[Metrics.streamMemory] = atEnd
            values[Metrics.streamMemoryRise] = atEnd - atCheckpoint
        }
        var sample = Sample(values: values, checksum: checksum)
        sample.note = String(format: "%.0f ms", elapsed * 1000)
        return sample
    }
}
