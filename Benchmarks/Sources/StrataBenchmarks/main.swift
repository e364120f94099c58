// strata-benchmarks: Strata beside GRDB 7.10.0 and raw SQLite calls, interleaved, with ratios.
// Run from the repository root: swift run -c release --package-path Benchmarks strata-benchmarks
import Foundation

#if DEBUG
print("warning: this is a debug build; figures are meaningless. Run with -c release.")
#endif

do {
    let options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    try await runBenchmarks(options)
} catch {
    print("error: \(error)")
    exit(2)
}
