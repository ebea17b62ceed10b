import Dispatch
import Foundation
import Hub
import News
import Site
import Synchronization

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Exit codes: 0 success, 1 content/config errors or failed sends, 64 usage errors.
public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 64
}

public enum CLI {
    public static let version = "0.1.0"

    /// Runs newsgen with `arguments` (without the program name) and returns the exit code.
    public static func run(_ arguments: [String], environment: [String: String], console: Console) async -> Int32 {
        guard let first = arguments.first else {
            console.err(Help.overview)
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        do throws(UsageError) {
            switch first {
            case "--version", "version": console.out("newsgen \(version)"); return ExitCode.success
            case "--help", "-h": console.out(Help.overview); return ExitCode.success
            case "help":
                guard let topic = rest.first else { console.out(Help.overview); return ExitCode.success }
                guard let text = Help.commands[topic] else {
                    throw UsageError(message: unknownCommand(topic), command: nil)
                }
                console.out(text)
                return ExitCode.success
            case "build", "check":
                let writes = first == "build"
                return try await onThreadOfItsOwn { () throws(UsageError) in
                    try BuildCommand.run(rest, environment: environment, console: console, writes: writes)
                }
            case "publish": return try await PublishCommand.run(rest, environment: environment, console: console)
            case "status": return try await StatusCommand.run(rest, environment: environment, console: console)
            case "next-change": return try NextChangeCommand.run(rest, environment: environment, console: console)
            case "new": return try NewCommand.run(rest, environment: environment, console: console)
            case "serve": return try await ServeCommand.run(rest, environment: environment, console: console)
            default:
                if first.hasPrefix("-") {
                    var message = "unknown option '\(first)'"
                    if let close = Suggestion.closest(to: first, in: ["--version", "--help"]) { message += "; did you mean '\(close)'?" }
                    throw UsageError(message: message, command: nil)
                }
                throw UsageError(message: unknownCommand(first), command: nil)
            }
        } catch {
            console.err("error: \(error.message)")
            console.err("")
            console.err(error.command.flatMap { Help.commands[$0] }.map(Help.usageSection) ?? Help.usageLines)
            return ExitCode.usage
        }
    }

    /// Runs a blocking command on a thread of its own while the calling task waits without holding a thread. Run
    /// on one of the pool's threads, the build held one of Dispatch's threads (one per core) while it waited for its
    /// own parallel steps, which then had one core fewer: a rebuild that changes nothing looked at the output
    /// folder's 30,000 folders on one core instead of two.
    static func onThreadOfItsOwn<T: Sendable>(_ work: @escaping @Sendable () throws(UsageError) -> T) async throws(UsageError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, UsageError>, Never>) in
            let thread = Thread { continuation.resume(returning: Result { () throws(UsageError) in try work() }) }
            thread.stackSize = 8 << 20   // the main thread's size: templates and Markdown nest
            thread.start()
        }
        return try result.get()
    }

    static func unknownCommand(_ name: String) -> String {
        var message = "unknown command '\(name)'"
        if let close = Suggestion.closest(to: name, in: Help.commandNames) { message += "; did you mean '\(close)'?" }
        return message
    }

    /// Entry point of the executable.
    public static func main() async -> Never {
        var environment: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(decoding: UnsafeRawBufferPointer(start: entry, count: strlen(entry)), as: UTF8.self)
            if let equals = text.firstIndex(of: "=") {
                environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        let code = await run(Array(CommandLine.arguments.dropFirst()), environment: environment, console: StandardConsole())
        exit(code)
    }
}

