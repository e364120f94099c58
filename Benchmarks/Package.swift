// swift-tools-version: 6.0
import PackageDescription

/// The benchmarks of Strata beside GRDB and raw SQLite calls: one executable, run in release mode.
///
///     swift run -c release --package-path Benchmarks strata-benchmarks
///
/// A hand-written harness (not ordo-one's package-benchmark): the three implementations must run
/// interleaved in one process, workload by workload and round by round, so that each round yields
/// a Strata ÷ raw and a Strata ÷ GRDB ratio measured under the same machine conditions.
let upcomingFeatures: [SwiftSetting] = [
    // Spell out `any` for existentials so their cost is visible at the use site.
    .enableUpcomingFeature("ExistentialAny"),
    // A file sees only the members of modules it imports itself.
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "strata-benchmarks", targets: ["StrataBenchmarks"]),
    ],
    dependencies: [
        // Named, because a path dependency is otherwise known by its folder name, which varies by clone.
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
    ],
    targets: [
        // The system SQLite, for the raw implementation: the same library Strata and GRDB link.
        .systemLibrary(
            name: "CSQLiteBench",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // sched_setaffinity for `--load taskset`: glibc declares it only under _GNU_SOURCE.
        .target(name: "CBenchAffinity"),
        .executableTarget(
            name: "StrataBenchmarks",
            dependencies: [
                "CSQLiteBench",
                "CBenchAffinity",
                .product(name: "Strata", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: upcomingFeatures
        ),
    ],
    swiftLanguageModes: [.v6]
)
