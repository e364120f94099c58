import Foundation
import Testing
@testable import Strata

/// The probe's history record (`strata-probe history`), declared alike so the stores match.
@Entity(name: "HistoryRecord")
struct ProbeHistoryRecord {
    var text: String = ""
    var step: Int = 0
}

let probeHistorySchema = Schema("H1", ProbeHistoryRecord.self)

/// A stack on the probe's store, recording history.
func makeProbeHistoryStack(_ path: String) async throws -> DataStack {
    var configuration = DataStack.Configuration()
    configuration.history = HistoryOptions(contextName: "tests")
    return try await DataStack(probeHistorySchema, storage: SQLiteStore(path: path), configuration: configuration)
}

@Suite("History updates", .timeLimit(.minutes(1)))
struct HistoryUpdatesTests {
    @Test("the stream delivers what is recorded after the token, then each new commit, and ends when the stack closes")
    func localStream() async throws {
        let (stack, _) = try await makeHistoryStack()
        try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "0" } }
        try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "1" } }
        let (seen, seenContinuation) = AsyncStream<HistoryToken>.makeStream()
        let reader = Task {
            var tokens: [HistoryToken] = []
            for try await transaction in stack.historyUpdates(after: HistoryToken(rawValue: 1)) {
                tokens.append(transaction.token)
                seenContinuation.yield(transaction.token)
            }
            seenContinuation.finish()
            return tokens
        }
        var seenTokens = seen.makeAsyncIterator()
        #expect(await seenTokens.next() == HistoryToken(rawValue: 2))
        for index in 2..<6 {
            try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "\(index)" } }
            #expect(await seenTokens.next() == HistoryToken(rawValue: Int64(index + 1)))
        }
        await stack.close()
        #expect(try await reader.value.map(\.rawValue) == [2, 3, 4, 5, 6])
    }

    @Test("an iteration that begins on a closed stack throws stackClosed, as a publisher's does; one under way ends")
    func closedStack() async throws {
        let (stack, _) = try await makeHistoryStack()
        try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "x" } }
        var running = stack.historyUpdates().makeAsyncIterator()
        #expect(try await running.next() != nil)
        await stack.close()
        #expect(try await running.next() == nil)
        var late = stack.historyUpdates().makeAsyncIterator()
        await expectStrataError(.stackClosed) { _ = try await late.next() }
        var publisher = stack.countPublisher(From<Person>()).makeAsyncIterator()
        await expectStrataError(.stackClosed) { _ = try await publisher.next() }
    }

    @Test("cancelling the iterating task ends the stream")
    func cancellation() async throws {
        let (stack, _) = try await makeHistoryStack()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let reader = Task {
            try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "x" } }
            var count = 0
            for try await _ in stack.historyUpdates() {
                count += 1
                startedContinuation.yield()
            }
            return count
        }
        var iterator = started.makeAsyncIterator()
        await iterator.next()
        reader.cancel()
        let result = await reader.result
        switch result {
        case .success(let count): #expect(count == 1)
        case .failure(let error): #expect(error is CancellationError)
        }
    }

    @Test("another process's commits arrive in the stream with this stack's, in token order, each once")
    func otherProcess() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("history.sqlite")
        let stack = try await makeProbeHistoryStack(path)
        let collector = Task {
            var seen: [HistoryTransaction] = []
            for try await transaction in stack.historyUpdates() {
                seen.append(transaction)
                if seen.count == 30 { break }
            }
            return seen
        }
        let probe = Task { try await runProbe(["history", path, "20", "probe"]) }
        for step in 0..<10 {
            try await stack.perform(author: "local") { tx in
                _ = try tx.create(Into<ProbeHistoryRecord>()) { $0.text = "local"; $0.step = step }
            }
        }
        let ran = try await probe.value
        #expect(ran.process.terminationStatus == 0, "\(ran.lines.suffix(3))")
        let seen = try await collector.value
        #expect(seen.map(\.token.rawValue) == Array(1...30))
        #expect(seen.filter { $0.author == "probe" }.count == 20)
        #expect(seen.filter { $0.author == "local" }.count == 10)
        #expect(Set(seen.filter { $0.author == "probe" }.map(\.contextName)) == ["probe"])
        let inserted = seen.flatMap { $0.changes.insertedIDs(ProbeHistoryRecord.self) }
        #expect(Set(inserted) == Set(try await stack.fetchIDs(From<ProbeHistoryRecord>())))
        await stack.close()
    }

    @Test("a consumer that stores its token resumes after a restart with nothing lost and nothing twice")
    func resumeAfterRestart() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("resume.sqlite")
        let first = try await runProbe(["history", path, "15", "probe"])
        #expect(first.process.terminationStatus == 0)
        // Session one: processes 10 transactions, storing the token after each.
        var stored = Data()
        var delivered: [Int64] = []
        do {
            let stack = try await makeProbeHistoryStack(path)
            for try await transaction in stack.historyUpdates() {
                delivered.append(try #require(transaction.token.rawValue))
                stored = try JSONEncoder().encode(transaction.token)
                if delivered.count == 10 { break }
            }
            await stack.close()
        }
        // Meanwhile another process commits more.
        let second = try await runProbe(["history", path, "12", "probe"])
        #expect(second.process.terminationStatus == 0)
        // Session two, in a new stack: resumes after the stored token.
        let stack = try await makeProbeHistoryStack(path)
        let token = try JSONDecoder().decode(HistoryToken.self, from: stored)
        for try await transaction in stack.historyUpdates(after: token) {
            delivered.append(try #require(transaction.token.rawValue))
            if delivered.count == 27 { break }
        }
        #expect(delivered == Array(1...27))
        #expect(try await stack.history(after: HistoryToken(rawValue: 27)).isEmpty)
        await stack.close()
    }
}

