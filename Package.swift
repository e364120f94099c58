// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

/// Upcoming language features enabled for every target, one reason each.
let upcomingFeatures: [SwiftSetting] = [
    // Spell out `any` for existentials so their cost is visible at the use site.
    .enableUpcomingFeature("ExistentialAny"),
    // Imports are internal unless marked `public import`, so dependencies never leak into our API by accident.
    .enableUpcomingFeature("InternalImportsByDefault"),
    // A file sees only the members of modules it imports itself.
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// CI's ThreadSanitizer run (`STRATA_THREAD_SANITIZER=1`, see `.ci/run`): Strata, its executables and
/// its tests are compiled and linked with `-sanitize=thread`, while its dependencies (swift-syntax,
/// which only runs inside the compiler, above all) keep the build they have in `.build`, so the run
/// recompiles Strata's own modules instead of every package (`swift test --sanitize=thread`
/// instruments them all). Code Strata calls in a dependency is not instrumented, as the standard
/// library's is not either way. A testing convenience only: never set it for a build you ship.
let threadSanitizer: [SwiftSetting] = Context.environment["STRATA_THREAD_SANITIZER"] == "1"
    ? [.unsafeFlags(["-sanitize=thread"])] : []
let threadSanitizerLink: [LinkerSetting] = Context.environment["STRATA_THREAD_SANITIZER"] == "1"
    ? [.unsafeFlags(["-sanitize=thread"])] : []

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .executable(name: "strata-example", targets: ["StrataExample"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax.git", "600.0.0"..<"604.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        // Metrics and tracing: API packages only, no-ops until the app bootstraps a backend.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // Documentation build only: a command plugin (`swift package generate-documentation`) that
        // no target depends on, so users never build it into their products.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .macro(
            name: "StrataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .target(
            name: "Strata",
            dependencies: [
                "CSQLite",
                "StrataMacros",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: upcomingFeatures + threadSanitizer,
            linkerSettings: threadSanitizerLink
        ),
        .executableTarget(
            name: "StrataExample",
            dependencies: ["Strata"],
            swiftSettings: upcomingFeatures + threadSanitizer,
            linkerSettings: threadSanitizerLink
        ),
        // Runs inputs that once crashed the process, in a process of its own (tests launch it).
        .executableTarget(
            name: "StrataProbe",
            dependencies: ["Strata"],
            swiftSettings: upcomingFeatures + threadSanitizer,
            linkerSettings: threadSanitizerLink
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: [
                "Strata",
                "StrataProbe",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: upcomingFeatures + threadSanitizer,
            linkerSettings: threadSanitizerLink
        ),
        .testTarget(
            name: "StrataReadmeTests",
            dependencies: [
                "Strata",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: upcomingFeatures + threadSanitizer,
            linkerSettings: threadSanitizerLink
        ),
        // The entities of an app target that Xcode 26 creates: main-actor default isolation, so that
        // the members `@Entity` generates are checked against `Entity`'s nonisolated requirements.
        .testTarget(
            name: "StrataIsolationTests",
            dependencies: ["Strata"],
            swiftSettings: upcomingFeatures + threadSanitizer + [.defaultIsolation(MainActor.self)],
            linkerSettings: threadSanitizerLink
        ),
        .testTarget(
            name: "StrataMacrosTests",
            dependencies: [
                "StrataMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ],
            swiftSettings: upcomingFeatures
        ),
    ],
    swiftLanguageModes: [.v6]
)
