import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc

private let systemRead = Glibc.read
private let systemKill = Glibc.kill
private let systemPipe = Glibc.pipe
#elseif canImport(Darwin)
import Darwin

private let systemRead = Darwin.read
private let systemKill = Darwin.kill
private let systemPipe = Darwin.pipe
#endif

/// A child process for the tests (the probe, `/bin/true`), started with `posix_spawn` instead of
/// Foundation's `Process`: `Process.run()` crashed inside itself in a CI run where tests launched
/// processes at the same time. Here each pipe is made close-on-exec before any other child can be
/// spawned, so only its own child gets it (a reader never waits for an end of file that another child
/// holds back), and nothing else is shared between launches.
///
/// Its blocking calls (``read()``, ``waitUntilExit()``) are for a thread of the test's own
/// (``onOwnThread(_:)``), never Swift's pool.
struct ChildProcess: Sendable {
    /// How a child ended: by `exit` (``terminationStatus`` is its exit code) or by a signal
    /// (``terminationStatus`` is the signal), named as `Process` names them.
    struct Termination: Sendable {
        enum Reason: Sendable { case exit, uncaughtSignal }
        let terminationReason: Reason
        let terminationStatus: Int32
    }

    let processIdentifier: pid_t
    /// The read end of the child's standard output, when it was asked for.
    private let output: Int32?
    /// The write end of the child's standard input, when it was asked for.
    private let input: Int32?

    /// Starts `executable` with `arguments`; with `readOutput`, its standard output goes to a pipe read
    /// by ``read()``, and with `writeInput`, its standard input comes from a pipe ``closeInput()`` ends.
    static func spawn(
        _ executable: URL, _ arguments: [String] = [], readOutput: Bool = false, writeInput: Bool = false
    ) throws -> ChildProcess {
        try launching.withLock { _ in try spawnLocked(executable, arguments, readOutput: readOutput, writeInput: writeInput) }
    }

    /// Held while a pipe is made and marked close-on-exec and while a child is spawned: the tests spawn
    /// children from several tasks at once, and one spawned between another's `pipe` and `fcntl` would
    /// inherit that pipe. (The child execs at once and never touches the lock.)
    private static let launching = Mutex<Void>(())

    private static func spawnLocked(
        _ executable: URL, _ arguments: [String], readOutput: Bool, writeInput: Bool
    ) throws -> ChildProcess {
        let output = readOutput ? try pipe() : nil
        let input = writeInput ? try pipe() : nil
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copy, so the child keeps exactly these two ends.
        if let output { posix_spawn_file_actions_adddup2(&actions, output.write, STDOUT_FILENO) }
        if let input { posix_spawn_file_actions_adddup2(&actions, input.read, STDIN_FILENO) }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for string in argv + environment { free(string) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable.path, &actions, nil, argv, environment)
        // The child's ends belong to it now (or to nobody, when the spawn failed).
        if let output { close(output.write) }
        if let input { close(input.read) }
        guard result == 0 else {
            if let output { close(output.read) }
            if let input { close(input.write) }
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)
        }
        return ChildProcess(processIdentifier: pid, output: output?.read, input: input?.write)
    }

    /// A pipe whose two ends are closed on exec. Made under ``launching``, so that no other test's
    /// spawn can inherit them before they are marked (Glibc's module does not offer `pipe2`).
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard systemPipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// The next bytes the child wrote to its standard output, blocking until some come; empty at the
    /// end of the output.
    func read() -> Data {
        guard let output else { return Data() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = systemRead(output, &buffer, buffer.count)
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno != EINTR { return Data() }
        }
    }

    /// Everything the child writes to its standard output until it closes it.
    func readToEnd() -> Data {
        var data = Data()
        while case let chunk = read(), !chunk.isEmpty { data += chunk }
        return data
    }

    /// Ends the child's standard input (the probe's `hold` exits then).
    func closeInput() {
        if let input { close(input) }
    }

    /// Sends `signal` to the child.
    func kill(_ signal: Int32) {
        _ = systemKill(processIdentifier, signal)
    }

    /// Waits for the child to end, closes the read end of its output, and tells how it ended.
    func waitUntilExit() -> Termination {
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) < 0 {
            if errno != EINTR { break }
        }
        if let output { close(output) }
        // The wait status: the low 7 bits are the signal that ended the child, or 0 when it exited;
        // its exit code is then the next 8 bits.
        let signal = status & 0x7f
        if signal == 0 { return Termination(terminationReason: .exit, terminationStatus: (status >> 8) & 0xff) }
        return Termination(terminationReason: .uncaughtSignal, terminationStatus: signal)
    }
}
