import Foundation
import Synchronization
import Testing
@testable import Strata

/// What the task that decodes a `ContextNote` sees of the task-local `RequestContext.requestID`.
enum DecodeContext {
    static let seen = Locked<[String?]>([])

    static func noting(_ text: String) -> String {
        seen.withLock { $0.append(RequestContext.requestID) }
        return text
    }
}

@Entity(name: "ContextNote")
struct ContextNote {
    @Coded(encode: { $0 }, decode: { DecodeContext.noting($0) }) var text: String = ""
}

/// Transactions and reads run inside the calling task: its task-locals and cancellation reach them.
@Suite("The calling task's context", .timeLimit(.minutes(1)))
struct TaskContextTests {
    @Test("task-local values are the caller's inside perform and read")
    func taskLocals() async throws {
        let stack = try await DataStack(coreSchema)
        let (written, read) = try await RequestContext.$requestID.withValue("request-42") {
            let written = try await stack.perform { tx -> String? in
                try tx.create(Into<CoreOwner>()) { $0.name = RequestContext.requestID ?? "none" }
                return RequestContext.requestID
            }
            let read = try await stack.read { _ in RequestContext.requestID }
            return (written, read)
        }
        #expect(written == "request-42")
        #expect(read == "request-42")
        #expect(try await stack.fetchOne(From<CoreOwner>())?.name == "request-42")
        // Outside the scope, the value is gone there too.
        #expect(try await stack.read { _ in RequestContext.requestID } == nil)
    }

    @Test("a publisher's fetches after commits carry none of the task-local values of the task that opened the stack")
    func stackTasksAreDetached() async throws {
        // Opened while handling a request: before, the stack's dispatcher inherited the request's
        // task-locals (its trace, its logger metadata) and passed them to every later fetch.
        let stack = try await RequestContext.$requestID.withValue("opening-request") {
            try await DataStack(Schema("V1", ContextNote.self))
        }
        let id = try await stack.perform { tx in try tx.create(Into<ContextNote>()) { $0.text = "a" }.id }
        var snapshots = stack.objectPublisher(id).makeAsyncIterator()
        #expect(try await snapshots.next()??.text == "a")
        DecodeContext.seen.withLock { $0 = [] }
        try await stack.perform { tx in try tx.edit(id) { $0.text = "b" } }
        #expect(try await snapshots.next()??.text == "b")
        let seen = DecodeContext.seen.withLock { $0 }
        #expect(!seen.isEmpty && seen.allSatisfy { $0 == nil }, "\(seen)")
    }

    @Test("perform and read run on the stack's threads, not on Swift's cooperative pool")
    func threads() async throws {
        let stack = try await DataStack(coreSchema)
        let writer = try await stack.perform { _ in ThreadExecutor.currentLabel }
        let reader = try await stack.read { _ in ThreadExecutor.currentLabel }
        #expect(writer == "strata.writer")
        #expect(reader?.hasPrefix("strata.reader.") == true)
    }

    @Test("Task.isCancelled inside a transaction is the caller's, and the transaction then rolls back")
    func cancelledInsidePerform() async throws {
        let stack = try await DataStack(coreSchema)
        let latch = Latch()
        let seen = Flag()
        let task = Task {
            try await stack.perform { tx in
                try tx.create(Into<CoreOwner>()) { $0.name = "Ada" }
                latch.hold()
                seen.set(Task.isCancelled)
            }
        }
        await latch.reached()
        task.cancel()
        latch.release()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(seen.value)
        #expect(try await stack.fetchCount(From<CoreOwner>()) == 0)
    }

    @Test("Task.isCancelled inside a read is the caller's")
    func cancelledInsideRead() async throws {
        let stack = try await DataStack(coreSchema)
        let latch = Latch()
        let task = Task {
            try await stack.read { _ -> Bool in
                latch.hold()
                return Task.isCancelled
            }
        }
        await latch.reached()
        task.cancel()
        latch.release()
        #expect(try await task.value == true)
        // The reader went back to the pool usable.
        #expect(try await stack.fetchCount(From<CoreOwner>()) == 0)
    }

