import Foundation
import Observation
import Testing
@testable import Strata

@Suite("Object and count publishers", .timeLimit(.minutes(1)))
struct ObjectPublisherTests {
    @Test("an object publisher yields the current object, every change, then nil once it is deleted")
    func objectLifecycle() async throws {
        let (stack, _) = try await makeStack()
        let person = try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Ada" } }
        var iterator = stack.objectPublisher(person).makeAsyncIterator()
        #expect(try await iterator.next()??.name == "Ada")
        try await stack.perform { tx in try tx.edit(person) { $0.age = 37 } }
        #expect(try await iterator.next()??.age == 37)
        try await stack.perform { tx in try tx.delete(person) }
        let deleted = try await iterator.next()
        #expect(deleted != nil && deleted! == nil)
        #expect(try await iterator.next() == nil)
    }

    @Test("an object publisher that reported the deletion stops counting as active at once, its iterator still held")
    func finishedObjectPublisherInactive() async throws {
        let (stack, _) = try await makeStack()
        let person = try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Ada" } }
        var iterator = stack.objectPublisher(person).makeAsyncIterator()
        var fields = stack.objectPublisher(person.id, fields: \.name).makeAsyncIterator()
        #expect(try await iterator.next()??.name == "Ada")
        #expect(try await fields.next()?.object?.name == "Ada")
        #expect(stack.activeObservations == 2)
        try await stack.perform { tx in try tx.delete(person) }
        #expect(try await iterator.next() != nil)
        #expect(try await fields.next()?.object == nil)
        #expect(stack.activeObservations == 0)
        #expect(try await iterator.next() == nil)
        #expect(try await fields.next() == nil)
    }

    @Test("closing the stack ends the iterations of publishers waiting for a change, instead of leaving them waiting")
    func publishersEndOnClose() async throws {
        let (stack, directory) = try await makeStack(.file)
        defer { _ = directory }
        let person = try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Ada" } }
        let (started, signal) = AsyncStream<Void>.makeStream()
        let lists = Task {
            var count = 0
            for try await _ in stack.listPublisher(From<Person>()) { count += 1; signal.yield() }
            return count
        }
        let counts = Task {
            var count = 0
            for try await _ in stack.countPublisher(From<Person>()) { count += 1; signal.yield() }
            return count
        }
        let objects = Task {
            var count = 0
            for try await _ in stack.objectPublisher(person) { count += 1; signal.yield() }
            return count
        }
        var starts = started.makeAsyncIterator()
        for _ in 0..<3 { await starts.next() }
        await stack.close()
        #expect(try await lists.value == 1)
        #expect(try await counts.value == 1)
        #expect(try await objects.value == 1)
        #expect(stack.activeObservations == 0)
        // A publisher iterated after the close throws.
        await expectStrataError(.stackClosed) { for try await _ in stack.countPublisher(From<Person>()) {} }
    }

