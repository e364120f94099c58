import Foundation
import Testing
@testable import Strata

@Suite("Importing from a stream, in chunks", .timeLimit(.minutes(1)))
struct ImportStreamTests {
    /// An `AsyncStream` of author sources the test feeds by hand.
    func feed() -> (AsyncStream<AuthorSource>, AsyncStream<AuthorSource>.Continuation) {
        AsyncStream.makeStream(of: AuthorSource.self)
    }

    @Test("a stream imports in chunks, one transaction each, reporting a summary after each")
    func chunks() async throws {
        let stack = try await DataStack(importSchema)
        let (stream, continuation) = feed()
        for index in 0..<2_500 { continuation.yield(AuthorSource(key: "k\(index % 2_000)", name: "n\(index)")) }
        continuation.finish()
        let progress = ImportProgress()
        let watcher = Task { () -> [Int] in
            var committed: [Int] = []
            for await summary in progress { committed.append(summary.chunksCommitted) }
            return committed
        }
        let summary = try await stack.importUniqueObjects(Into<ImportedAuthor>(), from: stream, chunkSize: 1_000, progress: progress)
        #expect(summary.sourcesRead == 2_500 && summary.chunksCommitted == 3)
        #expect(summary.inserted == 2_000 && summary.updated == 500)
        let seen = await watcher.value
        #expect(seen.last == 3 && seen == seen.sorted())
        #expect(try await stack.fetchOne(From<ImportedAuthor>().where(\.key == "k0"))?.name == "n2000")
    }

    @Test("a chunk size or a batch size of .max means one chunk or one batch for everything, and reserves no memory for it")
    func unboundedSizes() async throws {
        let stack = try await DataStack(importSchema)
        let (stream, continuation) = feed()
        for index in 0..<3 { continuation.yield(AuthorSource(key: "k\(index)", name: "n\(index)")) }
        continuation.finish()
        let summary = try await stack.importUniqueObjects(Into<ImportedAuthor>(), from: stream, chunkSize: .max)
        #expect(summary.chunksCommitted == 1 && summary.inserted == 3)
        var batches: [[String]] = []
        for try await batch in stack.fetchBatches(From<ImportedAuthor>().orderBy(.ascending(\.key)).tweak(.batchSize(.max))) {
            batches.append(batch.map(\.key))
        }
        #expect(batches == [["k0", "k1", "k2"]])
    }

    @Test("a progress given to a second import is refused before anything is read; the first one's stays as it was")
    func progressReused() async throws {
        let stack = try await DataStack(importSchema)
        let progress = ImportProgress()
        let (first, firstFeed) = feed()
        for index in 0..<10 { firstFeed.yield(AuthorSource(key: "a\(index)", name: "first")) }
        firstFeed.finish()
        try await stack.importUniqueObjects(Into<ImportedAuthor>(), from: first, chunkSize: 4, progress: progress)
        #expect(progress.latest.chunksCommitted == 3)
        let (second, secondFeed) = feed()
        secondFeed.yield(AuthorSource(key: "b0", name: "second"))
        secondFeed.finish()
        // Before, the second import ran, and its progress reported nothing: the sequence had ended.
        let error = await expectStrataError(.invalidArgument) {
            try await stack.importUniqueObjects(Into<ImportedAuthor>(), from: second, chunkSize: 4, progress: progress)
        }
        #expect(error?.message.contains("new ImportProgress") == true)
        #expect(progress.latest.chunksCommitted == 3 && progress.latest.inserted == 10)
        #expect(try await stack.fetchCount(From<ImportedAuthor>()) == 10)
    }

    @Test("cancelling a chunked import keeps the committed chunks and nothing of the chunk in progress")
    func cancellation() async throws {
        let stack = try await DataStack(importSchema)
        let (stream, continuation) = feed()
        for index in 0..<1_500 { continuation.yield(AuthorSource(key: "k\(index)", name: "n")) }
        let progress = ImportProgress()
        let importing = Task {
            try await stack.importUniqueObjects(Into<ImportedAuthor>(), from: stream, chunkSize: 1_000, progress: progress)
        }
        for await summary in progress where summary.chunksCommitted == 1 { break }
        importing.cancel()
        await #expect(throws: CancellationError.self) { try await importing.value }
        #expect(try await stack.fetchCount(From<ImportedAuthor>()) == 1_000)
        // The progress still tells what stayed, without having been iterated to the end.
        #expect(progress.latest.chunksCommitted == 1 && progress.latest.inserted == 1_000)
        continuation.finish()
    }