enum BuildCommand {
    static func run(_ arguments: [String], environment: [String: String], console: Console, writes: Bool) throws(UsageError) -> Int32 {
        let name = writes ? "build" : "check"
        let flags = writes ? ["--drafts", "--future", "--quiet", "--clean", "--help"] : ["--drafts", "--future", "--help"]
        let options = writes ? ["--output", "--base-url", "--site"] : ["--site", "--base-url"]
        let parsed = try ParsedArguments(arguments, command: name, flags: flags, options: options)
        if parsed.flags.contains("--help") {
            console.out(Help.commands[name]!)
            return ExitCode.success
        }
        let started = monotonicSeconds()
        guard let lockTimeout = BuildLock.timeout(environment: environment) else {
            console.err("error: NEWSGEN_LOCK_TIMEOUT must be a number of seconds, found '\(environment["NEWSGEN_LOCK_TIMEOUT"] ?? "")'")
            return ExitCode.failure
        }
        let now: Timestamp
        switch EditionFilter.currentTime(environment: environment) {
        case .success(let value): now = value
        case .failure(let error): return report(error, console: console)
        }
        let site = parsed.options["--site"] ?? "."
        let filter = EditionFilter(now: now, includeDrafts: parsed.flags.contains("--drafts"),
                                   includeFuture: parsed.flags.contains("--future"))
        let buildOptions = BuildOptions(output: parsed.options["--output"], filter: filter, clean: parsed.flags.contains("--clean"))
        guard writes else {
            let edition: Edition
            let photos: Int
            do throws(SiteError) {
                edition = try PushCheck.loadEdition(directory: site, baseURLOverride: parsed.options["--base-url"], cache: .read)
                photos = try MediaBuild.check(edition)
            } catch {
                return report(error, console: console)
            }
            let shown = edition.stories.filter(filter.shows).count
            let photoCount = photos == 0 ? "" : ", \(photos) photo\(photos == 1 ? "" : "s")"
            console.out("checked \(edition.stories.count) stories (\(shown) would be published), \(edition.config.languages.count) languages\(photoCount): no problems")
            return ExitCode.success
        }
        // A build holds the lock from before it reads the cache until the cache and the output are written.
        let lock: BuildLock
        do throws(SiteError) {
            lock = try BuildLock.acquire(site: site, output: buildOptions.output, timeout: lockTimeout) { console.err($0) }
        } catch {
            return report(error, console: console)
        }
        defer { lock.release() }
        let quiet = parsed.flags.contains("--quiet")
        let interactive = console.isInteractive && !quiet
        var progress: (@Sendable (Int, Int) -> Void)?
        if interactive {
            progress = { done, total in
                if total >= 2000 { StandardConsole().progress("rendering \(done)/\(total)") }
            }
        }
        do throws(SiteError) {
            let built = try SiteBuild.run(site: site, baseURLOverride: parsed.options["--base-url"], options: buildOptions,
                                          lock: lock, progress: progress)
            lock.release()   // after the cache files written under it: the time shown includes them
            if interactive { StandardConsole().progress("") }
            console.out(summary(built, since: started))
            return ExitCode.success
        } catch {
            if interactive { StandardConsole().progress("") }
            return report(error, console: console)
        }
    }

    static func summary(_ report: BuildReport, since started: Double) -> String {
        let seconds = monotonicSeconds() - started
        let time = seconds < 10 ? String(Int(seconds * 1000)) + " ms" : String(Int(seconds)) + " s"
        var line = "built \(report.stories) stories into \(displayPath(report.output)): \(report.pages) files, \(report.written) written, \(report.unchanged) unchanged, \(report.removed) removed in \(time)"
        if report.photosProcessed > 0 {
            line += "\n\(report.photosProcessed) photo\(report.photosProcessed == 1 ? "" : "s") processed (\(report.photos - report.photosProcessed) from the media cache)"
        }
        if let why = report.rebuiltEverything { line += "\n" + why }
        return line
    }

    static func report(_ error: SiteError, console: Console) -> Int32 {
        console.err(error.description)
        return ExitCode.failure
    }

    static func displayPath(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if path.hasPrefix(cwd + "/") { return String(path.dropFirst(cwd.count + 1)) + "/" }
        return path
    }
}

