import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing
@testable import Strata

/// Metrics and spans, each test with a factory and a tracer of its own passed in the configuration (no
/// global bootstrap, so tests running at once never see each other's figures).
@Suite("Metrics and tracing", .timeLimit(.minutes(1)))
struct MetricsTracingTests {
    /// A value stored by the tests, which no dimension, attribute or recorded error may hold.
    static let secret = "secret-value-7319"

    struct Instruments {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let dimensions = [("stack", "metrics-test")]

        func configuration(readers: Int = 4) -> DataStack.Configuration {
            var configuration = DataStack.Configuration()
            configuration.name = "metrics-test"
            configuration.metricsFactory = metrics
            configuration.tracer = tracer
            configuration.maximumReaderCount = readers
            return configuration
        }

        func stack(readers: Int = 4) async throws -> DataStack {
            try await makeStack(configuration: configuration(readers: readers)).0
        }

        /// The dimensions of a pool's metrics (`reader`, `cursor` or `generation`).
        func pool(_ name: String) -> [(String, String)] {
            dimensions + [("pool", name)]
        }

        func transactions(_ outcome: String) throws -> Int64 {
            try metrics.expectCounter("strata_transactions_total", dimensions + [("outcome", outcome)]).totalValue
        }

        func timerValues(_ label: String, pool name: String? = nil) -> [Int64] {
            (try? metrics.expectTimer(label, name.map(pool) ?? dimensions).values) ?? []
        }

        func spans(_ name: String) -> [FinishedInMemorySpan] {
            tracer.finishedSpans.filter { $0.operationName == name }
        }
    }

    struct ValueError: Error, CustomStringConvertible {
        var description: String { "failed with \(MetricsTracingTests.secret)" }
    }