    @Test("an object that does not exist yields nil and ends")
    func missingObject() async throws {
        let (stack, _) = try await makeStack()
        var iterator = stack.objectPublisher(EntityID<Person>(rawValue: 42)).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first != nil && first! == nil)
        #expect(try await iterator.next() == nil)
    }

    @Test("an object publisher yields an edit that changed only a text's Unicode normalization")
    func normalizationOnlyEdit() async throws {
        let (stack, _) = try await makeStack()
        let person = try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "caf\u{E9}" } }
        var iterator = stack.objectPublisher(person).makeAsyncIterator()
        #expect(try await iterator.next()??.name.utf8.count == 5)
        // Equal to Swift's ==, two values to the store: before, the publisher kept the old bytes for good.
        try await stack.perform { tx in try tx.edit(person) { $0.name = "cafe\u{301}" } }
        #expect(try await iterator.next()??.name.utf8.count == 6)
        try await stack.perform { tx in try tx.edit(person) { $0.age = 3 } }
        #expect(try await iterator.next()??.age == 3)
    }

    @Test(
        "a list publisher yields an edit that changed only a text's Unicode normalization, as an update, merged or fetched whole",
        arguments: [false, true])
    func listNormalizationOnlyEdit(fetchedWhole: Bool) async throws {
        let (stack, _) = try await makeStack()
        let person = try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "caf\u{E9}" } }
        // A list with a limit is fetched whole after each commit that concerns it.
        let query = From<Person>().orderBy(.ascending(\.age))
        var iterator = stack.listPublisher(fetchedWhole ? query.limit(10) : query).makeAsyncIterator()
        #expect(try await iterator.next()?.items.first?.name.utf8.count == 5)
        // Before, the list kept the old bytes: its objects were == in Swift, so no snapshot was sent.
        try await stack.perform { tx in try tx.edit(person) { $0.name = "cafe\u{301}" } }
        let snapshot = try #require(try await iterator.next())
        #expect(snapshot.items.first?.name.utf8.count == 6)
        #expect(snapshot.diff?.updatedIDs == [person.id])
    }

    @Test("the fields variant yields only when chosen fields change, with the fields that did")
    func fieldsVariant() async throws {
        let (stack, _) = try await makeStack()
        let person = try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Ada" } }
        var iterator = stack.objectPublisher(person.id, fields: \.age, \.email).makeAsyncIterator()
        #expect(try await iterator.next()?.changedFields == [])
        try await stack.perform { tx in try tx.edit(person) { $0.name = "Not observed" } }
        try await stack.perform { tx in try tx.edit(person) { $0.age = 5; $0.email = "a@b.c" } }
        let change = try #require(try await iterator.next())
        #expect(change.changedFields == ["age", "email"])
        #expect(change.object?.name == "Not observed")
        try await stack.perform { tx in try tx.delete(person) }
        #expect(try await iterator.next()?.object == nil)
        #expect(try await iterator.next() == nil)
    }

    @Test("each iterator of a fields publisher counts changed fields from what it received; a late one starts empty")
    func fieldsPerIterator() async throws {
        let (stack, _) = try await makeStack()
        let person = try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Ada" } }
        let publisher = stack.objectPublisher(person.id, fields: \.name, \.age)
        var fast = publisher.makeAsyncIterator()
        var slow = publisher.makeAsyncIterator()
        #expect(try await fast.next()?.changedFields == [])
        #expect(try await slow.next()?.changedFields == [])
        try await stack.perform { tx in try tx.edit(person) { $0.name = "Grace" } }
        #expect(try await fast.next()?.changedFields == ["name"])
        try await stack.perform { tx in try tx.edit(person) { $0.age = 40 } }
        #expect(try await fast.next()?.changedFields == ["age"])
        // The slow iterator skipped the first snapshot: both edits are news to it.
        #expect(try await slow.next()?.changedFields == ["name", "age"])
        var late = publisher.makeAsyncIterator()
        let first = try #require(try await late.next())
        #expect(first.changedFields == [] && first.object?.age == 40)
    }

    @Test("a list iterator made after the publisher's first snapshots receives its first snapshot without a diff")
    func lateListIterator() async throws {
        let (stack, _) = try await makeStack()
        let publisher = stack.listPublisher(From<Person>().orderBy(.ascending(\.name)))
        var early = publisher.makeAsyncIterator()
        #expect(try await early.next()?.diff == nil)
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "X" } }
        #expect(try await early.next()?.diff?.insertedIDs.count == 1)
        var late = publisher.makeAsyncIterator()
        let first = try #require(try await late.next())
        #expect(first.diff == nil && first.items.map(\.name) == ["X"])
        // Its next one has a diff from that first one.
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Y" } }
        #expect(try await late.next()?.diff?.insertedIDs.count == 1)
    }

    @Test("a count publisher yields the count, then a new one after relevant commits")
    func countPublisher() async throws {
        let (stack, _) = try await makeStack()
        var iterator = stack.countPublisher(From<Person>().where(\.age >= 18)).makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.age = 30 } }
        #expect(try await iterator.next() == 1)
        // A commit that leaves the count as it is yields nothing; the next change comes through.
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.age = 3 } }
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.age = 40 } }
        #expect(try await iterator.next() == 2)
    }
}

