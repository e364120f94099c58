import Foundation
import Testing
@testable import Strata

// Entities of the import edge cases: contacts keyed by an optional email; categories that import their
// parent by its key from their own import code; portfolios whose derived total sums upserted rates.

struct ContactSource: Sendable {
    let email: String?
    let name: String
}

@Entity struct OptionalKeyContact {
    @Field(.unique) var email: String?
    var name: String = ""
}

extension OptionalKeyContact: ImportableUniqueObject {
    static var uniqueIDKeyPath: WritableKeyPath<OptionalKeyContact, String?> { \.email }

    /// A missing email is `.some(nil)`: the key type is `String?`.
    static func uniqueID(from source: ContactSource, in transaction: Transaction) -> String?? { .some(source.email) }

    mutating func update(from source: ContactSource, in transaction: Transaction) { name = source.name }
}

struct CategorySource: Sendable {
    let slug: String
    let parent: String?
}

@Entity struct ImportedCategory {
    @Field(.unique) var slug: String = ""
    var uses: Int = 0
    @Relationship var parent: ImportedCategory.ID?
    @Relationship(inverse: \ImportedCategory.parent) var children: Set<ImportedCategory.ID> = []
}

extension ImportedCategory: ImportableUniqueObject {
    static var uniqueIDKeyPath: WritableKeyPath<ImportedCategory, String> { \.slug }

    static func uniqueID(from source: CategorySource, in transaction: Transaction) -> String? { source.slug }

    mutating func didInsert(from source: CategorySource, in transaction: Transaction) throws {
        try update(from: source, in: transaction)
    }

    /// Counts each import of the category, its parent's included: the parent is imported by its key from
    /// here, so an import of a child writes its parent first.
    mutating func update(from source: CategorySource, in transaction: Transaction) throws {
        uses += 1
        if let key = source.parent {
            parent = try transaction.importUniqueObject(Into<ImportedCategory>(), from: CategorySource(slug: key, parent: nil))?.id
        }
    }
}

@Entity struct Portfolio {
    var name: String = ""
    @Relationship var holdings: Set<Rate.ID> = []
    @Derived(sum: \Rate.value, over: \Portfolio.holdings) var total: Double = 0
}

/// Readings keyed by a measured value: a NaN key is refused naming its source.
@Entity struct KeyedReading {
    @Field(.unique) var value: Double = 0
    var label: String = ""
}

extension KeyedReading: ImportableUniqueObject {
    static var uniqueIDKeyPath: WritableKeyPath<KeyedReading, Double> { \.value }
    static func uniqueID(from source: Double, in transaction: Transaction) -> Double? { source }
    mutating func update(from source: Double, in transaction: Transaction) { label = "\(source)" }
}

let importEdgeSchema = Schema(
    "V1", OptionalKeyContact.self, ImportedCategory.self, Portfolio.self, Rate.self, ImportedAuthor.self, KeyedReading.self)

@Suite("Importing: edge cases", .timeLimit(.minutes(1)))
struct ImportEdgeTests {
    @Test("a source whose optional key is nil is skipped, never matched with the objects that have no key")
    func nilOptionalKey() async throws {
        let stack = try await DataStack(importEdgeSchema)
        try await stack.perform { tx in
            try tx.create(Into<OptionalKeyContact>()) { $0.name = "Ann" }
            try tx.create(Into<OptionalKeyContact>()) { $0.name = "Bob" }
            try tx.create(Into<OptionalKeyContact>()) { $0.email = "cy@example.com"; $0.name = "Cy" }
        }
        let result = try await stack.perform { tx in
            try tx.importUniqueObjects(Into<OptionalKeyContact>(), from: [
                ContactSource(email: nil, name: "Dee"), ContactSource(email: nil, name: "Eve"),
                ContactSource(email: "cy@example.com", name: "Cyd"),
            ])
        }
        // Before, both sources matched "every object without an email": Bob (or Ann) became "Eve".
        #expect(result.skipped == 2 && result.superseded == 0 && result.updated.count == 1)
        let names = try await stack.fetchAll(From<OptionalKeyContact>().orderBy(.ascending(\.name))).map(\.name)
        #expect(names == ["Ann", "Bob", "Cyd"])
        // uniqueIDs leaves NULL out too: before, it matched every object without an email.
        let ids = try await stack.perform { tx in try tx.uniqueIDs(OptionalKeyContact.self, \.email, for: [nil, "cy@example.com"]) }
        #expect(ids.count == 1 && ids["cy@example.com"] != nil)
    }

