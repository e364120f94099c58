import Foundation
import Synchronization
import Testing
@testable import Strata

/// What `OffPool` hands over: fields written on the thread that made it, read by the task after.
private final class Made: Sendable {
    let numbers: [Int]
    let text: String

    init() {
        numbers = Array(0..<100)
        text = String(repeating: "strata ", count: 20)
    }
}

/// A flag whose stores and loads are relaxed: they order nothing, so ThreadSanitizer sees no order
/// between the threads that use it (the test needs a wait that adds none of its own).
private final class RelaxedFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}

@Suite("Off-pool work", .timeLimit(.minutes(3)))
struct OffPoolTests {
    /// The path Dispatch takes only by chance (a CI run failed on it, and one of ten local runs of the
    /// suite under load): the work ends and resumes the continuation before the task reaches its
    /// `await`, and the task goes on without suspending. The Swift runtime orders the two with an
    /// atomic load ThreadSanitizer does not see, so only `OffPool`'s own lock makes the order visible:
    /// without it, the ThreadSanitizer run reports the reads below as a race with `Made.init`'s writes
    /// (checked by taking the lock out; see the rounds below).
    @Test("a result handed over before its task awaits it is read in order, also for ThreadSanitizer")
    func resumedBeforeAwait() async throws {
        // On Swift's pool, as `ReaderConnection.open` runs: a task that prefers an executor of its own
        // goes on through an executor switch, which the runtime does order for ThreadSanitizer. Ten
        // rounds in one task, because one round has a fair chance only: ThreadSanitizer also sees the
        // order through any lock the two threads happen to take in turn (the runtime's, Foundation's).
        // Without the fix, twenty rounds reported the race in 2 of 3 runs (a task per round: 6 of 6,
        // but 36 s under TSan in CI). Each round holds a thread of the pool while it waits, which is
        // slow under TSan with the suite's other tests (60 s for twenty rounds once): hence ten, and
        // the suite's longer time limit.
        let results = try await Task.detached { () async throws -> [Int] in
            var results: [Int] = []
            for _ in 0..<10 {
                let made = try await OffPool.run({ Made() }, dispatch: { work in
                    let done = RelaxedFlag()
                    Thread {
                        work()   // makes the value and resumes the continuation
                        done.set()
                    }.start()
                    // Holds the task's thread until the continuation is resumed, as a preempted thread
                    // would be: the task reaches its `await` afterwards. Any wait that blocks on the
                    // other thread (a semaphore, a lock, a join) would order the two for
                    // ThreadSanitizer and hide the path; so would `usleep` between looks, it turned out
                    // (no report without the fix). A yield lets the new thread have the core.
                    while !done.isSet { sched_yield() }
                })
                // Read in the same task, at once, as `ReaderConnection.open` does: once the task has
                // ended, awaiting its value would order everything for ThreadSanitizer anyway.
                results.append(made.numbers.reduce(0, +) + made.text.count)
            }
            return results
        }.value
        #expect(results == Array(repeating: 4950 + 140, count: 10))
    }

    @Test("an error thrown by the work reaches the task")
    func workThrows() async throws {
        struct Failure: Error, Equatable {}
        await #expect(throws: Failure.self) {
            try await OffPool.run { () throws -> Made in throw Failure() }
        }
    }
}