@Suite("List publishers", .timeLimit(.minutes(1)))
struct ListPublisherTests {
    @Test("a list publisher delivers sections with names, items, IDs, counts and index paths")
    func sections() async throws {
        let stack = try await makeItemStack(sampleItems)
        let publisher = stack.listPublisher(
            From<Item>().sectionBy(\.flag) { $0 ? "Flagged" : "Plain" }.where(\.age > 20).orderBy(.ascending(\.name)))
        var iterator = publisher.makeAsyncIterator()
        let list = try #require(try await iterator.next())
        #expect(list.sections.map(\.id) == ["0", "1"])
        #expect(list.sections.map(\.name) == ["Plain", "Flagged"])
        #expect(list.sections[0].items.map(\.name) == ["Grace", "Margaret", "alan"])
        #expect(list.sections[1].items.map(\.name) == ["Ada", "Édith"])
        #expect(list.count == 5 && list.numberOfSections == 2)
        #expect(list[ListIndex(section: 1, item: 1)].name == "Édith")
        #expect(list.index(of: list.itemIDs[2]) == ListIndex(section: 0, item: 2))
        #expect(list.diff == nil)
    }

    @Test("sections stay contiguous with a case-insensitive order on the section field, and -0.0 is the section of 0.0")
    func sectionsContiguous() async throws {
        let stack = try await makeItemStack([
            ("b", 1, 0.0, nil, false), ("B", 2, -0.0, nil, false), ("b", 3, 0.0, nil, false), ("a", 4, 1.5, nil, false),
        ])
        var byName = stack.listPublisher(
            From<Item>().sectionBy(\.name).orderBy(.ascending(\.name, comparing: .caseInsensitive))).makeAsyncIterator()
        let names = try #require(try await byName.next())
        #expect(Set(names.sections.map(\.id)).count == names.sections.count, "section IDs are unique")
        #expect(names.sections.map(\.id) == ["B", "a", "b"])
        #expect(names.sections.map(\.items.count) == [1, 1, 2])
        var byScore = stack.listPublisher(From<Item>().sectionBy(\.score)).makeAsyncIterator()
        let scores = try #require(try await byScore.next())
        #expect(scores.sections.map(\.id) == ["0.0", "1.5"])
        #expect(scores.sections.map(\.items.count) == [3, 1])
        // A change keeps the diff exact.
        try await stack.perform { tx in try tx.create(Into<Item>()) { $0.name = "b"; $0.score = -0.0 } }
        let next = try #require(try await byScore.next())
        let diff = try #require(next.diff)
        #expect(scores.applying(diff) == next)
        #expect(next.sections.map(\.items.count) == [4, 1])
    }

    @Test("NULL and the empty text are two sections, with their own IDs and names")
    func nullAndEmptySections() async throws {
        let stack = try await makeItemStack([
            ("a", 1, 0, nil, false), ("b", 2, 0, "", false), ("c", 3, 0, "\u{0}x", false), ("d", 4, 0, "x", false),
        ])
        var iterator = stack.listPublisher(From<Item>().sectionBy(\.nickname)).makeAsyncIterator()
        let list = try #require(try await iterator.next())
        #expect(list.sections.map(\.id) == ["", "\u{0}", "\u{0}\u{0}x", "x"])
        #expect(list.sections.map(\.name) == [nil, "", "\u{0}x", "x"])
        #expect(list.sections.map { $0.items.map(\.name) } == [["a"], ["b"], ["c"], ["d"]])
        try await stack.perform { tx in try tx.create(Into<Item>()) { $0.name = "e"; $0.nickname = "" } }
        let next = try #require(try await iterator.next())
        #expect(next.sections.map(\.items.count) == [1, 2, 1, 1])
        #expect(list.applying(try #require(next.diff)) == next)
    }

