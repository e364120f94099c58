import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing
@testable import Strata

/// The accesses beyond `perform` and the reader pool's reads: unsafe transactions, `fetchBatches`
/// cursors, read generations, cancelled waits for the writer and the active observations.
extension MetricsTracingTests {
    @Test("a transaction cancelled while it waits for the writer is counted as cancelled, and its wait recorded")
    func cancelledWhileWaiting() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack()
        let latch = Latch()
        let holder = Task { try await stack.perform { _ in latch.hold() } }
        await latch.reached()
        let waiter = Task { try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "B" } } }
        await stack.writer.waitForTurnWaiters()
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        latch.release()
        try await holder.value
        // A transaction whose task was cancelled before it asked counts too.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "C" } }
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(try instruments.transactions("cancelled") == 2)
        #expect(try instruments.transactions("committed") == 1)
        #expect((try? instruments.transactions("rolled_back")) ?? 0 == 0)
        #expect(instruments.timerValues("strata_writer_wait").count == 1)
    }

    @Test("an unsafe transaction is one span, child of the caller's, with its commits; spans in its body are its children")
    func unsafeTransactionSpan() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack()
        let tracer = instruments.tracer
        try await tracer.withSpan("import") { _ in
            try await stack.withUnsafeTransaction { unsafe in
                try await unsafe.perform { tx in try tx.create(Into<Person>()) { $0.name = Self.secret } }
                try await unsafe.commit()
                _ = try await tracer.withSpan("chunk") { _ in
                    try await unsafe.perform { tx in try tx.create(Into<Pet>()) { $0.name = "Rex" } }
                }
                // A block that throws leaves no trace; the transaction goes on.
                await #expect(throws: ValueError.self) {
                    try await unsafe.perform { tx in
                        try tx.create(Into<Person>()) { $0.name = "C" }
                        throw ValueError()
                    }
                }
                try await unsafe.commit()
            }
        }
        let request = try #require(instruments.spans("import").first)
        let spans = instruments.spans("strata.unsafe_transaction")
        #expect(spans.count == 1)
        let unsafe = try #require(spans.first)
        #expect(unsafe.parentSpanID == request.spanID)
        #expect(unsafe.attributes.get("strata.commits") == .int64(2))
        #expect(unsafe.attributes.get("strata.entities") == .string("Animal,Person"))
        guard case .int64(let statements) = unsafe.attributes.get("strata.statements") else {
            Issue.record("no statement count on \(unsafe.attributes)")
            return
        }
        #expect(statements >= 3)
        #expect(unsafe.errors.count == 1)
        #expect(unsafe.status?.code != .error)
        #expect(try #require(instruments.spans("chunk").first).parentSpanID == unsafe.spanID)
        #expect(instruments.spans("strata.transaction").isEmpty)
        #expect(try instruments.transactions("committed") == 2)
        expectNoSecret(instruments)
    }

    @Test("a transaction refused because its task holds the unsafe transaction counts as refused")
    func refusedTransactionCounts() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack()
        try await stack.withUnsafeTransaction { _ in
            await expectStrataError(.reentrantTransaction) {
                try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "A" } }
            }
            await expectStrataError(.reentrantTransaction) { _ = try await stack.beginUnsafe() }
        }
        #expect(try instruments.transactions("refused") == 2)
        #expect(try instruments.transactions("cancelled") == 0)
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "B" } }
        #expect(try instruments.transactions("committed") == 1)
        #expect(try instruments.transactions("refused") == 2)
    }

    @Test("an unsafe transaction from beginUnsafe ends its span when it ends, and a cancelled begin counts")
    func beginUnsafeSpan() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack()
        let unsafe = try await stack.beginUnsafe()
        try await unsafe.perform { tx in try tx.create(Into<Person>()) { $0.name = "A" } }
        let waiter = Task { try await stack.beginUnsafe() }
        await stack.writer.waitForTurnWaiters()
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(instruments.spans("strata.unsafe_transaction").count == 1)  // the cancelled one's
        await unsafe.end()
        let spans = instruments.spans("strata.unsafe_transaction")
        #expect(spans.count == 2)
        #expect(spans.last?.attributes.get("strata.commits") == .int64(0))
        #expect(spans.first?.errors.count == 1)
        #expect(try instruments.transactions("cancelled") == 1)
    }

    @Test("a fetchBatches iteration is one read span, and its wait for a cursor connection is recorded")
    func batchCursors() async throws {
        let instruments = Instruments()
        var configuration = instruments.configuration()
        configuration.maximumConcurrentBatchFetches = 1
        let stack = try await makeStack(configuration: configuration).0
        try await stack.perform { tx in
            for index in 0..<5 { try tx.create(Into<Person>()) { $0.name = "P\(index)" } }
        }
        let tracer = instruments.tracer
        let query = From<Person>().orderBy(.ascending(\.id)).tweak(.batchSize(2))
        try await tracer.withSpan("export") { _ in
            var count = 0
            for try await batch in stack.fetchBatches(query) { count += batch.count }
            #expect(count == 5)
        }
        let export = try #require(instruments.spans("export").first)
        let read = try #require(instruments.spans("strata.read").first)
        #expect(read.parentSpanID == export.spanID)
        #expect(read.attributes.get("strata.entities") == .string("Person"))
        #expect(read.attributes.get("strata.batches") == .int64(3))
        #expect(read.attributes.get("strata.statements") != nil)
        // A second stream waits for the one connection the first holds.
        var first = stack.fetchBatches(query).makeAsyncIterator()
        #expect(try await first.next()?.count == 2)
        let inUse = try instruments.metrics.expectMeter("strata_reader_pool_in_use", instruments.pool("cursor"))
        #expect(inUse.lastValue == 1)
        let second = Task {
            var iterator = stack.fetchBatches(query).makeAsyncIterator()
            return try await iterator.next()?.count
        }
        await stack.cursors.waitForWaiters()
        while try await first.next() != nil {}
        #expect(try await second.value == 2)
        #expect(instruments.timerValues("strata_reader_wait", pool: "cursor").count == 1)
        #expect(instruments.timerValues("strata_reader_wait", pool: "reader").isEmpty)
        // The second stream, left after its first batch, ends its span and gives the connection back
        // when its iterator goes (in that order): a third stream gets the pool's one connection after.
        var third = stack.fetchBatches(query).makeAsyncIterator()
        while try await third.next() != nil {}
        #expect(instruments.spans("strata.read").count == 4)
        #expect(inUse.lastValue == 0)
    }

    @Test("reads of a read generation have spans, and a wait for a generation connection is recorded")
    func readGenerations() async throws {
        let instruments = Instruments()
        var configuration = instruments.configuration()
        configuration.maximumReadGenerations = 1
        let stack = try await makeStack(configuration: configuration).0
        let tracer = instruments.tracer
        let generation = try await stack.readGeneration()
        try await tracer.withSpan("page") { _ in
            #expect(try await generation.fetchCount(From<Person>()) == 0)
            _ = try await generation.read { try $0.fetchAll(From<Pet>()) }
        }
        let page = try #require(instruments.spans("page").first)
        let reads = instruments.spans("strata.read")
        #expect(reads.count == 2)
        #expect(reads.allSatisfy { $0.parentSpanID == page.spanID })
        #expect(reads.allSatisfy { $0.attributes.get("strata.read_generation") != nil })
        #expect(reads.allSatisfy { $0.attributes.get("strata.statements") != nil })
        #expect(reads.first?.attributes.get("strata.entities") == .string("Person"))
        let inUse = try instruments.metrics.expectMeter("strata_reader_pool_in_use", instruments.pool("generation"))
        #expect(inUse.lastValue == 1)
        let second = Task { try await stack.readGeneration() }
        await stack.generationReaders.waitForWaiters()
        await generation.release()
        try await second.value.release()
        #expect(instruments.timerValues("strata_reader_wait", pool: "generation").count == 1)
        #expect(inUse.lastValue == 0)
    }

    @Test("strata_active_observations follows the publishers iterated and the change streams alive")
    func activeObservations() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack()
        let active = { try instruments.metrics.expectMeter("strata_active_observations", instruments.dimensions).lastValue }
        let publisher = stack.countPublisher(From<Person>())
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            for try await _ in publisher { startedContinuation.yield() }
        }
        for await _ in started { break }
        #expect(try active() == 1)
        // A change stream counts from the call that makes it; the gauge moves with the count.
        let stream = stack.changes()
        #expect(try active() == 2)
        #expect(stack.activeObservations == 2)
        let changes = Task {
            for await _ in stream {}
        }
        consumer.cancel()
        _ = await consumer.result
        changes.cancel()
        await changes.value
        #expect(try active() == 0)
        #expect(stack.activeObservations == 0)
    }
}
