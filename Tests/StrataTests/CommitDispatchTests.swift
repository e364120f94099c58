import Foundation
import Synchronization
import Testing
@testable import Strata

/// The writer hands a commit to observation in O(1) and returns: observers never run on its thread.
@Suite("Commit dispatch", .serialized, .timeLimit(.minutes(1)))
struct CommitDispatchTests {
    @Test("300 listeners run off the writer's thread, and a blocked one delays no commit")
    func listenersOffWriter() async throws {
        let stack = try await DataStack(coreSchema)
        let onWriter = Atomic<Int>(0)
        let calls = Atomic<Int>(0)
        let (allCalled, allCalledContinuation) = AsyncStream<Void>.makeStream()
        let listeners = 300
        for _ in 0..<listeners {
            _ = stack.feed.addListener { _ in
                if ThreadExecutor.currentLabel == "strata.writer" { onWriter.add(1, ordering: .relaxed) }
                if calls.add(1, ordering: .relaxed).newValue == listeners { allCalledContinuation.yield() }
            }
        }
        // One more listener blocks on the first commit until the test releases it.
        let latch = Latch()
        let blocked = Atomic<Bool>(false)
        let blocker = stack.feed.addListener { _ in
            if !blocked.exchange(true, ordering: .relaxed) { latch.hold() }
        }
        try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "Ada" } }
        await latch.reached()
        // The dispatcher is stuck in the blocked listener; commits still complete.
        for index in 0..<10 {
            try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "\(index)" } }
        }
        #expect(try await stack.fetchCount(From<CoreOwner>()) == 11)
        latch.release()
        var iterator = allCalled.makeAsyncIterator()
        await iterator.next()
        #expect(onWriter.load(ordering: .relaxed) == 0)
        stack.feed.removeListener(blocker)
    }

    @Test("publishers learn of commits through the dispatcher, in commit order")
    func publishersInOrder() async throws {
        let stack = try await DataStack(coreSchema)
        var counts = stack.countPublisher(From<CoreOwner>()).makeAsyncIterator()
        #expect(try await counts.next() == 0)
        for index in 1...5 {
            try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "\(index)" } }
        }
        var last = 0
        while last < 5 {
            let value = try #require(try await counts.next())
            #expect(value > last)
            last = value
        }
    }

    @Test("a commit nobody listens to never wakes the dispatcher; one with a listener does")
    func noListenerNoDispatch() async throws {
        let stack = try await DataStack(coreSchema)
        for index in 0..<5 {
            try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "\(index)" } }
        }
        #expect(stack.feed.mailedCount == 0)
        let (seen, seenContinuation) = AsyncStream<Void>.makeStream()
        let listener = stack.feed.addListener { _ in seenContinuation.yield() }
        try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "heard" } }
        #expect(stack.feed.mailedCount == 1)
        var iterator = seen.makeAsyncIterator()
        await iterator.next()
        stack.feed.removeListener(listener)
        try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "unheard" } }
        #expect(stack.feed.mailedCount == 1)
    }
}

@Suite("Idle spin")
struct IdleSpinTests {
    @Test("an executor spins only after jobs came back quickly, never beyond its limit, and never with no limit")
    func idleGaps() {
        var gaps = IdleGaps(limit: .microseconds(200))
        // After a quiet time (the start counts as one), no spin.
        #expect(gaps.expected == .zero)
        for _ in 0..<10 { gaps.record(.microseconds(30)) }
        let quick = gaps.expected
        #expect(quick > .zero)
        #expect(quick <= .microseconds(200))
        // Slow returns stop the spin again.
        for _ in 0..<10 { gaps.record(.milliseconds(5)) }
        #expect(gaps.expected == .zero)
        // Returns just under the limit spin for the limit at most.
        for _ in 0..<20 { gaps.record(.microseconds(190)) }
        #expect(gaps.expected == .microseconds(200))
        var off = IdleGaps(limit: .zero)
        for _ in 0..<10 { off.record(.nanoseconds(100)) }
        #expect(off.expected == .zero)
    }
}