    @Test("committed, rolled-back and failed transactions are counted, and commits timed")
    func transactionCounts() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack()
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = Self.secret } }
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "B" } }
        await #expect(throws: ValueError.self) {
            try await stack.perform { tx in
                try tx.create(Into<Person>()) { $0.name = "C" }
                throw ValueError()
            }
        }
        #expect(try instruments.transactions("committed") == 2)
        #expect(try instruments.transactions("rolled_back") == 1)
        #expect(instruments.timerValues("strata_commit_duration").count == 2)
        #expect(instruments.timerValues("strata_commit_duration").allSatisfy { $0 >= 0 })
    }

    @Test("a transaction that waits for the turn records the wait; a free turn records none")
    func writerWait() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack()
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "A" } }
        #expect(instruments.timerValues("strata_writer_wait").isEmpty)
        let latch = Latch()
        let holder = Task { try await stack.perform { _ in latch.hold() } }
        await latch.reached()
        let waiter = Task { try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "B" } } }
        await stack.writer.waitForTurnWaiters()
        latch.release()
        try await holder.value
        _ = try await waiter.value
        let waits = instruments.timerValues("strata_writer_wait")
        #expect(waits.count == 1)
        #expect(waits.allSatisfy { $0 > 0 })
    }

    @Test("a read that waits for a reader records the wait, and the pool's occupancy goes up and down")
    func readerWait() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack(readers: 1)
        let latch = Latch()
        let holder = Task { try await stack.read { _ in latch.hold() } }
        await latch.reached()
        let inUse = try instruments.metrics.expectMeter("strata_reader_pool_in_use", instruments.pool("reader"))
        #expect(inUse.lastValue == 1)
        let waiter = Task { try await stack.fetchCount(From<Person>()) }
        await stack.readers.waitForWaiters()
        latch.release()
        try await holder.value
        #expect(try await waiter.value == 0)
        #expect(instruments.timerValues("strata_reader_wait", pool: "reader").count == 1)
        #expect(inUse.lastValue == 0)
    }

    @Test("observation fetches are counted")
    func observationFetches() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack()
        var iterator = stack.countPublisher(From<Person>()).makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "A" } }
        #expect(try await iterator.next() == 1)
        let fetches = try instruments.metrics.expectCounter(
            "strata_observation_fetches_total", instruments.dimensions).totalValue
        #expect(fetches >= 2)
    }

    @Test("a fetch that waited for a permit while its observation stopped gives the permit back without reading")
    func abandonedFetchDoesNotRead() async throws {
        let instruments = Instruments()
        var configuration = instruments.configuration()
        configuration.maximumConcurrentObservationFetches = 1
        let stack = try await makeStack(configuration: configuration).0
        let center = stack.observation
        // The test holds the only permit.
        let (held, holding) = AsyncStream.makeStream(of: Void.self)
        let (release, releasing) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await center.withFetchPermit {
                holding.yield()
                for await _ in release { break }
            }
        }
        for await _ in held { break }
        let observer = Task {
            for try await _ in stack.countPublisher(From<Person>()) {}
        }
        await center.waitForPermitWaiters()
        observer.cancel()
        _ = await observer.result
        let fetches = { try instruments.metrics.expectCounter("strata_observation_fetches_total", instruments.dimensions).totalValue }
        let before = try fetches()
        releasing.yield()
        try await holder.value
        // Permits go first come, first served: once this one is granted, the waiting fetch had its turn.
        try await center.withFetchPermit {}
        #expect(try fetches() == before + 1, "only this last permit's fetch counted; the abandoned one did not read")
        await stack.close()
    }

    @Test("each transaction and read has a span whose parent is the caller's, with entities and statement count")
    func spans() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack()
        let tracer = instruments.tracer
        try await tracer.withSpan("request") { _ in
            try await stack.perform { tx in
                try tx.create(Into<Person>()) { $0.name = Self.secret; $0.age = 40 }
                try tx.create(Into<Pet>()) { $0.name = Self.secret }
            }
            _ = try await stack.fetchAll(From<Person>().where(\.name == Self.secret))
            _ = try await stack.read { try $0.fetchCount(From<Pet>()) }
        }
        let request = try #require(instruments.spans("request").first)
        let transaction = try #require(instruments.spans("strata.transaction").first)
        #expect(transaction.parentSpanID == request.spanID)
        #expect(transaction.traceID == request.traceID)
        #expect(transaction.attributes.get("strata.entities") == .string("Animal,Person"))
        guard case .int64(let statements) = transaction.attributes.get("strata.statements") else {
            Issue.record("no statement count on \(transaction.attributes)")
            return
        }
        #expect(statements >= 2)
        let reads = instruments.spans("strata.read")
        #expect(reads.count == 2)
        #expect(reads.allSatisfy { $0.parentSpanID == request.spanID })
        #expect(reads.first?.attributes.get("strata.entities") == .string("Person"))
        #expect(reads.allSatisfy { $0.attributes.get("strata.statements") != nil })
        #expect(transaction.errors.isEmpty)
    }

    @Test("spans started inside a transaction are its children")
    func nestedSpans() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack()
        let tracer = instruments.tracer
        try await stack.perform { tx in
            tracer.withSpan("inside") { _ in }
            try tx.create(Into<Person>()) { $0.name = "A" }
        }
        let transaction = try #require(instruments.spans("strata.transaction").first)
        let inside = try #require(instruments.spans("inside").first)
        #expect(inside.parentSpanID == transaction.spanID)
    }

    @Test("a failing transaction records its error on the span, by code or type, never by its text")
    func errorsOnSpans() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack()
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.email = Self.secret } }
        await #expect(throws: ValueError.self) {
            try await stack.perform { tx in
                try tx.create(Into<Person>()) { $0.name = Self.secret }
                throw ValueError()
            }
        }
        await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.create(Into<Person>()) { $0.email = Self.secret } }
        }
        let spans = instruments.spans("strata.transaction")
        #expect(spans.count == 3)
        #expect(spans[0].errors.isEmpty)
        #expect(spans[1].errors.count == 1)
        #expect(spans[1].status?.code == .error)
        #expect("\(spans[1].errors.first.map { $0.error } as Any)".contains("ValueError"))
        #expect(spans[2].errors.count == 1)
        #expect(try instruments.transactions("rolled_back") == 2)
        expectNoSecret(instruments)
    }

    @Test("an error whose message quotes a stored value is recorded on the span without it; the caller's error keeps it")
    func storedValueInMessage() async throws {
        let instruments = Instruments()
        let stack = try await instruments.stack()
        try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = Self.secret } }
        // The largest name read as an Int: a typeMismatch that quotes the name, for the developer.
        let error = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.queryValue(From<Person>().select(Int.self, .maximum(\.name))) }
        }
        #expect(error?.code == .typeMismatch && error?.message.contains(Self.secret) == true)
        let spans = instruments.spans("strata.transaction")
        let recorded = try #require(spans.last?.errors.first)
        // Before, the span recorded the message as it was, the name in it.
        #expect("\(recorded.error)".contains("typeMismatch") && "\(recorded.error)".contains("text (17 bytes)"))
        expectNoSecret(instruments)
    }

    /// No dimension, span attribute or recorded error holds the stored value.
    func expectNoSecret(_ instruments: Instruments) {
        for span in instruments.tracer.finishedSpans {
            span.attributes.forEach { key, value in
                #expect(!"\(key)=\(value)".contains(Self.secret))
            }
            for recorded in span.errors {
                #expect(!"\(recorded.error)".contains(Self.secret))
                recorded.attributes.forEach { key, value in #expect(!"\(key)=\(value)".contains(Self.secret)) }
            }
        }
        let metrics = instruments.metrics
        let dimensions = metrics.counters.flatMap(\.dimensions) + metrics.timers.flatMap(\.dimensions)
            + metrics.meters.flatMap(\.dimensions)
        #expect(!dimensions.isEmpty)
        for (key, value) in dimensions {
            #expect(!key.contains(Self.secret) && !value.contains(Self.secret))
        }
    }

    @Test("stacks with the no-op factory and tracer hold no metrics and no tracer")
    func offByDefault() async throws {
        let (stack, _) = try await makeStack()
        #expect(stack.readers.hasInstruments == false)
        var configuration = DataStack.Configuration()
        configuration.metricsFactory = TestMetrics()
        configuration.tracer = InMemoryTracer()
        let (instrumented, _) = try await makeStack(configuration: configuration)
        #expect(instrumented.readers.hasInstruments)
    }
}
