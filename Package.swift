// swift-tools-version:6.0
import PackageDescription

// One system-library target per C library, one small Swift module that is its only importer,
// pure-Swift domain modules above them, and a thin executable on top.
let package = Package(
    name: "newsgen",
    platforms: [.macOS(.v15)],   // Synchronization.Mutex and Atomic
    products: [
        .executable(name: "newsgen", targets: ["newsgen"]),
        // For the fuzz targets in Fuzz/, a package of their own so that `swift build` never links them.
        .library(name: "NewsgenParsers", targets: ["YAML", "Templates", "News", "Site", "Hub"]),
        // For Benchmarks/Callgrind, which runs the command line under valgrind.
        .library(name: "NewsgenCLI", targets: ["CLI"]),
    ],
    targets: [
        // C libraries (Debian: libcmark-dev, libyaml-dev, libcurl4-openssl-dev, libssl-dev, libmicrohttpd-dev, libvips-dev)
        .systemLibrary(name: "CCmark", pkgConfig: "libcmark", providers: [.apt(["libcmark-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "CMicroHTTPDShim", dependencies: ["CMicroHTTPD"]),
        // libvips is opened when a photo is first processed, not linked (see shim.c): its headers only, which need
        // GLib's (Debian's paths; pkg-config would link the libraries too).
        .target(name: "CVipsShim", cSettings: [.unsafeFlags([
            "-I/usr/include/glib-2.0", "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include", "-I/usr/lib/aarch64-linux-gnu/glib-2.0/include",
        ])]),

        // Wrappers: the only modules that see a C pointer.
        .target(name: "Markdown", dependencies: ["CCmark"]),
        .target(name: "YAML", dependencies: ["CYAML"]),
        .target(name: "HTTP", dependencies: ["CCurl", "CCurlShim"]),
        .target(name: "Signing", dependencies: ["CCrypto"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CMicroHTTPDShim"]),
        .target(name: "Images", dependencies: ["CVipsShim"]),

        // Domain modules.
        .target(name: "Incremental"),   // the generic incremental engine: no news knowledge
        .target(name: "Templates"),
        // The news model: config, languages, categories, stories; parsing and validation. No caches, no output.
        .target(name: "News", dependencies: ["YAML"]),
        .target(name: "Site", dependencies: ["News", "Markdown", "YAML", "Templates", "Incremental", "Images"]),
        .target(name: "Hub", dependencies: ["News", "Site", "HTTP", "Signing", "Templates", "Incremental"]),
        .target(name: "LiveSite", dependencies: ["News", "Site", "Hub", "HTTPServer"]),   // newsgen serve
        .target(name: "CLI", dependencies: ["News", "Site", "Hub", "LiveSite"]),
        .executableTarget(name: "newsgen", dependencies: ["CLI"]),

        // Tests.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .target(name: "NewsFixtures", dependencies: ["News", "TestSupport"], path: "Tests/NewsFixtures"),
        .testTarget(name: "IncrementalTests", dependencies: ["Incremental"]),
        .testTarget(name: "MarkdownTests", dependencies: ["Markdown", "CCmark", "TestSupport"]),
        .testTarget(name: "YAMLTests", dependencies: ["YAML"]),
        .testTarget(name: "TemplatesTests", dependencies: ["Templates", "TestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "TestSupport"], exclude: ["loopback_server.py"]),
        .testTarget(name: "SigningTests", dependencies: ["Signing"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(name: "LiveSiteTests", dependencies: ["News", "LiveSite", "TestSupport"]),
        .testTarget(name: "ImagesTests", dependencies: ["Images", "TestSupport"]),
        .testTarget(name: "NewsTests", dependencies: ["News", "NewsFixtures", "TestSupport"]),
        .testTarget(name: "SiteTests", dependencies: ["News", "NewsFixtures", "Site", "TestSupport"]),
        .testTarget(name: "HubTests", dependencies: ["News", "Hub", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["News", "CLI", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport"], exclude: ["Golden", "Browser"]),
    ],
    swiftLanguageModes: [.v6]
)
