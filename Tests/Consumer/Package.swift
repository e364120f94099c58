// swift-tools-version: 6.2
// A client package with default settings (no upcoming or experimental features), as a user's would
// be: it compiles and runs the README's snippets against Strata, so that an example that needs a
// setting Strata's own targets enable fails here. `.ci/run` runs it.
import PackageDescription

let package = Package(
    name: "StrataConsumer",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "Strata", path: "../.."),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        .testTarget(
            name: "ReadmeSnippetTests",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
    ]
)
