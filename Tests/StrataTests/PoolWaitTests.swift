import Foundation
import Synchronization
import Testing
@testable import Strata

/// Waiting for a connection: never while holding one across a user's await, always cancellable.
@Suite("Waiting for connections", .timeLimit(.minutes(1)))
struct PoolWaitTests {
    func stack(readers: Int = 1, batchFetches: Int = 4, rows: Int = 10) async throws -> DataStack {
        var configuration = DataStack.Configuration()
        configuration.maximumReaderCount = readers
        configuration.maximumConcurrentBatchFetches = batchFetches
        let stack = try await DataStack(coreSchema, configuration: configuration)
        try await stack.perform { tx in
            for index in 0..<rows { try tx.create(Into<CoreOwner>()) { $0.name = "owner \(index)" } }
        }
        return stack
    }

    @Test("reads inside a fetchBatches loop never wait for the stream, even with a pool of one reader")
    func nestedReadInBatches() async throws {
        let stack = try await stack(readers: 1)
        var seen = 0
        for try await batch in stack.fetchBatches(From<CoreOwner>().orderBy(.ascending(\.id)).tweak(.batchSize(3))) {
            seen += batch.count
            #expect(try await stack.fetchCount(From<CoreOwner>()) == 10)
            _ = try await stack.read { try $0.fetchAll(From<CoreOwner>().limit(1)) }
        }
        #expect(seen == 10)
    }

    @Test("slow batch consumers do not stall other reads, and a stream beyond the limit waits cancellably")
    func slowConsumers() async throws {
        let stack = try await stack(readers: 1, batchFetches: 2)
        let query = From<CoreOwner>().orderBy(.ascending(\.id)).tweak(.batchSize(2))
        // Two streams hold their connections between batches, as slow consumers would.
        var first = stack.fetchBatches(query).makeAsyncIterator()
        var second = stack.fetchBatches(query).makeAsyncIterator()
        #expect(try await first.next()?.count == 2)
        #expect(try await second.next()?.count == 2)
        #expect(try await stack.fetchCount(From<CoreOwner>()) == 10)
        // A third stream waits for one of them; cancelling its task ends the wait at once.
        let third = Task {
            var iterator = stack.fetchBatches(query).makeAsyncIterator()
            return try await iterator.next()
        }
        await stack.cursors.waitForWaiters()
        third.cancel()
        await #expect(throws: CancellationError.self) { try await third.value }
        #expect(stack.cursors.waiterCount == 0)
        // The held streams go on where they were.
        #expect(try await first.next()?.first?.name == "owner 2")
        #expect(try await second.next()?.first?.name == "owner 2")
    }

    @Test("a cancelled wait for a reader leaves the queue at once and throws CancellationError")
    func cancelledReaderWait() async throws {
        let stack = try await stack(readers: 1)
        let latch = Latch()
        let holder = Task { try await stack.read { _ in latch.hold() } }
        await latch.reached()
        let waiter = Task { try await stack.fetchCount(From<CoreOwner>()) }
        await stack.readers.waitForWaiters()
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(stack.readers.waiterCount == 0)
        latch.release()
        try await holder.value
        #expect(try await stack.fetchCount(From<CoreOwner>()) == 10)
    }

    @Test("a cancelled wait for the writer's turn leaves the queue at once and throws CancellationError")
    func cancelledWriterWait() async throws {
        let stack = try await stack(rows: 0)
        let latch = Latch()
        let holder = Task { try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "A" }; latch.hold() } }
        await latch.reached()
        let waiter = Task { try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "B" } } }
        await stack.writer.waitForTurnWaiters()
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(stack.writerWaiterCount == 0)
        latch.release()
        try await holder.value
        #expect(try await stack.fetchAll(From<CoreOwner>()).map(\.name) == ["A"])
    }

    @Test("a batch stream that is dropped early gives its connection back")
    func droppedStream() async throws {
        let stack = try await stack(batchFetches: 1)
        let query = From<CoreOwner>().orderBy(.ascending(\.id)).tweak(.batchSize(2))
        for _ in 0..<3 {
            for try await batch in stack.fetchBatches(query) {
                #expect(batch.count == 2)
                break
            }
        }
        // The connection came back each time (with a limit of one, a leak would make this wait forever).
        var count = 0
        for try await batch in stack.fetchBatches(query) { count += batch.count }
        #expect(count == 10)
    }

    @Test("waiter queues serve first come first served and skip waiters that left")
    func waiterQueue() {
        var queue = WaiterQueue<Int>()
        #expect(queue.popFirst() == nil)
        #expect(queue.isEmpty)
    }

    @Test("the cores the process may use are read from affinity lists and quotas")
    func processorCount() {
        #expect(ProcessorCount.count(cpuList: "0-3,8,10-11") == 7)
        #expect(ProcessorCount.count(cpuList: "0") == 1)
        #expect(ProcessorCount.count(cpuList: "\t0-1\n") == 2)
        #expect(ProcessorCount.count(cpuList: "x") == nil)
        #expect(ProcessorCount.count(quota: 150_000, period: 100_000) == 2)
        #expect(ProcessorCount.count(quota: -1, period: 100_000) == nil)
        #expect(ProcessorCount.count(quota: nil, period: 100_000) == nil)
        #expect(ProcessorCount.available >= 1)
        #expect(ProcessorCount.available <= ProcessInfo.processInfo.activeProcessorCount)
    }
}