    @Test("section values that differ only in their Unicode normalization are two sections, in snapshots and diffs")
    func normalizationSections() async throws {
        // "café" decomposed sorts first (e + U+0301) and composed next (U+00E9): SQLite tells them apart.
        let stack = try await makeItemStack([("a", 1, 0, "cafe\u{301}", false), ("b", 2, 0, "caf\u{E9}", false)])
        var iterator = stack.listPublisher(From<Item>().sectionBy(\.nickname).orderBy(.ascending(\.name))).makeAsyncIterator()
        let list = try #require(try await iterator.next())
        #expect(list.sections.map(\.id.utf8.count) == [6, 5])
        #expect(list.sections.map { $0.items.map(\.name) } == [["a"], ["b"]])
        try await stack.perform { tx in try tx.create(Into<Item>()) { $0.name = "c"; $0.nickname = "caf\u{E9}" } }
        let next = try #require(try await iterator.next())
        #expect(next.sections.map { $0.items.map(\.name) } == [["a"], ["b", "c"]])
        let diff = try #require(next.diff)
        #expect(diff.insertedIDs.count == 1 && diff.insertedSections.isEmpty)
        let applied = try #require(list.applying(diff))
        #expect(applied.sections.map { $0.items.map(\.name) } == [["a"], ["b", "c"]])
        #expect(applied.sections.map(\.id.utf8.count) == [6, 5])
        // Moving "a" to the composed section removes the decomposed one.
        let a = try #require(next.items.first)
        try await stack.perform { tx in try tx.edit(a) { $0.nickname = "caf\u{E9}" } }
        let last = try #require(try await iterator.next())
        #expect(last.sections.map { $0.items.map(\.name) } == [["a", "b", "c"]])
        #expect(last.sections.map(\.id.utf8.count) == [5])
        #expect(try #require(last.diff).deletedSections.map(\.utf8.count) == [6])
        #expect(next.applying(try #require(last.diff)) == last)
    }

    @Test("each snapshot's diff leads from the previous snapshot to it, and names what changed")
    func diffs() async throws {
        let stack = try await makeItemStack(sampleItems)
        var iterator = stack.listPublisher(From<Item>().sectionBy(\.flag).orderBy(.ascending(\.age))).makeAsyncIterator()
        let first = try #require(try await iterator.next())
        let linus = try #require(first.items.first { $0.name == "Linus" })
        let grace = try #require(first.items.first { $0.name == "Grace" })
        let ada = try #require(first.items.first { $0.name == "Ada" })
        let new = try await stack.perform { tx in
            try tx.edit(linus) { $0.age = 99 }                 // moves within its section
            try tx.edit(grace) { $0.flag = true }              // moves to another section
            try tx.delete(ada)
            return try tx.create(Into<Item>()) { $0.name = "New"; $0.age = 1 }
        }
        let second = try #require(try await iterator.next())
        let diff = try #require(second.diff)
        #expect(first.applying(diff) == second)
        #expect(diff.insertedIDs == [new.id])
        #expect(diff.deletedIDs == [ada.id])
        #expect(diff.updatedIDs == [linus.id, grace.id])
        // Linus (new age, last of his section) and Grace (other section) move; nobody else does.
        #expect(diff.movedIDs == [linus.id, grace.id])
        for move in diff.moves {
            #expect(move.from == first.index(of: move.id) && move.to == second.index(of: move.id))
        }
        #expect(diff.moves.first { $0.id == linus.id }?.to == ListIndex(section: 1, item: 2))
        #expect(diff.moves.first { $0.id == grace.id }?.from == ListIndex(section: 0, item: 2))
        #expect(diff.moves.first { $0.id == grace.id }?.to == ListIndex(section: 1, item: 0))
    }

    @Test("an unchanged object passed by others is not a move; a changed sort key that keeps the place is not")
    func moveMinimality() async throws {
        let stack = try await makeItemStack([("a", 1, 1, nil, false), ("b", 2, 2, nil, false), ("c", 3, 3, nil, false)])
        var iterator = stack.listPublisher(From<Item>().orderBy(.ascending(\.age))).makeAsyncIterator()
        let first = try #require(try await iterator.next())
        try await stack.perform { tx in
            let a = try #require(try tx.fetchOne(From<Item>().where(\.name == "a")))
            let b = try #require(try tx.fetchOne(From<Item>().where(\.name == "b")))
            try tx.edit(a) { $0.age = 10 }       // a: first → last
            try tx.edit(b) { $0.age = 0 }        // b: new age, still first of the others
        }
        let second = try #require(try await iterator.next())
        let diff = try #require(second.diff)
        #expect(second.items.map(\.name) == ["b", "c", "a"])
        #expect(first.applying(diff) == second)
        #expect(diff.moves.map(\.id) == [first.items[0].id])
        #expect(diff.moves.first?.from == ListIndex(section: 0, item: 0))
        #expect(diff.moves.first?.to == ListIndex(section: 0, item: 2))
        #expect(diff.updatedIDs == [first.items[0].id, first.items[1].id])
    }