    @Test("a unique import whose code imports other sources of the same entity sees what they wrote")
    func nestedImportOfTheSameEntity() async throws {
        let stack = try await DataStack(importEdgeSchema)
        // The child names its parent, which comes later in the same call and does not exist yet: the
        // child's code creates it; the parent's own source then updates it. Before, the parent's source
        // was created a second time (a unique constraint error for the whole call).
        let result = try await stack.perform { tx in
            try tx.importUniqueObjects(Into<ImportedCategory>(), from: [
                CategorySource(slug: "tea", parent: "drinks"), CategorySource(slug: "drinks", parent: nil),
            ])
        }
        #expect(result.insertedIDs.count == 1 && result.updated.count == 1)
        var categories = try await stack.fetchAll(From<ImportedCategory>().orderBy(.ascending(\.slug)))
        #expect(categories.map(\.slug) == ["drinks", "tea"])
        #expect(categories.map(\.uses) == [2, 1])
        #expect(categories[1].parent == categories[0].id && categories[0].children == [categories[1].id])
        // Both exist now: each import of the parent counts, the nested ones included. Before, the
        // parent's own source updated the copy read before the children's imports and lost their counts.
        try await stack.perform { tx in
            _ = try tx.importUniqueObjects(Into<ImportedCategory>(), from: [
                CategorySource(slug: "tea", parent: "drinks"), CategorySource(slug: "coffee", parent: "drinks"),
                CategorySource(slug: "drinks", parent: nil),
            ])
        }
        categories = try await stack.fetchAll(From<ImportedCategory>().orderBy(.ascending(\.slug)))
        #expect(categories.map(\.slug) == ["coffee", "drinks", "tea"])
        #expect(categories.map(\.uses) == [1, 5, 2])
        #expect(categories[1].children == [categories[0].id, categories[2].id])
    }

    @Test("an upsert that changes a value updates the objects whose derived fields sum it, for observers and the change set")
    func upsertUpdatesDerivedOwners() async throws {
        let stack = try await DataStack(importEdgeSchema)
        let portfolio = try await stack.perform { tx in
            let rates = try ["EUR", "USD"].map { code in try tx.create(Into<Rate>()) { $0.code = code; $0.value = 1 }.id }
            return try tx.create(Into<Portfolio>()) { $0.name = "P"; $0.holdings = Set(rates) }.id
        }
        var watched = stack.objectPublisher(portfolio).makeAsyncIterator()
        #expect(try await watched.next()??.total == 2)
        let changes = try await stack.perform { tx in
            _ = try tx.upsertAll(Into<Rate>(), from: [("EUR", 1.5)], uniqueBy: \.code, policy: .update(\.value)) { source, rate in
                rate.code = source.0
                rate.value = source.1
            }
            return tx.changeSet
        }
        // Before, only the rate was in the change set: the portfolio's publisher never saw its new total.
        #expect(changes.changedFields(of: portfolio) == ["total"])
        #expect(try await watched.next()??.total == 2.5)
    }

    @Test("an upsert of an existing row that writes nothing counts as unchanged; with keepExisting, as skipped; a chunked import sums them")
    func upsertUnchangedAndSkipped() async throws {
        let stack = try await DataStack(importEdgeSchema)
        let eur = try await stack.perform { tx in try tx.create(Into<Rate>()) { $0.code = "EUR"; $0.value = 0.9; $0.note = "n" }.id }
        let upsert: @Sendable (UpsertPolicy<Rate>, [(String, Double)]) async throws -> (ImportResult<Rate>, ChangeSet) = { policy, feed in
            try await stack.perform { tx in
                let result = try tx.upsertAll(Into<Rate>(), from: feed, uniqueBy: \.code, policy: policy) { row, rate in
                    (rate.code, rate.value, rate.note) = (row.0, row.1, "n")
                }
                return (result, tx.changeSet)
            }
        }
        // Before, an existing row already holding the values counted as skipped, never as unchanged.
        let (same, changes) = try await upsert(.updateAll, [("EUR", 0.9), ("USD", 1)])
        #expect(same.unchanged == 1 && same.skipped == 0 && same.insertedIDs.count == 1 && same.updated.isEmpty)
        #expect(same.objects.isEmpty, "the batch calls return IDs")
        #expect(changes.updatedIDs(Rate.self).isEmpty)
        let (chosen, _) = try await upsert(.update(\.value), [("EUR", 0.9), ("USD", 2)])
        #expect(chosen.unchanged == 1 && chosen.skipped == 0 && chosen.updated.map(\.fields) == [["value"]])
        // A zero's sign is compared in SQL, where -0.0 equals 0.0: unchanged, the stored sign kept.
        try await stack.perform { tx in _ = try tx.edit(eur) { $0.value = 0 } }
        let (signed, _) = try await upsert(.update(\.value), [("EUR", -0.0)])
        #expect(signed.unchanged == 1 && signed.updated.isEmpty)
        #expect(try await stack.fetchExisting(eur)?.value.sign == .plus)
        // keepExisting writes no field: the source is skipped.
        let (kept, _) = try await upsert(.keepExisting, [("EUR", 5), ("GBP", 0.8)])
        #expect(kept.skipped == 1 && kept.unchanged == 0 && kept.insertedIDs.count == 1)
        // A chunked import's summary counts an unchanged update.
        let summary = try await stack.importUniqueObjects(
            Into<ImportedAuthor>(), from: [AuthorSource(key: "a", name: "A"), AuthorSource(key: "a", name: "A")].async, chunkSize: 1)
        #expect(summary == ImportSummary(sourcesRead: 2, chunksCommitted: 2, inserted: 1, unchanged: 1))
    }

