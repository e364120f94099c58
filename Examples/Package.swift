// swift-tools-version: 6.2
// Strata's example service: a task board served over HTTP by Hummingbird, with its tests (a real
// client over loopback) and its load benchmark (the same service on GRDB's `DatabasePool`, driven by
// a load generator). A package of its own, so that Strata's users never build Hummingbird or GRDB.
//
// It is also a client package as a user's would be: `ReadmeSnippetTests` compiles and runs the
// README's and the DocC articles' snippets with default settings (no upcoming or experimental
// features), so that an example that needs a setting Strata's own targets enable fails here; the
// server article's snippets compile in `BoardTests`, next to the board they condense. `.ci/run` runs both test targets.
import PackageDescription

/// The same upcoming features as Strata's own targets.
let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "StrataExamples",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "board-server", targets: ["BoardServer"]),
        .executable(name: "board-server-grdb", targets: ["BoardServerGRDB"]),
        .executable(name: "board-load", targets: ["BoardLoad"]),
    ],
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // The tests' real HTTP client (it builds BoringSSL, most of this package's build time; a
        // hand-written client would test less and HummingbirdTesting's live mode uses this one anyway).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // The service on Strata: entities, routes, error mapping, the live endpoint, the stack as a
        // service of the service group.
        .target(
            name: "Board",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "BoardServer",
            dependencies: [
                "Board",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcomingFeatures
        ),
        // The same service on GRDB's DatabasePool, for the load benchmark only.
        .target(
            name: "BoardGRDB",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "BoardServerGRDB",
            dependencies: [
                "BoardGRDB",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcomingFeatures
        ),
        // A load generator: keep-alive HTTP/1.1 connections over loopback, a mixed read/write load.
        .executableTarget(
            name: "BoardLoad",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "BoardTests",
            dependencies: [
                "Board",
                "BoardServer",
                .product(name: "Strata", package: "Strata"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: upcomingFeatures
        ),
        // The README's snippets, with default settings on purpose (no `swiftSettings`).
        .testTarget(
            name: "ReadmeSnippetTests",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