@Suite("History and other connections' change sets", .timeLimit(.minutes(1)))
struct HistoryExternalChangeTests {
    /// Two stacks on one file, recording history; the watch, not the hour-long poll, delivers changes.
    static func twoStacks(_ path: String) async throws -> (DataStack, DataStack) {
        var configuration = DataStack.Configuration()
        configuration.history = HistoryOptions()
        configuration.externalChangePollInterval = .seconds(3600)
        return (
            try await DataStack(testSchema, storage: SQLiteStore(path: path), configuration: configuration),
            try await DataStack(testSchema, storage: SQLiteStore(path: path), configuration: configuration))
    }

    @Test("with history on, another stack's commit reaches changes() as its exact change set, not an unknown one")
    func exactExternalChangeSets() async throws {
        let directory = try TemporaryDirectory()
        let (first, second) = try await Self.twoStacks(directory.path("shared.sqlite"))
        var changes = first.changes().makeAsyncIterator()
        let counter = try await second.perform { tx in try tx.create(Into<Counter>()) { $0.key = "k" }.id }
        var received = ChangeSet()
        while received.insertedIDs(Counter.self).isEmpty {
            let next = try #require(await changes.next())
            #expect(next.isExternal && !next.isUnknown, "an exact change set")
            received = next
        }
        #expect(received.insertedIDs(Counter.self) == [counter])
        #expect(received.changedEntityNames == ["Counter"])
        await first.close()
        await second.close()
    }

    @Test("with history on, another stack's commit to one entity costs a publisher of another entity nothing")
    func onlyConcernedPublishersFetch() async throws {
        let directory = try TemporaryDirectory()
        let (first, second) = try await Self.twoStacks(directory.path("shared.sqlite"))
        let people = first.listPublisher(From<Person>())
        let counters = first.countPublisher(From<Counter>())
        var peopleIterator = people.makeAsyncIterator()
        var countersIterator = counters.makeAsyncIterator()
        _ = try await peopleIterator.next()
        #expect(try await countersIterator.next() == 0)
        try await second.perform { tx in _ = try tx.create(Into<Counter>()) { $0.key = "x" } }
        // The counter publisher saw the other stack's commit, so it was dispatched to every observer.
        #expect(try await countersIterator.next() == 1)
        // (Without history the commit would be an unknown change, and every publisher would fetch again.)
        #expect(people.core.fetchCount == 1)
        #expect(counters.core.fetchCount == 2)
        await first.close()
        await second.close()
    }
}

@Suite("History: kill -9", .timeLimit(.minutes(3)))
struct HistoryKillTests {
    @Test("killing a writer never leaves data without its history or history without its data", arguments: [40, 150, 400])
    func killedWriter(after commits: Int) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("killed.sqlite")
        let killed = try await runProbe(["history", path, "100000", "probe"]) { line in line == "committed \(commits)" }
        #expect(killed.process.terminationReason == .uncaughtSignal, "the probe was not killed: \(killed.lines.suffix(3))")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
        let rows = try #require(Int(try storeValue(path, "SELECT count(*) FROM HistoryRecord") ?? ""))
        #expect(rows >= commits)
        #expect(try storeValue(path, "SELECT count(*) FROM strata_history") == "\(rows)")
        // Every row has its recorded insert, and every recorded insert its row.
        let stack = try await makeProbeHistoryStack(path)
        let recorded = try await stack.history().map { $0.changes.insertedIDs(ProbeHistoryRecord.self) }
        #expect(recorded.allSatisfy { $0.count == 1 })
        #expect(Set(recorded.flatMap { $0 }) == Set(try await stack.fetchIDs(From<ProbeHistoryRecord>())))
        // A new stack continues the history where the killed one stopped.
        try await stack.perform { tx in _ = try tx.create(Into<ProbeHistoryRecord>()) { $0.text = "after" } }
        #expect(try await stack.currentHistoryToken()?.rawValue == Int64(rows + 1))
        await stack.close()
    }
}