    @Test("uniqueIDs of two keys that differ only in Unicode normalization, both stored, says so instead of blaming two stores")
    func uniqueIDsOfEquivalentKeys() async throws {
        let stack = try await DataStack(importEdgeSchema)
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        try await stack.perform { tx in
            try tx.create(Into<ImportedAuthor>()) { $0.key = composed }
            try tx.create(Into<ImportedAuthor>()) { $0.key = decomposed }
        }
        let error = await expectStrataError(.invalidArgument) {
            _ = try await stack.perform { tx in try tx.uniqueIDs(ImportedAuthor.self, \.key, for: [composed, decomposed]) }
        }
        #expect(error?.message.contains("Unicode normalization") == true, "\(String(describing: error))")
        #expect(error?.message.contains("two stores") == false)
        // One of them alone is found.
        let one = try await stack.perform { tx in try tx.uniqueIDs(ImportedAuthor.self, \.key, for: [decomposed]) }
        #expect(one.count == 1)
    }

    @Test("several tasks iterate one progress, each to the end with the final summary; a cancelled one stops alone")
    func progressWithSeveralConsumers() async throws {
        let stack = try await DataStack(importEdgeSchema)
        let progress = ImportProgress()
        let consume: @Sendable () async -> ImportSummary? = {
            var last: ImportSummary?
            for await summary in progress { last = summary }
            return last
        }
        let cancelled = Task { await consume() }
        cancelled.cancel()
        _ = await cancelled.value
        let first = Task { await consume() }
        let second = Task { await consume() }
        let sources = (0..<5).map { AuthorSource(key: "k\($0)", name: "N\($0)") }
        let summary = try await stack.importUniqueObjects(Into<ImportedAuthor>(), from: sources.async, chunkSize: 2, progress: progress)
        #expect(summary.inserted == 5)
        // Before, the consumers shared one stream: one of them took the last summary (or the process
        // trapped on two tasks awaiting it at once), and the cancelled one ended it for all.
        #expect(await first.value == summary)
        #expect(await second.value == summary)
        // A consumer that starts after the import gets the final summary, then the end.
        #expect(await consume() == summary)
    }

    @Test("a NaN unique ID is an ImportError naming its source, in one call and in a streamed import")
    func nanKey() async throws {
        let stack = try await DataStack(importEdgeSchema)
        let error = await #expect(throws: ImportError.self) {
            try await stack.perform { tx in try tx.importUniqueObjects(Into<KeyedReading>(), from: [1.0, .nan]) }
        }
        #expect(error?.sourceIndex == 1 && (error?.underlying as? StrataError)?.code == .invalidArgument)
        let streamed = await #expect(throws: ImportError.self) {
            try await stack.importUniqueObjects(Into<KeyedReading>(), from: [1.0, 2.0, .nan].async, chunkSize: 2)
        }
        #expect(streamed?.sourceIndex == 2 && streamed?.committed?.inserted == 2)
        #expect(try await stack.fetchCount(From<KeyedReading>()) == 2)
    }

    @Test("a streamed import refused for its chunk size leaves its progress to the corrected call")
    func refusedChunkSizeKeepsProgress() async throws {
        let stack = try await DataStack(importEdgeSchema)
        let progress = ImportProgress()
        let sources = [AuthorSource(key: "a", name: "A")]
        await expectStrataError(.invalidArgument) {
            try await stack.importUniqueObjects(Into<ImportedAuthor>(), from: sources.async, chunkSize: 0, progress: progress)
        }
        let summary = try await stack.importUniqueObjects(Into<ImportedAuthor>(), from: sources.async, chunkSize: 10, progress: progress)
        #expect(summary.inserted == 1)
    }
}

extension Array where Element: Sendable {
    /// The elements as an `AsyncSequence`, for the streamed imports.
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