    @Test("awaiting perform inside withUnsafeTransaction throws instead of waiting forever")
    func reentrantPerform() async throws {
        let stack = try await DataStack(coreSchema)
        try await stack.withUnsafeTransaction { unsafe in
            try await unsafe.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "Ada" } }
            let error = await expectStrataError(.reentrantTransaction) {
                try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "Bob" } }
            }
            #expect(error?.message.contains("unsafe transaction") == true)
            await expectStrataError(.reentrantTransaction) { _ = try await stack.beginUnsafe() }
            try await unsafe.commit()
        }
        // Once it ended, the same task's transactions run again.
        try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "Cid" } }
        #expect(try await stack.fetchCount(From<CoreOwner>()) == 2)
    }

    @Test("a task started inside withUnsafeTransaction writes once the unsafe transaction has ended")
    func taskStartedInScopeWritesLater() async throws {
        let stack = try await DataStack(coreSchema)
        let (gate, open) = AsyncStream<Void>.makeStream()
        let spawned = try await stack.withUnsafeTransaction { unsafe in
            try await unsafe.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "Ada" } }
            try await unsafe.commit()
            return Task {
                var wait = gate.makeAsyncIterator()
                await wait.next()
                try await stack.perform { tx in _ = try tx.create(Into<CoreOwner>()) { $0.name = "Bob" } }
            }
        }
        open.yield()
        try await spawned.value
        #expect(try await stack.fetchCount(From<CoreOwner>()) == 2)
    }

    @Test("tasks that never held an unsafe transaction wait for it, even after the task that began it ended")
    func unrelatedTasksWaitForUnsafe() async throws {
        let stack = try await DataStack(coreSchema)
        // Begun in a task that ends at once: later tasks may reuse its address.
        let unsafe = try await Task { try await stack.beginUnsafe() }.value
        for _ in 0..<100 {
            let waiting = Task { try await stack.perform { tx in _ = try tx.create(Into<CoreOwner>()) { $0.name = "x" } } }
            await stack.writer.waitForTurnWaiters(1)
            waiting.cancel()
            let result = await waiting.result
            #expect(throws: CancellationError.self) { try result.get() }
        }
        // Another task's use of the transaction changes nothing: a new task's perform waits for its end.
        try await Task { try await unsafe.perform { tx in _ = try tx.create(Into<CoreOwner>()) { $0.name = "Ada" } } }.value
        let after = Task { try await stack.perform { tx in _ = try tx.create(Into<CoreOwner>()) { $0.name = "Bob" } } }
        await stack.writer.waitForTurnWaiters(1)
        try await unsafe.commit()
        await unsafe.end()
        try await after.value
        #expect(try await stack.fetchCount(From<CoreOwner>()) == 2)
    }

    @Test("inside withUnsafeTransaction, a child task's perform throws too, and the transaction ends afterwards")
    func reentrantPerformInChildTask() async throws {
        let stack = try await DataStack(coreSchema)
        try await stack.withUnsafeTransaction { unsafe in
            try await unsafe.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "Ada" } }
            let child = Task { try await stack.perform { tx in _ = try tx.create(Into<CoreOwner>()) { $0.name = "Bob" } } }
            await expectStrataError(.reentrantTransaction) { try await child.value }
            try await unsafe.commit()
        }
        // Another task waits for an unsafe transaction instead of failing.
        let unsafe = try await stack.beginUnsafe()
        let other = Task { try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "Cid" } } }
        await stack.writer.waitForTurnWaiters()
        await unsafe.end()
        _ = try await other.value
        #expect(try await stack.fetchAll(From<CoreOwner>().orderBy(.ascending(\.name))).map(\.name) == ["Ada", "Cid"])
    }
}

/// A flag set on one thread and read on another.
final class Flag: Sendable {
    private let storage = Atomic<Bool>(false)
    func set(_ value: Bool) { storage.store(value, ordering: .relaxed) }
    var value: Bool { storage.load(ordering: .relaxed) }
}

extension DataStack {
    /// The number of transactions waiting for the writer's turn, for tests.
    var writerWaiterCount: Int { writer.turnWaiterCount }
}
