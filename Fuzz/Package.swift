// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for newsgen's parsers, built and run by scripts/fuzz (with --sanitize=fuzzer and
// --sanitize=address). A package of its own so that the main package's `swift build` never links them: each
// target has no main of its own, libFuzzer's is linked in. The modules are compiled with -enable-testing
// (by scripts/fuzz) so that the story parser, which is internal to Site, can be reached.
let targets = ["FuzzStory", "FuzzYAML", "FuzzTemplates", "FuzzDeviceTemplate", "FuzzTagExpression", "FuzzConnectionString"]

let package = Package(
    name: "newsgen-fuzz",
    dependencies: [.package(name: "newsgen", path: "..")],
    targets: targets.map { name in
        .executableTarget(name: name, dependencies: [.product(name: "NewsgenParsers", package: "newsgen")])
    },
    swiftLanguageModes: [.v6]
)
