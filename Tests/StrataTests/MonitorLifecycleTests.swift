import Testing
@testable import Strata

@Suite("External-change monitor lifecycle")
struct MonitorLifecycleTests {
    @Test("close() waits for a monitor stopped before it: its file watch has ended when close() returns")
    func closeWaitsForMonitorsStoppedEarlier() async throws {
        let (stack, directory) = try await makeStack(.file)
        var watcher: StoreWatcher?
        do {
            var counts = stack.countPublisher(From<Person>()).makeAsyncIterator()
            #expect(try await counts.next() == 0)
            let monitor = try #require(stack.observation.monitor)
            await monitor.settled()
            watcher = monitor.watcher
        }
        // The iterator is gone: the last observation stopped the monitor, without waiting for it.
        #expect(stack.activeObservations == 0)
        await stack.close()
        let watch = try #require(watcher)
        #expect(!watch.isRunning)
        withExtendedLifetime(directory) {}
    }
}
