import Foundation
import Testing
@testable import Strata

/// History reads on a stack whose stores keep no history.
@Suite("History reads without history")
struct HistoryWaitTests {
    @Test("history() on a stack without history throws at once, without waiting for the running transaction")
    func noWaitBehindTransactions() async throws {
        let (stack, _) = try await makeStack()
        let (started, entered) = AsyncStream.makeStream(of: Void.self)
        let release = DispatchSemaphore(value: 0)
        // A transaction that holds the writer until the check below is done (it blocks the writer's
        // own thread, not Swift's pool).
        let holder = Task {
            try await stack.perform { _ in
                entered.yield()
                release.wait()
            }
        }
        for await _ in started { break }
        let outcome = await withTaskGroup(of: String.self) { group in
            group.addTask {
                do {
                    _ = try await stack.history()
                    return "no error"
                } catch let error as StrataError {
                    return "\(error.code)"
                } catch {
                    return "\(error)"
                }
            }
            // A guard only: before, the read waited for the writer's turn, which the transaction holds
            // until this test releases it.
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return "waited for the transaction"
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
        release.signal()
        try await holder.value
        #expect(outcome == "historyUnavailable")
        await stack.close()
    }
}
