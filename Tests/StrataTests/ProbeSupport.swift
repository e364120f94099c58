import Foundation
import Testing

/// Runs `strata-probe` with `arguments`; `until`, when given, is called with each line
/// printed, and the probe is killed with SIGKILL once it returns true. Returns the lines and how the
/// probe ended. The probe is waited for on a thread of its own, never on Swift's pool.
func runProbe(_ arguments: [String], killWhen until: (@Sendable (String) -> Bool)? = nil) async throws
    -> (lines: [String], process: Process)
{
    let executable = try #require(LongFilterTests.probeExecutable(), "the StrataProbe executable was not found")
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let reading = output.fileHandleForReading
    let lines = try await onOwnThread { () -> [String] in
        var lines: [String] = []
        var pending = Data()
        var killed = false
        while case let chunk = reading.availableData, !chunk.isEmpty {
            pending += chunk
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending = Data(pending[pending.index(after: newline)...])
                lines.append(line)
                if !killed, let until, until(line) {
                    kill(process.processIdentifier, SIGKILL)
                    killed = true
                }
            }
        }
        process.waitUntilExit()
        return lines
    }
    return (lines, process)
}
