import Foundation
import Synchronization
import Testing
@testable import Strata

@Suite("Hand-offs to the writer's and readers' threads", .timeLimit(.minutes(1)))
struct HandOffTests {
    @Test("a handed-off closure runs on the executor's thread and its result reaches the caller")
    func result() async {
        let executor = ThreadExecutor(label: "strata.test.handoff")
        defer { executor.stop() }
        #expect(!executor.isCurrentThread)
        let (onThread, label) = await executor.handOff(spin: .microseconds(250)) {
            (executor.isCurrentThread, ThreadExecutor.currentLabel)
        }
        #expect(onThread)
        #expect(label == "strata.test.handoff")
    }

    @Test("work that outlasts the spin still returns its result, to a suspended caller")
    func longWork() async {
        let executor = ThreadExecutor(label: "strata.test.long")
        defer { executor.stop() }
        // The closure waits until the caller has given up spinning: with no spin at all it suspends at
        // once, and the semaphore is signalled from another task while the closure waits.
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        async let value = executor.handOff(spin: .zero) { () -> Int in
            started.signal()
            release.wait()
            return 42
        }
        await Task.detached {
            started.wait()
            release.signal()
        }.value
        #expect(await value == 42)
    }

    @Test("closures and actor jobs on one executor never overlap")
    func mutualExclusion() async {
        let executor = ThreadExecutor(label: "strata.test.exclusion")
        defer { executor.stop() }
        let guardian = Guardian(executor: executor)
        let overlaps = await withTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        return await executor.handOff(spin: index.isMultiple(of: 4) ? .zero : .microseconds(250)) {
                            guardian.enterAndLeave()
                        }
                    }
                    return await guardian.isolatedEnterAndLeave()
                }
            }
            return await group.reduce(0, +)
        }
        #expect(overlaps == 0)
        #expect(guardian.entries.load(ordering: .relaxed) == 200)
    }

    @Test("a closed stack's writer and readers are released, and their threads end")
    func actorsReleased() async throws {
        weak var writer: Writer?
        weak var reader: ReaderConnection?
        do {
            let (stack, _) = try await makeStack()
            try await stack.perform { tx in try tx.create(Into<Person>()) }
            #expect(try await stack.fetchCount(From<Person>()) == 1)
            writer = stack.writer
            let idle = try #require(stack.readers.tryAcquire())
            reader = idle
            stack.readers.release(idle)
            #expect(writer != nil)
            #expect(reader != nil)
            await stack.close()
        }
        #expect(writer == nil)
        #expect(reader == nil)
    }
}

/// An actor on a given executor whose isolated method and handed-off closures count how often two of
/// them ran at the same time.
private actor Guardian {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private nonisolated let inside = Atomic<Bool>(false)
    nonisolated let entries = Atomic<Int>(0)

    init(executor: ThreadExecutor) {
        self.executor = executor
    }

    /// Returns 1 if another job or closure was running, else 0.
    nonisolated func enterAndLeave() -> Int {
        let overlapped = inside.exchange(true, ordering: .sequentiallyConsistent)
        entries.add(1, ordering: .relaxed)
        // Stay inside for a moment, so that an overlap would be seen.
        for _ in 0..<1_000 { _ = inside.load(ordering: .sequentiallyConsistent) }
        inside.store(false, ordering: .sequentiallyConsistent)
        return overlapped ? 1 : 0
    }

    func isolatedEnterAndLeave() -> Int {
        enterAndLeave() + (executor.isCurrentThread ? 0 : 1)
    }
}
