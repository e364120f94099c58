import ArgumentParser
import BoardGRDB
import Foundation
import Hummingbird
import Logging

/// `board-server-grdb`: the board service on GRDB's `DatabasePool`, with the same command line as
/// `board-server`. Prints `listening on http://HOST:PORT` once bound; stops gracefully on SIGTERM
/// and SIGINT.
@main
struct BoardServerGRDB: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "board-server-grdb",
        abstract: "The task board over HTTP, on GRDB's DatabasePool (the load benchmark's twin)."
    )

    @Option(help: "The address to bind.")
    var host = "127.0.0.1"

    @Option(help: "The port to bind; 0 for an ephemeral port.")
    var port = 8080

    @Option(help: "The database file; a file in a new temporary directory when absent.")
    var database: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
    }

    func run() async throws {
        var logger = Logger(label: "board-server-grdb")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let path = try database ?? Self.temporaryDatabasePath()
        logger.info("database", metadata: ["path": "\(path)"])
        let pool = try BoardDatabase.open(path: path)
        let host = self.host
        let app = BoardApplication.make(pool: pool, host: host, port: port, logger: logger) { port in
            // Unbuffered, so that a parent process reading the pipe sees the line at once.
            FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
        }
        try await app.runService()
    }

    /// `board.sqlite` in a new temporary directory.
    static func temporaryDatabasePath() throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("board-server-grdb-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("board.sqlite").path
    }
}
