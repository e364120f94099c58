import CSQLite
import Foundation
import Logging
import Testing
@testable import Strata

/// Keeps every record a logger emits, for tests.
final class CapturedLogs: Sendable {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    private struct State {
        var records: [Record] = []
        var waiters: [(matches: @Sendable (Record) -> Bool, continuation: CheckedContinuation<Record, Never>)] = []
    }

    private let state = Locked(State())

    var all: [Record] { state.withLock { $0.records } }

    /// The first record that `matches`, once it has been logged: awaited, never polled.
    func first(where matches: @escaping @Sendable (Record) -> Bool) async -> Record {
        await withCheckedContinuation { continuation in
            let found: Record? = state.withLock { state in
                if let record = state.records.first(where: matches) { return record }
                state.waiters.append((matches, continuation))
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "strata.test") { _ in Handler(logs: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ record: Record) {
        let woken = state.withLock { state in
            state.records.append(record)
            let woken = state.waiters.filter { $0.matches(record) }.map(\.continuation)
            state.waiters.removeAll { $0.matches(record) }
            return woken
        }
        for continuation in woken { continuation.resume(returning: record) }
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
        #expect(records.contains { $0.level == .debug && $0.message == "store ready" && $0.metadata["strata.path"] != nil })
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

    @Test("a rolled-back transaction's log leaves out the stored value a fetch's decoding error quotes; the caught error keeps it")
    func fetchErrorWithoutValue() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("people.sqlite")
        let schema = Schema("V1", Person.self)
        do {
            let stack = try await DataStack(schema, storage: SQLiteStore(path: path))
            try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "A" } }
            await stack.close()
        }
        do {
            let connection = try Connection(path: path, options: Connection.Options())
            defer { connection.close() }
            try connection.execute("UPDATE Person SET age = 'secret-age'")
        }
        let logs = CapturedLogs()
        var configuration = DataStack.Configuration()
        configuration.logger = logs.logger()
        let stack = try await DataStack(schema, storage: SQLiteStore(path: path), configuration: configuration)
        let error = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.fetchAll(From<Person>()) }
        }
        #expect(error?.code == .typeMismatch && error?.message.contains("secret-age") == true)
        let rolledBack = try #require(logs.all.first { $0.message == "transaction rolled back" })
        let logged = rolledBack.metadata.values.map(\.description).joined()
        // Before, the entity added on the way up dropped the version without the value.
        #expect(logged.contains("typeMismatch") && logged.contains("text (10 bytes)") && !logged.contains("secret"), "\(logged)")
        await stack.close()
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
            await stack.readers.waitForWaiters()
            reading.release()
            try await reader.value
            #expect(try await waitingRead.value == 0)
            // A transaction waits while another holds the writer.
            let writing = Latch()
            let writer = Task { try await stack.perform { _ in writing.hold() } }
            await writing.reached()
            let waitingWrite = Task { try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "A" } } }
            await stack.writer.waitForTurnWaiters()
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

    @Test("a wait for the writer behind an unsafe transaction from beginUnsafe() is warned about while it lasts")
    func waitBehindUnsafe() async throws {
        let logs = CapturedLogs()
        var configuration = DataStack.Configuration()
        configuration.logger = logs.logger()
        configuration.longWaitThreshold = .milliseconds(20)
        let stack = try await DataStack(coreSchema, configuration: configuration)
        let unsafe = try await stack.beginUnsafe()
        let waiting = Task { try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "A" } } }
        let warning = await logs.first { $0.message.contains("an unsafe transaction holds") }
        #expect(warning.level == .warning && warning.metadata["strata.pool"] == "strata.writer")
        await unsafe.end()
        _ = try await waiting.value
        #expect(try await stack.fetchCount(From<CoreOwner>()) == 1)
    }

    /// A stack on a new file whose long waits are logged from 20 ms, with a busy timeout of ten minutes
    /// (the tests end their waits themselves), and another connection (another process, as far as the
    /// stack can tell) holding the write lock; a transaction of the stack, started, logged as waiting.
    private func transactionWaitingForLock(
        at path: String
    ) async throws -> (stack: DataStack, logs: CapturedLogs, other: OpaquePointer, write: Task<Void, any Error>, notice: CapturedLogs.Record) {
        let (stack, logs, connection) = try await lockedStack(at: path)
        let write = Task { try await stack.perform { tx in _ = try tx.create(Into<CoreOwner>()) { $0.name = "A" } } }
        let notice = await logs.first { $0.message == "waiting for a lock held by another connection" }
        return (stack, logs, connection, write, notice)
    }

    /// A stack on a new file whose long waits are logged from 20 ms, with a busy timeout of ten minutes,
    /// and another connection holding the write lock.
    private func lockedStack(at path: String) async throws -> (stack: DataStack, logs: CapturedLogs, other: OpaquePointer) {
        let logs = CapturedLogs()
        var configuration = DataStack.Configuration()
        configuration.logger = logs.logger()
        configuration.longWaitThreshold = .milliseconds(20)
        configuration.busyTimeout = .seconds(600)
        let stack = try await DataStack(coreSchema, storage: SQLiteStore(path: path), configuration: configuration)
        var other: OpaquePointer?
        #expect(sqlite3_open(path, &other) == SQLITE_OK)
        let connection = try #require(other)
        #expect(sqlite3_exec(connection, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        return (stack, logs, connection)
    }

    @Test("cancelling a transaction that waits for another connection's lock ends the wait at once with CancellationError")
    func cancelledLockWait() async throws {
        let directory = try TemporaryDirectory()
        let (stack, _, other, write, _) = try await transactionWaitingForLock(at: directory.path("locked.sqlite"))
        defer { sqlite3_close(other) }
        write.cancel()
        // The lock is still held: only the cancellation can end the wait (the timeout is ten minutes).
        await #expect(throws: CancellationError.self) { try await write.value }
        #expect(sqlite3_exec(other, "COMMIT", nil, nil, nil) == SQLITE_OK)
        try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "B" } }
        #expect(try await stack.fetchAll(From<CoreOwner>()).map(\.name) == ["B"])
    }

    @Test("cancelling an unsafe transaction's block that waits at BEGIN for another connection's lock ends the wait at once")
    func cancelledUnsafeLockWait() async throws {
        let directory = try TemporaryDirectory()
        let (stack, logs, other) = try await lockedStack(at: directory.path("locked.sqlite"))
        defer { sqlite3_close(other) }
        let unsafe = try await stack.beginUnsafe()
        let block = Task { try await unsafe.perform { tx in _ = try tx.create(Into<CoreOwner>()) { $0.name = "A" } } }
        _ = await logs.first { $0.message == "waiting for a lock held by another connection" }
        block.cancel()
        // The lock is still held: only the cancellation can end the wait (the timeout is ten minutes).
        await #expect(throws: CancellationError.self) { try await block.value }
        #expect(sqlite3_exec(other, "COMMIT", nil, nil, nil) == SQLITE_OK)
        try await unsafe.perform { tx in _ = try tx.create(Into<CoreOwner>()) { $0.name = "B" } }
        try await unsafe.commit()
        await unsafe.end()
        #expect(try await stack.fetchAll(From<CoreOwner>()).map(\.name) == ["B"])
    }

    @Test("a wait for a lock another connection holds is logged while it lasts, and ends in busy at the timeout")
    func lockWaits() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("locked.sqlite")
        let (stack, logs, other, write, notice) = try await transactionWaitingForLock(at: path)
        defer { sqlite3_close(other) }
        #expect(sqlite3_exec(other, "COMMIT", nil, nil, nil) == SQLITE_OK)
        _ = try await write.value
        #expect(notice.level == .notice && notice.metadata["strata.path"]?.description == path)
        #expect(logs.all.filter { $0.message == "waiting for a lock held by another connection" }.count == 1)
        #expect(try await stack.fetchCount(From<CoreOwner>()) == 1)

        // Past the busy timeout the transaction fails with busy, and the stack goes on.
        var short = DataStack.Configuration()
        short.busyTimeout = .milliseconds(30)
        let impatient = try await DataStack(coreSchema, storage: SQLiteStore(path: path), configuration: short)
        #expect(sqlite3_exec(other, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        let error = await #expect(throws: StrataError.self) {
            try await impatient.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "B" } }
        }
        #expect(error?.code == .busy)
        #expect(sqlite3_exec(other, "COMMIT", nil, nil, nil) == SQLITE_OK)
        try await impatient.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "C" } }
        #expect(try await impatient.fetchCount(From<CoreOwner>()) == 2)
    }
}
