import Foundation

/// A server binary run as a child process: started with `--port 0`, ready once it prints
/// `listening on http://HOST:PORT`, stopped with SIGTERM.
final class ServerProcess {
    let process = Process()
    let host: String
    let port: Int

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts `executable` on a database file at `database` and waits for its `listening on` line.
    init(executable: String, database: String, logLevel: String) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "--host", "127.0.0.1", "--port", "0", "--database", database, "--log-level", logLevel,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Blocking reads on the main thread (not a task), until the first line.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                throw Failure(description: "\(executable) exited before listening (status \(process.terminationStatus))")
            }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self).split(separator: "\n")[0]
        let prefix = "listening on http://"
        guard text.hasPrefix(prefix), let colon = text.lastIndex(of: ":"),
            let port = Int(text[text.index(after: colon)...])
        else {
            throw Failure(description: "\(executable) printed '\(text)' instead of 'listening on http://HOST:PORT'")
        }
        self.host = String(text[text.index(text.startIndex, offsetBy: prefix.count)..<colon])
        self.port = port
    }

    var pid: Int32 { process.processIdentifier }

    /// CPU time the process has used so far (user + system), from `/proc/PID/stat`.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command name: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
