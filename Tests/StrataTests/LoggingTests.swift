import Foundation
import Logging
import Testing
@testable import Strata

/// Keeps every record a logger emits, for tests.
final class CapturedLogs: @unchecked Sendable {
    // @unchecked: `records` is only touched under its lock.
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    private let records = Locked<[Record]>([])

    var all: [Record] { records.withLock { $0 } }

    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "strata.test") { _ in Handler(logs: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ record: Record) {
        records.withLock { $0.append(record) }
    }

    private struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            logs.append(Record(
                level: event.level, message: event.message.description,
                metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
        }
    }
}

@Suite("Logging", .timeLimit(.minutes(1)))
struct LoggingTests {
    @Test("the logger hears schema setup, commits, rolled-back transactions and their errors, never values")
    func operatorRecords() async throws {
        let logs = CapturedLogs()
        var configuration = DataStack.Configuration()
        configuration.logger = logs.logger()
        let stack = try await DataStack(coreSchema, configuration: configuration)
        try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "secret-value" } }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await stack.perform { tx in
                try tx.create(Into<CoreOwner>()) { $0.name = "another-secret" }
                throw Refused()
            }
        }
        let records = logs.all
        #expect(records.contains { $0.level == .info && $0.message == "store ready" && $0.metadata["strata.path"] != nil })
        #expect(records.contains { $0.level == .trace && $0.message == "committed" })
        let rolledBack = try #require(records.first { $0.message == "transaction rolled back" })
        #expect(rolledBack.level == .debug)
        #expect(rolledBack.metadata["strata.error"]?.description.contains("Refused") == true)
        // Values never reach the log.
        for record in records {
            let text = record.message + record.metadata.values.map(\.description).joined()
            #expect(!text.contains("secret"))
        }
        #expect(records.allSatisfy { $0.metadata.keys.allSatisfy { $0.hasPrefix("strata.") } })
    }

    @Test("waits for a reader and for the writer past the threshold are logged at notice, with the time and the pool")
    func longWaits() async throws {
        for threshold in [Duration.zero, nil] {
            let logs = CapturedLogs()
            var configuration = DataStack.Configuration(maximumReaderCount: 1)
            configuration.logger = logs.logger()
            configuration.longWaitThreshold = threshold
            let stack = try await DataStack(coreSchema, configuration: configuration)
            // A read waits while the only reader is held.
            let reading = Latch()
            let reader = Task { try await stack.read { _ in reading.hold() } }
            await reading.reached()
            let waitingRead = Task { try await stack.fetchCount(From<CoreOwner>()) }
            while stack.readers.waiterCount == 0 { await Task.yield() }
            reading.release()
            try await reader.value
            #expect(try await waitingRead.value == 0)
            // A transaction waits while another holds the writer.
            let writing = Latch()
            let writer = Task { try await stack.perform { _ in writing.hold() } }
            await writing.reached()
            let waitingWrite = Task { try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "A" } } }
            while stack.writerWaiterCount == 0 { await Task.yield() }
            writing.release()
            try await writer.value
            _ = try await waitingWrite.value
            let waits = logs.all.filter { $0.metadata["strata.wait"] != nil }
            if threshold == nil {
                #expect(waits.isEmpty)
            } else {
                let read = try #require(waits.first { $0.message == "waited for a connection" })
                #expect(read.level == .notice && read.metadata["strata.pool"] == "strata.reader")
                let write = try #require(waits.first { $0.message == "waited for the writer" })
                #expect(write.level == .notice && write.metadata["strata.pool"] == "strata.writer")
            }
        }
    }
}
