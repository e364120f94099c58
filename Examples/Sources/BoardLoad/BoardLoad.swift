import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// `board-load`: the load benchmark of the board service, Strata's server beside its GRDB twin.
///
/// For each connection count and round, for each server in turn: a fresh server process on a fresh
/// database file, seeded through the API (20 owners, 1,000 cards), loaded for a warm-up, then
/// measured for a fixed window. Prints markdown tables to stdout and progress to stderr; exits with
/// status 1 when any response of a window is not 2xx or a connection fails.
@main
struct BoardLoad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "board-load",
        abstract: "Requests/s and latency of board-server and board-server-grdb under a mixed load."
    )

    @Option(help: "The Strata server binary (default: board-server next to this binary).")
    var strata: String?

    @Option(help: "The GRDB server binary (default: board-server-grdb next to this binary).")
    var grdb: String?

    @Option(help: "Servers to run, in the order of each round: strata, grdb.")
    var contenders = "strata,grdb"

    @Option(help: "Connection counts, comma-separated.")
    var connections = "16,256"

    @Option(help: "The request mix: weights of list, get, create, patch, health.")
    var mix = Mix(argument: "list=70,get=20,create=10")!

    @Option(help: "Rounds per connection count.")
    var rounds = 5

    @Option(help: "Seconds measured per window.")
    var duration = 5.0

    @Option(help: "Seconds of load before each window.")
    var warmup = 2.0

    @Option(help: "Event-loop threads of the load generator.")
    var threads = 1

    @Option(help: "The servers' --log-level.")
    var serverLogLevel = "warning"

    @Option(help: "Also write the tables to this file.")
    var markdown: String?

    func run() throws {
        let names = contenders.split(separator: ",").map(String.init)
        let counts = connections.split(separator: ",").compactMap { Int($0) }
        let binaries = try Dictionary(uniqueKeysWithValues: names.map { ($0, try binary(for: $0)) })
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        defer { try? group.syncShutdownGracefully() }
        let runner = LoadRunner(group: group)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("board-load-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let loadAverageBefore = Self.loadAverage()
        var results: [RoundResult] = []
        for count in counts {
            for round in 1...rounds {
                for name in names {
                    let database = directory.appendingPathComponent("\(name)-\(count)-\(round).sqlite").path
                    let server = try ServerProcess(
                        executable: binaries[name]!, database: database, logLevel: serverLogLevel)
                    let window: LoadRunner.Window
                    do {
                        let seed = try runner.seed(host: server.host, port: server.port)
                        window = try runner.load(
                            server: server, seed: seed, mix: mix, connections: count, warmup: warmup,
                            duration: duration)
                    } catch {
                        server.stop()
                        throw error
                    }
                    server.stop()
                    let result = RoundResult(contender: name, connections: count, round: round, window: window)
                    results.append(result)
                    log(
                        "\(count) connections, round \(round), \(name): \(Report.format(result.requestsPerSecond, 0)) req/s, "
                            + "p50 \(Report.format(result.p50, 2)) ms, p99 \(Report.format(result.p99, 2)) ms, "
                            + "errors \(result.errors), server \(Report.format(result.serverCores, 2)) cores "
                            + "(\(Report.format(result.serverMicrosecondsPerRequest, 0)) µs/request), "
                            + "load \(Report.format(result.loadCores, 2)) cores"
                            + (result.window.stats.samples.isEmpty ? "" : " — \(result.window.stats.samples)"))
                }
            }
        }
        let header = "Mix \(mix), \(Report.format(duration, 0)) s windows after \(Report.format(warmup, 0)) s of warm-up, "
            + "\(rounds) rounds, \(threads) load thread(s), \(ProcessInfo.processInfo.activeProcessorCount) cores; "
            + "load average \(loadAverageBefore) before the run, \(Self.loadAverage()) after."
        let text = Report(results: results, contenders: names, connections: counts, header: header, mix: mix).markdown()
        print(text)
        if let markdown { try text.write(toFile: markdown, atomically: true, encoding: .utf8) }
        if results.contains(where: { $0.errors > 0 }) {
            log("invalid run: some responses were not 2xx or some connections failed")
            throw ExitCode(1)
        }
    }

    private func binary(for name: String) throws -> String {
        let sibling = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        switch name {
        case "strata": return strata ?? sibling.appendingPathComponent("board-server").path
        case "grdb": return grdb ?? sibling.appendingPathComponent("board-server-grdb").path
        default: throw ValidationError("unknown contender '\(name)' (strata, grdb)")
        }
    }

    /// The 1-minute load average: other processes competing for the cores.
    private static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
        return String(text.split(separator: " ").first ?? "?")
    }

    private func log(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
