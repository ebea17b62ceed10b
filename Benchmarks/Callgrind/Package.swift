// swift-tools-version:6.0
import PackageDescription

// newsgen's command line with a main that valgrind can run, for Benchmarks/callgrind.py's instruction counts.
// A package of its own so that the main package's `swift build` never links it.
let package = Package(
    name: "newsgen-callgrind",
    dependencies: [.package(name: "newsgen", path: "../..")],
    targets: [
        .executableTarget(name: "newsgen-callgrind", dependencies: [.product(name: "NewsgenCLI", package: "newsgen")]),
    ],
    swiftLanguageModes: [.v6]
)
