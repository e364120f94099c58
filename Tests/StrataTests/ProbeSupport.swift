import Foundation
import Testing

/// Runs `strata-probe` with `arguments`; `until`, when given, is called with each line
/// printed, and the probe is killed with SIGKILL once it returns true. Returns the lines and how the
/// probe ended. The probe is read from and waited for on a thread of its own, never on Swift's pool.
func runProbe(_ arguments: [String], killWhen until: (@Sendable (String) -> Bool)? = nil) async throws
    -> (lines: [String], process: ChildProcess.Termination)
{
    let executable = try #require(LongFilterTests.probeExecutable(), "the StrataProbe executable was not found")
    let process = try ChildProcess.spawn(executable, arguments, readOutput: true)
    return try await onOwnThread { () -> ([String], ChildProcess.Termination) in
        var lines: [String] = []
        var pending = Data()
        var killed = false
        while case let chunk = process.read(), !chunk.isEmpty {
            pending += chunk
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending = Data(pending[pending.index(after: newline)...])
                lines.append(line)
                if !killed, let until, until(line) {
                    process.kill(SIGKILL)
                    killed = true
                }
            }
        }
        return (lines, process.waitUntilExit())
    }
}
