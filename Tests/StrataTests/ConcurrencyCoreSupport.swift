import Foundation
import Synchronization
import Testing
@testable import Strata

/// A JSON-coded value whose decoding fails for a key of ``DecodeGate/poisoned()`` once it is poisoned
/// and, for `"gate:<key>"`, stops at ``DecodeGate`` until the test lets it through: a way to hold a
/// read in the middle of a statement.
struct Probe: Codable, Sendable, Hashable {
    var text: String

    init(_ text: String) {
        self.text = text
    }

    init(from decoder: any Decoder) throws {
        text = try decoder.singleValueContainer().decode(String.self)
        if DecodeGate.isPoisoned(text) {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a probe that fails to decode"))
        }
        if text.hasPrefix("gate:") { DecodeGate.pass(text) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

@Entity
struct CoreOwner {
    var name: String = ""
}

@Entity
struct CorePet {
    var name: String = ""
    @Relationship var owner: CoreOwner.ID?
    @Coded var probe: Probe = Probe("")
}

let coreSchema = Schema("V1", CoreOwner.self, CorePet.self)

/// Gates that hold a decoding thread until the test opens them. Each gate has its own key, so that
/// tests running in parallel never share one.
enum DecodeGate {
    private final class Gate: Sendable {
        let reached = DispatchSemaphore(value: 0)
        let open = DispatchSemaphore(value: 0)
        let isTaken = Atomic<Bool>(false)
    }

    private static let gates = Locked<[String: Gate]>([:])

    private static let poison = Locked<Set<String>>([])

    /// A key that decodes until ``poison(_:)``, and fails to decode afterwards.
    static func poisoned() -> String {
        "poison:\(UUID().uuidString)"
    }

    static func poison(_ key: String) {
        _ = poison.withLock { $0.insert(key) }
    }

    fileprivate static func isPoisoned(_ key: String) -> Bool {
        key.hasPrefix("poison:") && poison.withLock { $0.contains(key) }
    }

    /// A key for a gate; decoding it stops at the gate once it is armed.
    static func make() -> String {
        "gate:\(UUID().uuidString)"
    }

    /// Sets up the gate of `key`: the next decoding of the key stops there.
    static func arm(_ key: String) {
        gates.withLock { $0[key] = Gate() }
    }

    /// Called by a decoding thread: the first one reports that it arrived and waits until the gate
    /// opens; later ones pass.
    fileprivate static func pass(_ key: String) {
        guard let gate = gates.withLock({ $0[key] }), !gate.isTaken.exchange(true, ordering: .relaxed) else { return }
        gate.reached.signal()
        gate.open.waitForTest()
    }

    /// Waits, off Swift's pool, until a decoding thread reached the gate.
    static func reached(_ key: String) async {
        guard let gate = gates.withLock({ $0[key] }) else { return }
        await waitOnThread(gate.reached)
    }

    /// Lets the decoding thread through, and every later one.
    static func open(_ key: String) {
        guard let gate = gates.withLock({ $0.removeValue(forKey: key) }) else { return }
        gate.open.signal()
    }
}

/// Blocks a thread of the stack (a reader's or the writer's) until the test releases it, so that a
/// connection is busy for as long as a test needs.
final class Latch: Sendable {
    private let reachedSemaphore = DispatchSemaphore(value: 0)
    private let releaseSemaphore = DispatchSemaphore(value: 0)

    /// Called on the stack's thread: reports arrival, then waits for ``release()``.
    func hold() {
        reachedSemaphore.signal()
        releaseSemaphore.waitForTest()
    }

    /// Waits, off Swift's pool, until ``hold()`` was reached.
    func reached() async {
        await waitOnThread(reachedSemaphore)
    }

    func release() {
        releaseSemaphore.signal()
    }
}

extension DispatchSemaphore {
    /// The longest a test waits for a signal that its own code sends: far past the tests' time limits,
    /// so it never ends a wait that would have succeeded.
    static let testWaitLimit = DispatchTimeInterval.seconds(150)

    /// Waits for a signal that the test sends, on the thread that must wait (a stack's thread held on
    /// purpose, or a thread of the test's own), for at most ``testWaitLimit``. A test that failed or ran
    /// out of time before it sent the signal thus records an issue here and lets the thread go, instead
    /// of holding the thread (and the task that awaits it, and with it the whole test run) forever.
    func waitForTest(sourceLocation: SourceLocation = #_sourceLocation) {
        if wait(timeout: .now() + Self.testWaitLimit) == .timedOut {
            Issue.record("A semaphore the test should have signalled was not signalled", sourceLocation: sourceLocation)
        }
    }
}

/// Waits for a semaphore on a thread of its own, never on a thread shared with Swift's pool or dispatch's
/// global queues (on a 2-core machine, two blocked ones would starve every task).
func waitOnThread(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread {
            semaphore.waitForTest()
            continuation.resume()
        }.start()
    }
}

/// Runs blocking work (waiting for a child process, reading its output) on a thread of its own and
/// returns its result to the awaiting task, so that the test never blocks a thread of Swift's pool.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        Thread {
            continuation.resume(with: Result { try body() })
        }.start()
    }
}

enum RequestContext {
    @TaskLocal static var requestID: String?
}
