import Foundation
import HTTPServer
import Hub
import News
import Site
import Synchronization

/// What `newsgen serve` was asked for.
public struct ServeSettings: Sendable {
    /// The site folder (absolute).
    public var site: String
    public var host: String
    /// The first port to try; the next free one is taken when it is in use.
    public var port: Int
    public var includeDrafts: Bool
    public var includeFuture: Bool
    /// The ledger the phone preview reads.
    public var ledgerPath: String
    /// "Now" for each build and for the phone preview: the clock, or `SOURCE_DATE_EPOCH`.
    public var clock: @Sendable () -> Result<Timestamp, SiteError>
    /// How long a build waits for another one holding the site's lock.
    public var lockTimeout: Double

    public init(site: String, host: String, port: Int, includeDrafts: Bool, includeFuture: Bool, ledgerPath: String,
                clock: @escaping @Sendable () -> Result<Timestamp, SiteError>, lockTimeout: Double) {
        self.site = site
        self.host = host
        self.port = port
        self.includeDrafts = includeDrafts
        self.includeFuture = includeFuture
        self.ledgerPath = ledgerPath
        self.clock = clock
        self.lockTimeout = lockTimeout
    }
}

/// `newsgen serve`: the site built into a folder of its own (`.newsgen/serve-<port>/` in the site folder, so that
/// `site/` never holds what only `serve` shows), served over HTTP, rebuilt in this process after every change to
/// its sources, and each open page told to reload.
public final class LiveSite: Sendable {
    public let settings: ServeSettings
    /// `http://127.0.0.1:8080`: the origin every link of the served site starts with.
    public let origin: String
    public let output: String
    private let server: HTTPServer
    private let live = LiveReload()
    private let served = Shared(ServedSite(basePath: "/", pages: [:]))
    private let builds = Atomic<Int>(0)
    /// Rebuilds run one after the other, so that the pages are told about builds in the order they were made.
    private let oneAtATime = Mutex(())
    private let watch = Mutex<SourceWatch?>(nil)
    /// The lock on this port's folder (`ServeFolders.claim`), from `start` to `stop`.
    private let folderLock = Mutex<Int32?>(nil)
    /// What each rebuild keeps in memory for the next one (the engine, the look at the sources and at the output).
    private let session = BuildSession()
    private let say: @Sendable (String) -> Void
    private let warn: @Sendable (String) -> Void

    /// How many ports after the first one are tried when it is taken.
    static let portsToTry = 100

    /// Listens (on the first free port from `settings.port`) and makes the first build. `say` and `warn` take
    /// lines for the terminal's output and error streams.
    public init(_ settings: ServeSettings, say: @escaping @Sendable (String) -> Void,
                warn: @escaping @Sendable (String) -> Void) throws(SiteError) {
        self.settings = settings
        self.say = say
        self.warn = warn
        // The answers need the output folder, which is named after the port, which is known once listening.
        let handler = Shared<SiteRequests?>(nil)
        let respond: @Sendable (HTTPRequest) -> HTTPResponse = { request in
            guard let requests = handler.value else { return SiteRequests.text(503, "starting\n") }
            return requests.respond(request)
        }
        var started: HTTPServer?
        var port = settings.port
        while started == nil {
            do {
                started = try HTTPServer(host: settings.host, port: port, handler: respond)
            } catch {
                guard error.addressInUse, port != 0, port < settings.port + Self.portsToTry, port < 65535 else {
                    throw SiteError([Diagnostic(path: "--port", message: error.message)])
                }
                port += 1
            }
        }
        server = started!
        let shownHost = ["0.0.0.0", "::"].contains(settings.host) ? "127.0.0.1" : settings.host
        origin = "http://" + (shownHost.contains(":") ? "[\(shownHost)]" : shownHost) + ":\(server.port)"
        output = ServeFolders.folder(site: settings.site, port: server.port)
        let requests = SiteRequests(output: output, live: live, served: { [served] in served.value },
                                    pushPage: { [settings] in
            let now = (try? settings.clock().get()) ?? Timestamp(secondsSinceEpoch: Date().timeIntervalSince1970.rounded(.down))
            return Array(PushPreview.page(site: settings.site, ledgerPath: settings.ledgerPath, now: now).utf8)
        })
        handler.value = requests
    }

    /// The address of the served site's front page (under `base_url`'s path).
    public var url: String { origin + served.value.basePath }

    public var pushPreviewURL: String { origin + SiteRequests.pushPath }

    /// Builds, then watches the sources and rebuilds after each change until `stop`. First it claims its folder and
    /// removes those of ports no running serve holds (see `ServeFolders`).
    public func start() throws(SiteError) {
        let claim = try ServeFolders.claim(site: settings.site, port: server.port)
        folderLock.withLock { $0 = claim }
        for folder in ServeFolders.removeUnused(site: settings.site, keeping: server.port) {
            say("removed \(folder.dropFirst(settings.site.count + 1))/, left by a serve that has stopped")
        }
        // Watching starts first, so that a change made during the first build is not missed.
        let watcher = try SourceWatch(site: settings.site) { [self] changed in rebuild(changed: changed) }
        watch.withLock { $0 = watcher }
        rebuild(changed: [])
    }

