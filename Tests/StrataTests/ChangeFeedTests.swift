import Foundation
import Testing
@testable import Strata

@Suite("Commit feed")
struct ChangeFeedTests {
    @Test("inserted IDs kept as runs behave like a set under random creations, deletions and lookups",
          arguments: [1, 2, 3] as [UInt64])
    func insertedRunsMatchSet(seed: UInt64) {
        var rng = SeededGenerator(state: seed)
        var changes = EntityChanges()
        var reference = Set<Int64>()
        for step in 0..<4_000 {
            // Mostly runs of consecutive IDs, as creations make, with deletions and stray IDs among them.
            let id: Int64 = step.isMultiple(of: 3) ? Int64.random(in: 1...300, using: &rng) : Int64(step / 10)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6:
                changes.recordInsert(id)
                reference.insert(id)
            case 6..<9:
                changes.recordDelete(id)
                reference.remove(id)
            default:
                #expect(changes.insertedRanges.contains(id) == reference.contains(id))
                #expect(changes.insertedCount == reference.count)
            }
        }
        #expect(changes.inserted == reference)
        #expect(changes.insertedCount == reference.count)
        // Equal sets have equal representations, whatever the order of insertion.
        var rebuilt = EntityChanges()
        for id in reference.shuffled(using: &rng) { rebuilt.recordInsert(id) }
        #expect(rebuilt.insertedRanges == changes.insertedRanges)
        // Consecutive IDs extend one open run; the result equals the same IDs recorded in any order.
        var consecutive = EntityChanges()
        for id in reference.sorted() { consecutive.recordInsert(id) }
        #expect(consecutive == rebuilt && consecutive.inserted == reference)
    }

    @Test("every commit publishes one change set with its inserted, updated and deleted IDs per entity")
    func oneChangeSetPerCommit() async throws {
        let (stack, _) = try await makeStack()
        let feed = stack.changeSets()
        let (person, pet) = try await stack.perform { tx in
            let person = try tx.create(Into<Person>()) { $0.name = "Ada" }
            let pet = try tx.create(Into<Pet>()) { $0.ownerID = person.id }
            return (person, pet)
        }
        try await stack.perform { tx in
            try tx.edit(person) { $0.age = 3 }
            try tx.delete(pet)
        }
        // A transaction that changes nothing publishes nothing.
        try await stack.perform { tx in _ = try tx.fetchAll(From<Person>()) }
        try await stack.perform { tx in try tx.edit(person) { $0.name = "Grace" } }

        var iterator = feed.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.changedEntityNames == ["Person", "Animal"])
        #expect(first.insertedIDs(Person.self) == [person.id])
        #expect(first.insertedIDs(Pet.self) == [pet.id])
        let second = try #require(await iterator.next())
        #expect(second.updatedIDs(Person.self) == [person.id])
        #expect(second.changedFields(of: person.id) == ["age"])
        #expect(second.deletedIDs(Pet.self) == [pet.id])
        let third = try #require(await iterator.next())
        #expect(third.changedFields(of: person.id) == ["name"])
    }

    @Test("a rolled-back transaction publishes nothing")
    func rollbackPublishesNothing() async throws {
        let (stack, _) = try await makeStack()
        let feed = stack.changeSets()
        _ = try? await stack.perform { tx in
            try tx.create(Into<Person>())
            try tx.cancel()
        }
        let marker = try await stack.perform { tx in try tx.create(Into<Counter>()) { $0.key = "marker" } }
        var iterator = feed.makeAsyncIterator()
        let next = try #require(await iterator.next())
        #expect(next.changedEntityNames == ["Counter"])
        #expect(next.insertedIDs(Counter.self) == [marker.id])
    }

    @Test("a subscriber that stops iterating is removed from the feed")
    func subscriberRemoved() async throws {
        let (stack, _) = try await makeStack()
        do {
            let stream = stack.changeSets()
            #expect(stack.feed.subscriberCount == 1)
            _ = stream
        }
        #expect(stack.feed.subscriberCount == 0)
    }

    @Test("a changes() sequence kept in a variable ends when its loop breaks: the subscription and the watch end")
    func keptSequenceEndsWhenItsLoopBreaks() async throws {
        let (stack, _) = try await makeStack(.file)
        let changes = stack.changes()
        #expect(stack.activeObservations == 1)
        try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "Ada" } }
        for await first in changes {
            #expect(first.insertedIDs(Person.self).count == 1)
            break
        }
        #expect(stack.activeObservations == 0)
        #expect(stack.feed.subscriberCount == 0)
        withExtendedLifetime(changes) {}
        await stack.close()
    }
}
