// strata-benchmarks: Strata beside GRDB 7.10.0 and raw SQLite calls, interleaved, with ratios.
// Run from the repository root: swift run -c release --package-path Benchmarks strata-benchmarks
import Foundation

#if DEBUG
print("warning: this is a debug build; figures are meaningless. Run with -c release.")
#endif

// Workload n's committing child: this executable again, with a hidden first argument.
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == OtherProcess.childFlag {
    CommitChild.runChild(Array(CommandLine.arguments.dropFirst(2)))
}

do {
    let options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    try await runBenchmarks(options)
} catch {
    print("error: \(error)")
    exit(2)
}
