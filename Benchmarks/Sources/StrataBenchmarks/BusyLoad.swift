import Dispatch
import Foundation
import Synchronization

/// `--load busy`: background threads that spin on cheap arithmetic until stopped, so that the
/// implementations under test share the cores with CPU-bound work, as on a busy server. Their own
/// CPU time is known (per-thread clocks), so k can leave it out of the process's CPU time.
final class BusyLoad: Sendable {
    /// Two spinning threads: as many as this machine's cores.
    static let threadCount = 2

    private let stopped = Atomic<Bool>(false)
    private let clocks = Locked<[clockid_t]>([])
    /// Where each thread leaves its result, so the arithmetic is not optimized away.
    private let sink = Atomic<UInt64>(0)
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init() {}

    /// Starts the threads and returns once each is spinning.
    func start() {
        for index in 0..<Self.threadCount {
            Thread.detachNewThread { [self] in
                var clock = clockid_t()
                pthread_getcpuclockid(pthread_self(), &clock)
                clocks.withLock { $0.append(clock) }
                started.signal()
                var state = UInt64(index) &+ 1
                while !stopped.load(ordering: .relaxed) {
                    for _ in 0..<10_000 {
                        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    }
                }
                sink.wrappingAdd(state, ordering: .relaxed)
                finished.signal()
            }
        }
        for _ in 0..<Self.threadCount { started.wait() }
    }

    /// Stops the threads and returns once each has ended.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        for _ in 0..<Self.threadCount { finished.wait() }
        clocks.withLock { $0 = [] }
    }

    /// The CPU time the spinning threads have used so far, in seconds (while they run).
    var cpuSeconds: Double {
        clocks.withLock { clocks in clocks.reduce(0) { $0 + CPUTime.thread($1) } }
    }
}