    @Test("an error names its source's position in the whole stream; earlier chunks stay, its chunk does not")
    func errorsInLaterChunks() async throws {
        let stack = try await DataStack(importSchema)
        let (stream, continuation) = feed()
        for index in 0..<250 { continuation.yield(AuthorSource(key: "k\(index)", name: index == 230 ? "(fail)" : "n")) }
        continuation.finish()
        let progress = ImportProgress()
        let failure = await #expect(throws: ImportError.self) {
            try await stack.importUniqueObjects(Into<ImportedAuthor>(), from: stream, chunkSize: 100, progress: progress)
        }
        #expect(failure?.sourceIndex == 230)
        #expect(try await stack.fetchCount(From<ImportedAuthor>()) == 200)
        // The error tells what the earlier chunks committed, as the progress does.
        #expect(failure?.committed == ImportSummary(sourcesRead: 250, chunksCommitted: 2, inserted: 200))
        #expect(progress.latest == ImportSummary(sourcesRead: 200, chunksCommitted: 2, inserted: 200))
        #expect(failure?.description.contains("2 earlier chunks stay committed") == true)
        // An import in one transaction leaves nothing behind, and says no chunk stayed.
        let single = await #expect(throws: ImportError.self) {
            try await stack.perform { tx in
                try tx.importUniqueObjects(Into<ImportedAuthor>(), from: [AuthorSource(key: "z", name: "(fail)")])
            }
        }
        #expect(single != nil && single?.committed == nil)
        await expectStrataError(.invalidArgument) {
            try await stack.importUniqueObjects(Into<ImportedAuthor>(), from: feed().0, chunkSize: 0)
        }
    }

    @Test("insertAll from a stream of 100,000 values commits in chunks and counts what it did")
    func streamedInsert() async throws {
        let stack = try await DataStack(importSchema)
        let values = AsyncStream<Int> { continuation in
            for index in 0..<100_000 { continuation.yield(index) }
            continuation.finish()
        }
        let summary = try await stack.insertAll(Into<ImportedNote>(), from: values, chunkSize: 10_000) { index, note in
            note.text = "n\(index)"
        }
        #expect(summary.inserted == 100_000 && summary.chunksCommitted == 10)
        #expect(try await stack.fetchCount(From<ImportedNote>()) == 100_000)
        let plain = AsyncStream<NoteSource> { continuation in
            continuation.yield(NoteSource(text: "x"))
            continuation.yield(NoteSource(text: "y", skip: true))
            continuation.finish()
        }
        let notes = try await stack.importObjects(Into<ImportedNote>(), from: plain)
        #expect(notes.inserted == 1 && notes.skipped == 1)
    }
}

/// A chunked import killed with SIGKILL, in a process of its own (`StrataProbe`).
@Suite("Importing: kill -9", .timeLimit(.minutes(3)))
struct ImportKillTests {
    @Test("killing a chunked import keeps every committed chunk and nothing else; running it again completes it")
    func killedImport() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("import.sqlite")
        let killed = try await runProbe(["import", path]) { line in line == "chunk 3" }
        #expect(killed.process.terminationReason == .uncaughtSignal, "the probe was not killed: \(killed.lines.suffix(3))")
        let count = try #require(Int(try storeValue(path, "SELECT count(*) FROM ProbeRecord") ?? ""))
        #expect(count >= 3_000 && count < 50_000 && count % 1_000 == 0, "\(count) objects")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
        // Every committed object is whole: keys and values in step, the first `count` sources.
        #expect(try storeValue(path, "SELECT count(*) FROM ProbeRecord WHERE key != 'key ' || value") == "0")
        #expect(try storeValue(path, "SELECT max(value) FROM ProbeRecord") == "\(count - 1)")
        let finished = try await runProbe(["import", path])
        #expect(finished.process.terminationStatus == 0)
        #expect(finished.lines.last == "imported 50000")
    }
}
