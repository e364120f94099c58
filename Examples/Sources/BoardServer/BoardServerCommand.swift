import ArgumentParser
import Board
import Foundation
import Logging
import ServiceLifecycle

/// `board-server [--host 127.0.0.1] [--port 8080] [--database PATH] [--log-level info]`
///
/// Prints exactly one line to standard output, `listening on http://HOST:PORT`, once the server is
/// bound (with `--port 0`, the port the system chose); everything else goes to standard error.
/// SIGTERM or SIGINT stop it gracefully: no new connections, in-flight requests finish, live streams
/// end, then the stack closes, and the process exits with status 0.
@main
struct BoardServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "board-server", abstract: "A task board over HTTP, on Strata.")

    @Option(help: "The address to bind.") var host = "127.0.0.1"
    @Option(help: "The port to bind; 0 for one the system chooses.") var port = 8080
    @Option(help: "The SQLite file; default: a new file in a new temporary directory.") var database: String?
    @Option(help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be trace, debug, info, notice, warning, error or critical")
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap(
            { label, metadataProvider in
                var handler = StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
                handler.logLevel = level
                return handler
            },
            metadataProvider: .boardRequestContext)
        let logger = Logger(label: "board-server")

        let path = try database ?? Self.temporaryDatabasePath()
        logger.notice("database: \(path)")
        let stack = try await BoardService.openStack(path: path, logger: Logger(label: "strata"))
        let application = BoardService.application(
            stack: stack, host: host, port: port, logger: logger,
            onListening: { [host] port in
                // One line, written at once (no buffering), for scripts and the load generator.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
            })
        try await BoardService.serviceGroup(stack: stack, application: application, logger: logger).run()
        logger.notice("stopped")
    }

    static func temporaryDatabasePath() throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("board-server-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("board.sqlite").path
    }
}

