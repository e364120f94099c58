import Foundation
import Testing
@testable import Strata

// Entities whose import code cancels the transaction when a source says so.

struct CancellingSource: Sendable {
    let key: String
    var cancels = false
}

@Entity struct CancellingRecord {
    @Field(.unique) var key: String = ""
    var imports: Int = 0
}

extension CancellingRecord: ImportableUniqueObject {
    static var uniqueIDKeyPath: WritableKeyPath<CancellingRecord, String> { \.key }

    static func uniqueID(from source: CancellingSource, in transaction: Transaction) -> String? { source.key }

    mutating func update(from source: CancellingSource, in transaction: Transaction) throws {
        if source.cancels { try transaction.cancel() }
        imports += 1
    }
}

@Entity struct CancellingNote {
    var text: String = ""
}

extension CancellingNote: ImportableObject {
    mutating func didInsert(from source: CancellingSource, in transaction: Transaction) throws {
        // A nested import that cancels: the cancellation passes through both imports.
        if source.cancels { try transaction.importUniqueObject(Into<CancellingRecord>(), from: source) }
        text = source.key
    }
}

@Suite("Importing: cancel() in import code", .timeLimit(.minutes(1)))
struct ImportCancelTests {
    static let schema = Schema("V1", CancellingRecord.self, CancellingNote.self)

    @Test("cancel() in an import's code makes perform throw transactionCancelled, not an ImportError, and keeps nothing")
    func cancelInImportCode() async throws {
        let stack = try await DataStack(Self.schema)
        try await stack.perform { tx in _ = try tx.create(Into<CancellingRecord>()) { $0.key = "old" } }
        // The update of an existing object cancels. Before, perform threw ImportError(underlying: transactionCancelled).
        await expectStrataError(.transactionCancelled) {
            try await stack.perform { tx in
                try tx.create(Into<CancellingRecord>()) { $0.key = "before" }
                return try tx.importUniqueObjects(Into<CancellingRecord>(), from: [
                    CancellingSource(key: "new"), CancellingSource(key: "old", cancels: true),
                ])
            }
        }
        // A plain import whose code imports another entity that cancels.
        await expectStrataError(.transactionCancelled) {
            try await stack.perform { tx in
                try tx.importObjects(Into<CancellingNote>(), from: [CancellingSource(key: "a"), CancellingSource(key: "b", cancels: true)])
            }
        }
        // insertAll's closure.
        await expectStrataError(.transactionCancelled) {
            try await stack.perform { tx in
                try tx.insertAll(Into<CancellingNote>(), from: ["x", "y"]) { text, note in
                    if text == "y" { try tx.cancel() }
                    note.text = text
                }
            }
        }
        // Caught inside the closure, the error is the bare cancellation, and the transaction stays cancelled.
        let caught = Locked<(any Error)?>(nil)
        await expectStrataError(.transactionCancelled) {
            try await stack.perform { tx in
                do {
                    try tx.importUniqueObject(Into<CancellingRecord>(), from: CancellingSource(key: "old", cancels: true))
                } catch {
                    caught.withLock { $0 = error }
                }
            }
        }
        #expect((caught.withLock { $0 } as? StrataError)?.code == .transactionCancelled)
        #expect(try await stack.fetchAll(From<CancellingRecord>()).map(\.key) == ["old"])
        #expect(try await stack.fetchOne(From<CancellingRecord>().where(\.key == "old"))?.imports == 0)
        #expect(try await stack.fetchCount(From<CancellingNote>()) == 0)
        await stack.close()
    }

    @Test("cancel() in a chunked import's code throws transactionCancelled; the chunks committed before stay, as the progress says")
    func cancelInChunkedImport() async throws {
        let stack = try await DataStack(Self.schema)
        let sources = (0..<5).map { CancellingSource(key: "k\($0)", cancels: $0 == 3) }
        let progress = ImportProgress()
        // Before, the import threw an ImportError naming source 3.
        await expectStrataError(.transactionCancelled) {
            try await stack.importUniqueObjects(Into<CancellingRecord>(), from: sources.async, chunkSize: 2, progress: progress)
        }
        #expect(try await stack.fetchAll(From<CancellingRecord>().orderBy(.ascending(\.key))).map(\.key) == ["k0", "k1"])
        #expect(progress.latest == ImportSummary(sourcesRead: 2, chunksCommitted: 1, inserted: 2))
        await stack.close()
    }
}
