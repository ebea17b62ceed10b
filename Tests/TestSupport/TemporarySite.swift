import Foundation

/// Paths of the repository and of the material shared with it, found from this source file.
public enum Repository {
    /// The package root (where Package.swift is).
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// The folder of the official Mustache spec files (`comments.json`, …), or nil when none is there:
    /// the folder named by `MUSTACHE_SPEC_DIR` when it is set (even one that does not exist, so that a wrong
    /// value is reported rather than passed over), else `shared/data/mustache-spec` beside the repository (where
    /// CI puts it), else `Tests/.mustache-spec` (where `scripts/fetch-mustache-spec` installs the pinned release).
    public static var mustacheSpec: URL? {
        if let named = ProcessInfo.processInfo.environment[mustacheSpecVariable], !named.isEmpty {
            return URL(fileURLWithPath: named, isDirectory: true)
        }
        let candidates = [
            root.deletingLastPathComponent().appendingPathComponent("shared/data/mustache-spec", isDirectory: true),
            root.appendingPathComponent("Tests/.mustache-spec", isDirectory: true),
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
    }

    public static let mustacheSpecVariable = "MUSTACHE_SPEC_DIR"

    /// What to tell someone whose Mustache spec files are missing.
    public static let mustacheSpecHelp = """
        set \(mustacheSpecVariable) to a folder holding the Mustache spec's JSON files (comments.json, …), \
        or run scripts/setup (or scripts/fetch-mustache-spec) with the network to fetch the pinned release \
        into Tests/.mustache-spec
        """

    /// The built `newsgen` executable (`NEWSGEN_BINARY` overrides).
    public static var newsgenBinary: URL {
        if let path = ProcessInfo.processInfo.environment["NEWSGEN_BINARY"] { return URL(fileURLWithPath: path) }
        // The test bundle lives in the same products folder as the executable.
        let bundle = Bundle.main.bundleURL
        for folder in [bundle.deletingLastPathComponent(), bundle, root.appendingPathComponent(".build/debug")] {
            let candidate = folder.appendingPathComponent("newsgen")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return root.appendingPathComponent(".build/debug/newsgen")
    }
}

/// A throwaway site folder with the files a test gives it. Removed when the value is released.
public final class TemporarySite: @unchecked Sendable {
    // @unchecked: the only stored property is an immutable URL; the folder is only touched by the test owning it.
    public let url: URL
    public var path: String { url.path }

    public init(files: [String: String] = [:], copyingTemplatesFromRepository: Bool = true) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("newsgen-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        if copyingTemplatesFromRepository {
            try FileManager.default.copyItem(at: Repository.root.appendingPathComponent("templates"),
                                             to: url.appendingPathComponent("templates"))
        }
        try FileManager.default.createDirectory(at: url.appendingPathComponent("content"), withIntermediateDirectories: true)
        for (path, text) in files { try write(path, text) }
    }

    /// A copy of the repository's sample site (newsgen.yml, content/, media/, templates/).
    public static func sample() throws -> TemporarySite {
        let site = try TemporarySite(copyingTemplatesFromRepository: true)
        try FileManager.default.removeItem(at: site.url.appendingPathComponent("content"))
        try FileManager.default.copyItem(at: Repository.root.appendingPathComponent("content"), to: site.url.appendingPathComponent("content"))
        try FileManager.default.copyItem(at: Repository.root.appendingPathComponent("media"), to: site.url.appendingPathComponent("media"))
        try FileManager.default.copyItem(at: Repository.root.appendingPathComponent("newsgen.yml"), to: site.url.appendingPathComponent("newsgen.yml"))
        return site
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    public func write(_ relative: String, _ text: String) throws {
        try write(relative, Data(text.utf8))
    }

    public func write(_ relative: String, _ data: Data) throws {
        let target = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: target)
    }

    public func read(_ relative: String) throws -> String {
        try String(contentsOf: url.appendingPathComponent(relative), encoding: .utf8)
    }

    public func exists(_ relative: String) -> Bool {
        FileManager.default.fileExists(atPath: url.appendingPathComponent(relative).path)
    }

    public func remove(_ relative: String) throws {
        try FileManager.default.removeItem(at: url.appendingPathComponent(relative))
    }

    /// Every file under `relative` with its bytes, for "nothing changed" assertions.
    public func snapshot(_ relative: String = "site") -> [String: Data] {
        let base = url.appendingPathComponent(relative)
        var result: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else { return [:] }
        for case let file as URL in enumerator {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let key = String(file.standardizedFileURL.path.dropFirst(base.standardizedFileURL.path.count + 1))
            result[key] = try? Data(contentsOf: file)
        }
        return result
    }
}

/// The result of running a program.
public struct ProgramResult: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
}

/// The environment a program started by a test runs with: a minimal one, plus `extra`.
public func programEnvironment(_ extra: [String: String]) -> [String: String] {
    var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "LANG": "C.UTF-8"]
    // Under scripts/sanitize the programs the tests start are built with the sanitizer too and must run with the
    // same settings.
    for key in ["ASAN_OPTIONS", "TSAN_OPTIONS"] { env[key] = ProcessInfo.processInfo.environment[key] }
    for (key, value) in extra { env[key] = value }
    return env
}

/// Runs `executable` with `arguments` in `directory`, with the given environment added to a minimal one.
public func runProgram(_ executable: URL, _ arguments: [String], in directory: URL? = nil,
                       environment: [String: String] = [:], input: Data? = nil) throws -> ProgramResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    process.environment = programEnvironment(environment)
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let inputPipe = Pipe()
    process.standardInput = inputPipe
    try process.run()
    if let input { inputPipe.fileHandleForWriting.write(input) }
    try? inputPipe.fileHandleForWriting.close()
    // Read both pipes concurrently so a chatty program cannot block on a full pipe.
    let group = DispatchGroup()
    nonisolated(unsafe) var outData = Data()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    group.enter()
    DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    group.wait()
    process.waitUntilExit()
    return ProgramResult(status: process.terminationStatus,
                         standardOutput: String(decoding: outData, as: UTF8.self),
                         standardError: String(decoding: errData, as: UTF8.self))
}

/// Runs the built newsgen binary.
public func newsgen(_ arguments: [String], in site: TemporarySite, environment: [String: String] = [:]) throws -> ProgramResult {
    try runProgram(Repository.newsgenBinary, arguments, in: site.url, environment: environment)
}

/// Runs blocking work (a program, a build) on a thread of its own and waits for it without holding a thread of
/// Swift's small concurrency pool or of Dispatch's: long runs of builds would otherwise starve the timing-sensitive
/// tests running meanwhile. Two such runs at a time, one per core, so that they do not starve those tests of the
/// processor either.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            blockingWorkSlots.wait()
            defer { blockingWorkSlots.signal() }
            continuation.resume(with: Result { try work() })
        }.start()
    }
}

private let blockingWorkSlots = DispatchSemaphore(value: 2)