    /// Stops watching (after the build under way), ends every page's event stream and stops listening.
    public func stop() {
        watch.withLock { $0 }?.stop()
        live.closeAll()
        server.stop()
        if let fd = folderLock.withLock({ $0.take() }) { close(fd) }
    }

    /// One rebuild: the site is built again; on success the pages reload (only their stylesheets when nothing
    /// but CSS changed), on failure the errors go to the terminal and to the pages, and the last good build
    /// stays served.
    func rebuild(changed: [String]) {
        oneAtATime.withLock { _ in rebuildNow(changed: changed) }
    }

    private func rebuildNow(changed: [String]) {
        let started = monotonicSeconds()
        let styleOnly = !changed.isEmpty && changed.allSatisfy { $0.hasPrefix(Edition.templatesFolder + "/") && $0.hasSuffix(".css") }
        session.sourcesChanged(changed)
        do {
            try build { edition, filter, report in
                let number = builds.add(1, ordering: .relaxed).newValue
                if let edition { served.value = Self.servedSite(edition, filter: filter) }
                live.built(number, styleOnly: styleOnly)
                let milliseconds = Int((monotonicSeconds() - started) * 1000)
                say("built \(report.stories) stories: \(report.written) written, \(report.unchanged) unchanged, \(report.removed) removed in \(milliseconds) ms")
                if let why = report.rebuiltEverything { say(why) }
            }
        } catch {
            warn(error.diagnostics.map(\.description).joined(separator: "\n"))
            warn("the last good build is still served")
            live.failed(error.diagnostics.map(\.description))
        }
    }

    /// The one place `serve` builds the site: `SiteBuild.run`, as `newsgen build` builds, with `base_url` on this
    /// server's address (its path kept) and the output written into `output`, under the build lock, so that a
    /// `newsgen build` of the same site waits for it and it for that build. `built` is told while the lock is held
    /// (with the edition of the last load, nil if there was none: a build that found nothing
    /// to do loads nothing); the caches are written after it, off the way from a save to the reload event.
    func build(_ built: (Edition?, EditionFilter, BuildReport) -> Void) throws(SiteError) {
        let now = try settings.clock().get()
        let filter = EditionFilter(now: now, includeDrafts: settings.includeDrafts, includeFuture: settings.includeFuture)
        let config = try Edition.loadConfig(directory: settings.site)
        let basePath = Permalinks(config: config, clock: ReaderClock(timeZone: config.timeZone, languages: [])).basePath
        let lock = try BuildLock.acquire(site: settings.site, output: output, timeout: settings.lockTimeout) { [warn] in warn($0) }
        defer {
            session.finish(lock: lock)
            lock.release()
        }
        let report = try SiteBuild.run(site: settings.site, baseURLOverride: origin + basePath,
                                       options: BuildOptions(output: output, filter: filter), lock: lock, session: session)
        built(session.edition, filter, report)
    }

    /// The served site's base path and what `serve` adds to its story pages: a banner on each draft and scheduled
    /// story, a link to the phone preview on each breaking one.
    static func servedSite(_ edition: Edition, filter: EditionFilter) -> ServedSite {
        let config = edition.config
        let clock = ReaderClock(timeZone: config.timeZone, languages: config.languages)
        let links = Permalinks(config: config, clock: clock)
        var pages: [String: PageNotes] = [:]
        // By place, each field read once and the filter asked last: this runs over every story at every save, and a
        // story taken out of the array is copied (a retain per field).
        for place in edition.stories.indices {
            let draft = edition.stories[place].draft, published = edition.stories[place].published
            let breaking = edition.stories[place].breaking
            guard draft || published > filter.now || breaking else { continue }
            let story = edition.stories[place]
            guard filter.shows(story) else { continue }
            var notes = PageNotes()
            if draft { notes.banners.append("Draft") }
            if published > filter.now { notes.banners.append(scheduled(published, timeZone: clock.timeZone)) }
            if breaking { notes.pushStoryID = story.id }
            for path in links.story(story, in: config.languages) { pages[links.href(path)] = notes }
        }
        return ServedSite(basePath: links.basePath, pages: pages)
    }

    /// "Scheduled for 29 November 2026, 14:05 CET": in the site's time zone, as the newsroom reads its clock.
    static func scheduled(_ time: Timestamp, timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = timeZone
        formatter.dateFormat = "d MMMM yyyy, HH:mm zzz"
        return "Scheduled for " + formatter.string(from: time.date)
    }
}

/// A value read and replaced from several threads.
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
