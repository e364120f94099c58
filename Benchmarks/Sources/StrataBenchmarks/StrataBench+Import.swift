import Foundation
import Strata

/// Workload l for Strata: a `DataStack` opened on the round's store before the timer; the time is the
/// import's call.
///
/// - l1: `stack.perform { tx in try tx.importUniqueObjects(Into<Contact>(), from: sources) }`, the
///   unique-import API (``Contact``'s `ImportableUniqueObject` conformance).
/// - l2: `stack.perform { tx in try tx.upsertAll(Into<Contact>(), from: sources, uniqueBy: \.key) { … } }`,
///   the batch upsert (`INSERT … ON CONFLICT DO UPDATE` per source).
/// - l3: `stack.insertAll(Into<Contact>(), from: StreamedSources(…), chunkSize: 10_000) { … }`, one
///   transaction per chunk.
extension StrataBench {
    static let importSchema = Schema("V1", Contact.self)

    /// Makes the 20,000-row store of l1 and l2 once, closes it and seals it.
    func prepareImport() async throws {
        let path = ImportFiles.source(environment, "strata")
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let stack = try await DataStack(Self.importSchema, storage: SQLiteStore(path: path))
        let stored = environment.imports.stored
        try await stack.perform { tx in
            for source in stored {
                try tx.create(Into<Contact>()) {
                    $0.key = source.key
                    $0.name = source.name
                    $0.age = source.age
                    $0.score = source.score
                }
            }
        }
        await stack.close()
        try MigrationFiles.seal(path)
    }

    /// Runs one round of l, timed; then checksums the objects.
    func importContacts(_ workload: Workload, _ part: ImportPart, round: Int) async throws -> Sample {
        let path = try ImportFiles.round(environment, "strata", workload, round)
        defer { environment.remove(path) }
        let stack = try await DataStack(Self.importSchema, storage: SQLiteStore(path: path))
        let sample: Sample
        do {
            switch part {
            case .uniqueImport: sample = try await importUnique(stack)
            case .batchUpsert: sample = try await upsert(stack)
            case .stream: sample = try await stream(stack)
            }
        } catch {
            await stack.close()
            throw error
        }
        await stack.close()
        return sample
    }

    private func importUnique(_ stack: DataStack) async throws -> Sample {
        let sources = environment.imports.sources
        let start = nanoseconds()
        let result = try await stack.perform { tx in try tx.importUniqueObjects(Into<Contact>(), from: sources) }
        let elapsed = seconds(since: start)
        try Self.requireCounts(inserted: result.insertedIDs.count, updated: result.updated.count + result.unchanged)
        return .imported(
            sources: sources.count, elapsed, try await Self.contactChecksum(stack),
            note: "\(result.insertedIDs.count) inserted, \(result.updated.count) updated")
    }

    private func upsert(_ stack: DataStack) async throws -> Sample {
        let sources = environment.imports.sources
        let start = nanoseconds()
        let result = try await stack.perform { tx in
            try tx.upsertAll(Into<Contact>(), from: sources, uniqueBy: \.key) { source, contact in
                contact.key = source.key
                contact.name = source.name
                contact.age = source.age
                contact.score = source.score
            }
        }
        let elapsed = seconds(since: start)
        try Self.requireCounts(inserted: result.insertedIDs.count, updated: result.updated.count)
        return .imported(
            sources: sources.count, elapsed, try await Self.contactChecksum(stack),
            note: "\(result.insertedIDs.count) inserted, \(result.updated.count) updated")
    }

    /// Throws unless the import created a contact per new key and updated one per stored key.
    private static func requireCounts(inserted: Int, updated: Int) throws {
        let stored = ImportData.storedCount
        guard inserted == ImportData.sourceCount - stored, updated == stored else {
            throw RawError(description: "the import reports \(inserted) inserted and \(updated) updated")
        }
    }

    /// l3: the streamed rows, `chunkSize` per transaction.
    private func stream(_ stack: DataStack) async throws -> Sample {
        let atCheckpoint = Locked<Double?>(nil)
        let memory = PeakMemory.start()
        let sources = StreamedSources(count: StreamedSources.rowCount, checkpoint: StreamedSources.checkpointRow) {
            atCheckpoint.withLock { $0 = memory?.growth() }
        }
        let start = nanoseconds()
        let summary = try await stack.insertAll(Into<Contact>(), from: sources, chunkSize: StreamedSources.chunkSize) {
            source, contact in
            contact.key = source.key
            contact.name = source.name
            contact.age = source.age
            contact.score = source.score
        }
        let elapsed = seconds(since: start)
        let atEnd = memory?.growth()
        guard summary.inserted == sources.count else {
            throw RawError(description: "insertAll inserted \(summary.inserted) of \(sources.count) rows")
        }
        return .streamed(
            rows: sources.count, elapsed, atCheckpoint: atCheckpoint.withLock { $0 }, atEnd: atEnd,
            try await Self.contactChecksum(stack))
    }

    /// The checksum of the contacts, a batch of 10,000 at a time (l3's million are never held).
    private static func contactChecksum(_ stack: DataStack) async throws -> Checksum {
        var checksum = Checksum()
        for try await batch in stack.fetchBatches(From<Contact>().tweak(.batchSize(10_000))) {
            for contact in batch { checksum.add(contact) }
        }
        return checksum
    }
}