    @Test("random commits: every diff applied to the previous snapshot gives the next, which matches the store",
          .timeLimit(.minutes(1)))
    func randomizedDiffs() async throws {
        var rng = SeededGenerator(state: 2026)
        let stack = try await makeItemStack([])
        let from = From<Item>().sectionBy(\.age).where(\.score < 8).orderBy(.descending(\.name))
        var iterator = stack.listPublisher(from).makeAsyncIterator()
        var previous = try #require(try await iterator.next())
        var movesSeen = 0
        for round in 0..<60 {
            let seed = rng.next()
            try await stack.perform { tx in
                var local = SeededGenerator(state: seed)
                let existing = try tx.fetchAll(From<Item>())
                for _ in 0..<Int.random(in: 1...4, using: &local) {
                    switch Int.random(in: 0..<4, using: &local) {
                    case 0, 1:
                        try tx.create(Into<Item>()) {
                            $0.name = ["a", "b", "c", "d", "e"].randomElement(using: &local)!
                            $0.age = Int.random(in: 0...3, using: &local)
                            $0.score = Double(Int.random(in: 0...10, using: &local))
                        }
                    case 2:
                        if let victim = existing.randomElement(using: &local) { try tx.delete(victim) }
                    default:
                        if let target = existing.randomElement(using: &local) {
                            _ = try? tx.edit(target) {
                                $0.age = Int.random(in: 0...3, using: &local)
                                $0.score = Double(Int.random(in: 0...10, using: &local))
                                $0.name = ["a", "b", "c", "d", "e"].randomElement(using: &local)!
                            }
                        }
                    }
                }
            }
            let expected = try await stack.fetchAll(
                From<Item>().where(\.score < 8).orderBy(.ascending(\.age) + .descending(\.name) + .ascending(\.id)))
            // Pull snapshots until the publisher catches up with this commit; check every diff on the way.
            while previous.items != expected {
                let next = try #require(try await iterator.next())
                let diff = try #require(next.diff, "round \(round)")
                #expect(previous.applying(diff) == next, "round \(round)")
                checkMoves(diff, from: previous, to: next, round: round)
                movesSeen += diff.moves.count
                #expect(next.sections.allSatisfy { section in section.items.allSatisfy { String($0.age) == section.id } })
                previous = next
            }
        }
        #expect(movesSeen > 10)
    }

    /// Each move names the object's old and new position; an object whose section changed moves; the
    /// objects in both snapshots that do not move keep their relative order.
    private func checkMoves(_ diff: ListDiff<Item>, from old: ListSnapshot<Item>, to new: ListSnapshot<Item>, round: Int) {
        let moved = diff.movedIDs
        for move in diff.moves {
            #expect(old[move.from].id == move.id && new[move.to].id == move.id, "round \(round)")
        }
        let newIDs = Set(new.itemIDs)
        let oldIDs = Set(old.itemIDs)
        let stayingOld = old.itemIDs.filter { newIDs.contains($0) && !moved.contains($0) }
        let stayingNew = new.itemIDs.filter { oldIDs.contains($0) && !moved.contains($0) }
        #expect(stayingOld == stayingNew, "round \(round)")
        for id in stayingNew {
            let from = old.index(of: id)!, to = new.index(of: id)!
            #expect(old.sections[from.section].id == new.sections[to.section].id, "round \(round)")
        }
    }

    @Test("a consumer that missed snapshots gets the newest with a diff from the one it saw", .timeLimit(.minutes(1)))
    func slowConsumerDiff() async throws {
        let stack = try await makeItemStack([("a", 1, 1, nil, false), ("b", 2, 2, nil, false)])
        let publisher = stack.listPublisher(From<Item>().orderBy(.ascending(\.name)))
        var slow = publisher.makeAsyncIterator()
        var fast = publisher.makeAsyncIterator()
        let seen = try #require(try await slow.next())
        _ = try await fast.next()
        // Two commits, each observed by the fast consumer alone: the slow one misses the snapshot between.
        try await stack.perform { tx in _ = try tx.create(Into<Item>()) { $0.name = "c" } }
        #expect(try await fast.next()?.items.map(\.name) == ["a", "b", "c"])
        try await stack.perform { tx in
            let a = try #require(try tx.fetchOne(From<Item>().where(\.name == "a")))
            try tx.delete(a)
        }
        let newest = try #require(try await fast.next())
        #expect(newest.items.map(\.name) == ["b", "c"])
        let caughtUp = try #require(try await slow.next())
        #expect(caughtUp == newest)
        let diff = try #require(caughtUp.diff)
        #expect(seen.applying(diff) == caughtUp)
        #expect(diff.insertedIDs.count == 1 && diff.deletedIDs.count == 1)
    }

