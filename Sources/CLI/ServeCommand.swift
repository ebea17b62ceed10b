import Dispatch
import Foundation
import LiveSite
import News
import Site
import Synchronization

/// `newsgen serve`: the site on a local address, rebuilt and reloaded in every open page after each change.
enum ServeCommand {
    static let flags = ["--drafts", "--future", "--help"]
    static let options = ["--port", "--host", "--site", "--ledger"]
    static let defaultPort = 8080

    static func run(_ arguments: [String], environment: [String: String], console: Console) async throws(UsageError) -> Int32 {
        let parsed = try ParsedArguments(arguments, command: "serve", flags: flags, options: options)
        if parsed.flags.contains("--help") {
            console.out(Help.commands["serve"]!)
            return ExitCode.success
        }
        var port = defaultPort
        if let text = parsed.options["--port"] {
            guard let number = Int(text), (0...65535).contains(number) else {
                throw UsageError(message: "--port needs a port number from 0 to 65535, found '\(text)'", command: "serve")
            }
            port = number
        }
        // The server listens on addresses; "localhost" is the one name everybody means an address by.
        let host = parsed.options["--host"].map { $0 == "localhost" ? "127.0.0.1" : $0 } ?? "127.0.0.1"
        guard let lockTimeout = BuildLock.timeout(environment: environment) else {
            console.err("error: NEWSGEN_LOCK_TIMEOUT must be a number of seconds, found '\(environment["NEWSGEN_LOCK_TIMEOUT"] ?? "")'")
            return ExitCode.failure
        }
        if case .failure(let error) = EditionFilter.currentTime(environment: environment) { return BuildCommand.report(error, console: console) }
        let directory = parsed.options["--site"] ?? "."
        let site = URL(fileURLWithPath: directory).standardizedFileURL.path
        let ledger = parsed.options["--ledger"].map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? site + "/.newsgen/push-ledger.json"
        if !isLoopback(host) {
            console.err("warning: serving on \(host): anyone who can reach this machine sees the site\(parsed.flags.contains("--drafts") || parsed.flags.contains("--future") ? ", drafts and scheduled stories included" : "") and the phone preview")
        }
        // A folder that is no site, or a newsgen.yml that does not load, stops serve at once; everything else can be
        // fixed while it runs.
        do throws(SiteError) {
            _ = try Edition.loadConfig(directory: site)
        } catch {
            return BuildCommand.report(error, console: console)
        }
        let settings = ServeSettings(site: site, host: host, port: port, includeDrafts: parsed.flags.contains("--drafts"),
                                     includeFuture: parsed.flags.contains("--future"), ledgerPath: ledger,
                                     clock: { EditionFilter.currentTime(environment: environment) }, lockTimeout: lockTimeout)
        let liveSite: LiveSite
        do throws(SiteError) {
            liveSite = try LiveSite(settings, say: { console.out($0) }, warn: { console.err($0) })
        } catch {
            return BuildCommand.report(error, console: console)
        }
        let stop = StopSignal()
        do throws(SiteError) {
            try liveSite.start()
        } catch {
            liveSite.stop()
            return BuildCommand.report(error, console: console)
        }
        console.out("serving \(liveSite.url) (press Ctrl-C to stop)")
        console.out("phone preview: \(liveSite.pushPreviewURL)")
        await stop.wait()
        liveSite.stop()
        console.out("stopped")
        return ExitCode.success
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "::1" || host.hasPrefix("127.")
    }
}

/// Ctrl-C (SIGINT) or SIGTERM, awaited: the server stops cleanly instead of the process dying mid-build.
final class StopSignal: Sendable {
    private struct State {
        var fired = false
        var waiting: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())
    /// Held only to keep the sources alive; set once in init and never touched again.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    init() {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        for source in sources {
            source.setEventHandler { [self] in fire() }
            source.resume()
        }
    }

    private func fire() {
        let waiting = state.withLock { state in
            state.fired = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.fired { return true }
                state.waiting = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}
