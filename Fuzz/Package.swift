// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for newsgen's parsers, built and run by scripts/fuzz (with -sanitize=fuzzer,address).
// A package of its own so that the main package's `swift build` never links them. Each target has no main of
// its own: libFuzzer's is linked in. scripts/fuzz compiles the modules with -enable-testing so that the story
// parser, which is package-level in News, can be reached.
let targets = ["FuzzStory", "FuzzYAML", "FuzzTemplates", "FuzzDeviceTemplate", "FuzzTagExpression", "FuzzConnectionString"]

let package = Package(
    name: "newsgen-fuzz",
    dependencies: [.package(name: "newsgen", path: "..")],
    targets: [.target(name: "FuzzSupport")] + targets.map { name in
        .executableTarget(name: name, dependencies: ["FuzzSupport", .product(name: "NewsgenParsers", package: "newsgen")])
    },
    swiftLanguageModes: [.v6]
)