    @Test("a one-row change in a long list re-reads only that row")
    func incremental() async throws {
        let stack = try await DataStack(itemSchema)
        try await stack.perform { tx in
            for index in 0..<2_000 { try tx.create(Into<Item>()) { $0.name = "n\(index)"; $0.age = index % 50 } }
        }
        let publisher = stack.listPublisher(From<Item>().orderBy(.ascending(\.age)))
        var iterator = publisher.makeAsyncIterator()
        let first = try #require(try await iterator.next())
        let target = first.items[10]
        try await stack.perform { tx in try tx.edit(target) { $0.age = 49 } }
        let second = try #require(try await iterator.next())
        #expect(second.diff?.updatedIDs == [target.id])
        let expected = try await stack.fetchIDs(From<Item>().orderBy(.ascending(\.age) + .ascending(\.id)))
        #expect(second.items.map(\.id) == expected)
        #expect(publisher.statistics.full == 1)
        #expect(publisher.statistics.incremental == 1)
    }

    @Test("a merged list snapshot holds the state its read sees, with the commits whose change sets have not reached the publisher")
    func mergedSnapshotHoldsReadState() async throws {
        let stack = try await DataStack(itemSchema)
        let (a, b) = try await stack.perform { tx in
            (try tx.create(Into<Item>()) { $0.name = "a"; $0.age = 1 }, try tx.create(Into<Item>()) { $0.name = "b"; $0.age = 1 })
        }
        let engine = ListEngine(from: From<Item>().orderBy(.ascending(\.name)), graph: stack.store.graph)
        let log = stack.writer.commitLog
        let stores = stack.stores
        let readers = stack.readers
        func snapshot(_ previous: ListSnapshot<Item>?, _ changes: [ChangeSet]?) async throws -> ListSnapshot<Item> {
            try await readers.acquire().lease(returningTo: readers) { connection in
                try engine.snapshot(previous: previous, changes: changes, log: log, connection: connection, store: stores.current)
            }
        }
        let first = try await snapshot(nil, nil)
        try await stack.perform { tx in try tx.edit(a) { $0.age = 2 } }
        try await stack.perform { tx in try tx.edit(b) { $0.age = 2 } }
        // The publisher was told of a change, but no change set names a or b yet: the merge still
        // brings both to the state the read sees.
        let second = try await snapshot(first, [])
        #expect(second.items.map(\.age) == [2, 2])
        #expect(engine.statistics.incremental == 1 && engine.statistics.full == 1)
        #expect(second.diff?.updatedIDs == [a.id, b.id])
        await stack.close()
    }

    @Test("every list snapshot shows one committed state while commits land back to back")
    func listSnapshotsConsistentUnderCommits() async throws {
        let stack = try await DataStack(itemSchema)
        let ids = try await stack.perform { tx in
            try (0..<10).map { index in try tx.create(Into<Item>()) { $0.name = "n\(index)"; $0.age = 100 }.id }
        }
        let publisher = stack.listPublisher(From<Item>().orderBy(.ascending(\.name)))
        let (ready, started) = AsyncStream.makeStream(of: Void.self)
        let consumer = Task {
            var torn = 0
            var snapshots = 0
            for try await list in publisher {
                started.yield()
                snapshots += 1
                // Every transaction moves one unit of age from one item to another: the sum never changes.
                if list.items.reduce(0, { $0 + $1.age }) != 1_000 { torn += 1 }
                if list.items.contains(where: { $0.name == "end" }) { break }
            }
            return (torn, snapshots)
        }
        for await _ in ready { break }
        for step in 0..<300 {
            try await stack.perform { tx in
                try tx.edit(ids[step % 10]) { $0.age -= 1 }
                try tx.edit(ids[(step + 3) % 10]) { $0.age += 1 }
            }
        }
        try await stack.perform { tx in try tx.edit(ids[0]) { $0.name = "end" } }
        let (torn, snapshots) = try await consumer.value
        #expect(torn == 0, "\(torn) of \(snapshots) snapshots mixed two states")
        await stack.close()
    }
}

