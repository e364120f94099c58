import Dispatch
import Foundation
import Testing
@testable import Strata

/// The commit gate of a stack of several stores is held only for SQLite's own work: a statement trace
/// runs after it is let go, and a wait for another connection's lock happens outside it.
@Suite("Commit gate")
struct CommitGateTests {
    @Test("a statement trace that waits for a read does not hold up the read: it runs after the commit gate is let go")
    func traceRunsOutsideTheGate() async throws {
        let directory = try TemporaryDirectory()
        let stackBox = Locked<DataStack?>(nil)
        let armed = Locked(false)
        let outcome = Locked<String?>(nil)
        var configuration = DataStack.Configuration()
        configuration.statementTrace = { text in
            guard text == "COMMIT", armed.withLock({ was in defer { was = false }; return was }),
                  let stack = stackBox.withLock({ $0 }) else { return }
            // The trace runs on the writer's own thread: it may block, and the test wants to see
            // whether the read it starts can begin meanwhile.
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                _ = try? await stack.fetchCount(From<StoreNote>())
                done.signal()
            }
            let result = done.wait(timeout: .now() + 10)
            outcome.withLock { $0 = result == .success ? "the read ran" : "the read waited for the trace" }
        }
        let stack = try await makeSeveralStoresStack(directory, configuration: configuration)
        stackBox.withLock { $0 = stack }
        armed.withLock { $0 = true }
        try await stack.perform { tx in
            try tx.create(Into<StoreNote>("Shared")) { $0.title = "a" }
        }
        #expect(outcome.withLock { $0 } == "the read ran")
        #expect(try await stack.fetchCount(From<StoreNote>()) == 1)
        stackBox.withLock { $0 = nil }
        await stack.close()
    }

    @Test("a read that meets another connection's lock waits outside the commit gate, and sees the commits counted meanwhile")
    func busyWaitOutsideTheGate() async throws {
        let directory = try TemporaryDirectory()
        let otherPath = directory.path("other.sqlite")
        // Rollback-journal files, so that a writer's EXCLUSIVE lock keeps every reader out.
        var plain = Connection.Options()
        plain.walMode = false
        let holder = try Connection(path: otherPath, options: plain)
        try holder.execute("CREATE TABLE t (x)")

        let gate = Locked(0)
        let opened = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let waiting = DispatchSemaphore(value: 0)
        var options = plain
        options.commitGate = gate
        options.attachments = AttachmentList([.init(schemaName: "other", path: otherPath, synchronous: .normal)])
        options.busyTimeoutMilliseconds = 5_000
        options.busyReportThreshold = .milliseconds(1)
        options.busyReport = { _ in waiting.signal() }
        let mainPath = directory.path("main.sqlite")
        let readOptions = options
        let read = Task {
            try await onOwnThread { () throws -> Int? in
                let connection = try Connection(path: mainPath, options: readOptions)
                opened.signal()
                go.waitForTest()
                try connection.beginRead()
                defer { try? connection.execute("COMMIT") }
                return connection.stores.snapshotCommitNumber
            }
        }
        await waitOnThread(opened)
        try holder.execute("BEGIN EXCLUSIVE")
        go.signal()
        await waitOnThread(waiting)
        // A commit of the stack takes the gate while the read waits: before, it waited for the busy timeout.
        let counted = try await onOwnThread { gate.withLock { commits -> Int in commits += 1; return commits } }
        try holder.execute("ROLLBACK")
        #expect(counted == 1)
        #expect(try await read.value == 1)
    }
}