extension ListPublisherTests {
    @Test("a list that reads its own entity through a relationship refreshes when the related object of the same entity changes")
    func selfRelatedLists() async throws {
        let stack = try await DataStack(Schema("V1", TreeNode.self))
        let (root, child) = try await stack.perform { tx in
            let root = try tx.create(Into<TreeNode>()) { $0.name = "r" }
            let child = try tx.create(Into<TreeNode>()) { $0.name = "c1"; $0.parent = root.id }
            return (root, child)
        }
        var filtered = stack.listPublisher(From<TreeNode>().where(\.parent?.name == "root").orderBy(.ascending(\.name)))
            .makeAsyncIterator()
        var withChildren = stack.listPublisher(From<TreeNode>().where(.any(\.children, \.name == "kid")).orderBy(.ascending(\.name)))
            .makeAsyncIterator()
        var prefetched = stack.listPublisher(From<TreeNode>().prefetching(\.parent).orderBy(.ascending(\.name)))
            .makeAsyncIterator()
        #expect(try await filtered.next()?.items.isEmpty == true)
        #expect(try await withChildren.next()?.items.isEmpty == true)
        #expect(try await prefetched.next()?.items.map(\.name) == ["c1", "r"])
        // The root's rename changes the child's place in the first list and its parent in the third.
        try await stack.perform { tx in try tx.edit(root.id) { $0.name = "root" } }
        #expect(try await filtered.next()?.items.map(\.id) == [child.id])
        let renamed = try #require(try await prefetched.next())
        #expect(renamed.items.map(\.name) == ["c1", "root"])
        #expect(renamed.diff?.updatedIDs.contains(child.id) == true, "the child carries its prefetched parent")
        // The child's rename brings its parent into the second list.
        try await stack.perform { tx in try tx.edit(child.id) { $0.name = "kid" } }
        #expect(try await withChildren.next()?.items.map(\.id) == [root.id])
        await stack.close()
    }
}

@Suite("Observation under load", .timeLimit(.minutes(1)))
struct ObservationLoadTests {
    @Test("consumers of one publisher share one fetch per relevant commit")
    func sharedFetch() async throws {
        let (stack, _) = try await makeStack()
        let publisher = stack.countPublisher(From<Person>())
        var first = publisher.makeAsyncIterator()
        var second = publisher.makeAsyncIterator()
        #expect(try await first.next() == 0)
        #expect(try await second.next() == 0)
        try await stack.perform { tx in try tx.create(Into<Person>()) }
        #expect(try await first.next() == 1)
        #expect(try await second.next() == 1)
        #expect(publisher.core.fetchCount == 2)
    }

    @Test("a commit to another entity costs a publisher nothing")
    func irrelevantCommit() async throws {
        let (stack, _) = try await makeStack()
        let people = stack.listPublisher(From<Person>())
        let counters = stack.countPublisher(From<Counter>())
        var peopleIterator = people.makeAsyncIterator()
        var countersIterator = counters.makeAsyncIterator()
        _ = try await peopleIterator.next()
        _ = try await countersIterator.next()
        try await stack.perform { tx in try tx.create(Into<Counter>()) { $0.key = "x" } }
        // The counter publisher saw the commit, so it was dispatched to every observer by now.
        #expect(try await countersIterator.next() == 1)
        #expect(people.core.fetchCount == 1)
        #expect(counters.core.fetchCount == 2)
    }

    @Test("a slow consumer gets the newest snapshot, and bursts of commits are coalesced")
    func slowConsumerAndCoalescing() async throws {
        var configuration = DataStack.Configuration()
        configuration.maximumReaderCount = 1
        let (stack, _) = try await makeStack(configuration: configuration)
        let publisher = stack.countPublisher(From<Person>())
        var iterator = publisher.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        // Hold the only reader, so that the publisher's fetch waits while 20 commits land.
        let (holding, holdingContinuation) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let blocker = Task {
            try await stack.read { _ in
                holdingContinuation.yield()
                release.waitForTest()
            }
        }
        for await _ in holding { break }
        for _ in 0..<20 {
            try await stack.perform { tx in try tx.create(Into<Person>()) }
        }
        release.signal()
        try await blocker.value
        var latest = try #require(try await iterator.next())
        while latest < 20 { latest = try #require(try await iterator.next()) }
        #expect(latest == 20)
        // The first fetch, then one for the burst: it waited for the reader while the 20 commits landed
        // and read after all of them, so the change sets that reach the publisher after it started (all
        // but the first, in whatever order the dispatcher delivers them) start no fetch of their own.
        #expect(publisher.core.fetchCount == 2)
    }

    @Test("cancelling the consuming task ends the iteration and releases the publisher")
    func cancellation() async throws {
        let (stack, _) = try await makeStack()
        let publisher = stack.listPublisher(From<Person>())
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            var received = 0
            for try await _ in publisher {
                received += 1
                startedContinuation.yield()
            }
            return received
        }
        for await _ in started { break }
        #expect(stack.observation.observerCount == 1)
        #expect(stack.activeObservations == 1)
        consumer.cancel()
        #expect(try await consumer.value == 1)
        #expect(publisher.core.consumerCount == 0)
        #expect(!publisher.core.isActive)
        #expect(stack.observation.observerCount == 0)
        #expect(stack.activeObservations == 0)
    }

    @Test("a publisher nobody consumes does no work")
    func idlePublisher() async throws {
        let (stack, _) = try await makeStack()
        let publisher = stack.listPublisher(From<Person>())
        try await stack.perform { tx in try tx.create(Into<Person>()) }
        #expect(publisher.core.fetchCount == 0)
        #expect(stack.observation.observerCount == 0)
        #expect(stack.feed.subscriberCount == 0)
    }

    @Test("a commit by a second DataStack on the same file reaches the publishers")
    func externalChanges() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        var configuration = DataStack.Configuration()
        configuration.externalChangePollInterval = .milliseconds(10)
        let observed = try await DataStack(testSchema, storage: SQLiteStore(path: path), configuration: configuration)
        let other = try await DataStack(testSchema, storage: SQLiteStore(path: path))
        var iterator = observed.countPublisher(From<Person>()).makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        try await other.perform { tx in try tx.create(Into<Person>()) }
        #expect(try await iterator.next() == 1)
    }

    @Test("relationship changes reach a list filtered through the related entity")
    func relationshipDependencies() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let owner = try await stack.perform { tx in try tx.create(Into<Owner>()) { $0.name = "Ada" } }
        var iterator = stack.listPublisher(From<Owner>().where(.any(\.critters, \.age > 5))).makeAsyncIterator()
        #expect(try await iterator.next()?.isEmpty == true)
        let critter = try await stack.perform { tx in try tx.create(Into<Critter>()) { $0.age = 1; $0.owner = owner.id } }
        try await stack.perform { tx in try tx.edit(critter) { $0.age = 9 } }
        var list = try #require(try await iterator.next())
        while list.isEmpty { list = try #require(try await iterator.next()) }
        #expect(list.items.map(\.id) == [owner.id])
        #expect(list.items[0].oldest == 9)
    }
}

@Suite("Observable holders", .timeLimit(.minutes(1)))
@MainActor
struct ObservableStateTests {
    /// Waits until an observed property changes.
    func change(_ read: @escaping () -> Void) async {
        await withCheckedContinuation { continuation in
            withObservationTracking(read) { continuation.resume() }
        }
    }

    @Test("ListState and ObjectState keep the latest snapshots for UI code")
    func holders() async throws {
        let (stack, _) = try await makeStack()
        let person = try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Ada" } }
        let list = ListState(stack.listPublisher(From<Person>().orderBy(.ascending(\.name))))
        let object = ObjectState(stack.objectPublisher(person))
        while list.snapshot == nil { await change { _ = list.snapshot } }
        while object.object == nil { await change { _ = object.object } }
        #expect(list.snapshot?.items.map(\.name) == ["Ada"])
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Grace" } }
        while list.snapshot?.count != 2 { await change { _ = list.snapshot } }
        #expect(list.snapshot?.items.map(\.name) == ["Ada", "Grace"])
        try await stack.perform { tx in try tx.delete(person) }
        while !object.isDeleted { await change { _ = object.isDeleted } }
        #expect(object.object == nil)
        list.stop()
        object.stop()
    }
}
