import Dispatch
import News
import Incremental
import Synchronization

/// The whole site, loaded and validated: config, theme and every story (drafts and future ones included;
/// which stories a build shows is decided by `EditionFilter`). Nothing downstream re-reads the sources.
public struct Edition: Sendable {
    /// The site folder (absolute).
    public let directory: String
    public let config: SiteConfig
    public let theme: Theme
    /// Every story, newest first (ties broken by id so that order is stable).
    public let stories: [Story]
    /// A hash of everything besides the stories that the pages are built from: the newsgen binary, the config
    /// file, the effective base URL and every file of the theme. Part of every output's fingerprint.
    public let fingerprint: UInt64
    /// What each `StoryCheck` given to `load` found, by its kind: the stories it applies to (places in `stories`), each
    /// with its value.
    public let checked: [String: [(place: Int, value: any Sendable)]]
    /// Each story's URLs, languages and category places, as its task of the engine made them: `facts[i]` is
    /// `stories[i]`'s.
    let facts: [StoryFacts]
    /// What the next load of the same session takes the stories over with (see `LoadedStories`); empty for a load
    /// without a session.
    let taskIndex: StoryIndex
    /// The engine that loaded the stories, for the build that follows to make their pages with (see `SiteEngine`).
    let engine: EngineHandoff

    public static let configFile = "newsgen.yml"
    public static let contentFolder = "content"
    public static let templatesFolder = "templates"

    /// How `load` uses the parsed stories the last load kept (the trace of `StoryRules`, `.newsgen/trace` in the
    /// site folder). Only the holder of the site's build lock may write it.
    public enum CacheMode: Sendable {
        /// Read and parse every story; neither read nor write the cache.
        case off
        /// Take unchanged stories from the cache; never write it (`newsgen check`).
        case read
        /// Take unchanged stories from the cache and save it when something changed.
        case readWrite(BuildLock)
        /// Ignore the cache, parse every story and write a new cache (`newsgen build --clean`).
        case rebuild(BuildLock)

        var readsCache: Bool {
            switch self {
            case .read, .readWrite: true
            case .off, .rebuild: false
            }
        }

        /// The lock under which the cache is written, for the modes that write it.
        var writer: BuildLock? {
            switch self {
            case .readWrite(let lock), .rebuild(let lock): lock
            case .off, .read: nil
            }
        }
    }

    /// Loads the site in `directory`. Collects every problem of every file before throwing.
    /// Stories come without their bodies (`Story.bodiesLoaded` is false; `withBodies` reads them). With a cache
    /// mode other than `.off`, stories whose files did not change come from the cache; their problems were none
    /// when they were cached.
    /// `snapshot`: the site as `InputSnapshot.take` found it (with the same directory and base URL override); its
    /// config bytes and story files are used rather than read again.
    /// `checks`: work of other modules on each story, done by the same engine run (see `StoryCheck`).
    /// `session`: the engine is the one the session kept from its last load, told what changed since, and is kept
    /// there again instead of its trace being written (see `BuildSession`).
    public static func load(directory: String, baseURLOverride: String? = nil, cache: CacheMode = .off,
                            snapshot: InputSnapshot? = nil, checks: [StoryCheck] = [],
                            session: BuildSession? = nil) throws(SiteError) -> Edition {
        let root = FileSystem.absolute(directory)
        let snapshot = snapshot.flatMap { $0.root == root ? $0 : nil }
        var diagnostics: [Diagnostic] = []

        let (config, configBytes) = loadConfig(root: root, snapshot: snapshot, baseURLOverride: baseURLOverride,
                                               diagnostics: &diagnostics)
        guard let config, diagnostics.isEmpty else { throw SiteError(diagnostics) }

        let theme = Theme.load(directory: root + "/" + templatesFolder, displayPath: templatesFolder,
                               config: config, diagnostics: &diagnostics)
        let themeDigest = snapshot?.themeDigest ?? themeDigest(root: root)   // the snapshot has read the theme once already
        let listed = snapshot.flatMap { snapshot in snapshot.storyFiles.map { (files: $0, at: snapshot.takenAt) } }
        let (loaded, checked, engine, traceNote) = loadStories(root: root, cache: cache, listed: listed,
                                                            checks: checks, options: ["base-url": baseURLOverride ?? ""],
                                                            themeDigest: themeDigest, session: session,
                                                            diagnostics: &diagnostics)
        let stories = loaded.stories
        let media = MediaLibrary.list(root: root, settings: config.media)
        diagnostics += media.problems + media.check(stories)
        guard diagnostics.isEmpty, let theme else {
            engine?.finish()   // what was parsed is kept for the next load
            throw SiteError(diagnostics)
        }
        var digest = ContentHasher()
        digest.combine(BuildCache.executableIdentity)
        digest.combine(configBytes)
        digest.combine(config.baseURL)
        digest.combine(themeDigest)
        var edition = Edition(directory: root, config: config, theme: theme, stories: stories, fingerprint: digest.value,
                              checked: checked, facts: loaded.facts, taskIndex: loaded.taskIndex, engine: EngineHandoff(engine))
        edition.inputs = snapshot
        edition.media = media
        edition.traceNote = traceNote
        return edition
    }

    /// newsgen.yml of the site in `root` (absolute), read and validated, with its bytes; nil with the problems in
    /// `diagnostics`. What `load` starts with, and all that `newsgen new` needs of the site besides its story files.
    static func loadConfig(root: String, snapshot: InputSnapshot? = nil, baseURLOverride: String? = nil,
                           diagnostics: inout [Diagnostic]) -> (SiteConfig?, [UInt8]) {
        if let missing = missingConfig(root) {
            diagnostics.append(missing)
            return (nil, [])
        }
        var config: SiteConfig?
        var configBytes: [UInt8] = []
        switch Result(catching: { () throws(FileSystem.Failure) in
            if let bytes = snapshot?.configBytes { return bytes }
            return try FileSystem.readInput(root + "/" + configFile)
        }) {
        case .success(let bytes):
            configBytes = bytes
            if let text = String(validating: bytes, as: UTF8.self) {
                config = SiteConfig.parse(text, path: configFile, diagnostics: &diagnostics)
            } else {
                diagnostics.append(Diagnostic(path: configFile, message: "the file is not valid UTF-8; save it as UTF-8"))
            }
        case .failure(let error):
            diagnostics.append(Diagnostic(path: configFile, message: "cannot read: \(error.reason)"))
        }
        if let override = baseURLOverride {
            if let problem = SiteConfig.baseURLProblem(override) {
                diagnostics.append(Diagnostic(path: "--base-url", message: problem))
            } else {
                config?.baseURL = override.hasSuffix("/") ? override : override + "/"
            }
        }
        return (diagnostics.isEmpty ? config : nil, configBytes)
    }

    /// The snapshot the edition was loaded from, if it was (see `InputSnapshot`).
    var inputs: InputSnapshot?

    /// The files of `media/` (see `MediaLibrary`), every story's references to them checked.
    public internal(set) var media = MediaLibrary()

    /// The line that tells a person why this load could not start from what the last one learnt (the site's trace
    /// was written by another newsgen binary, or is damaged): then every story is parsed and every page made again.
    /// Nil when it could, or when there was no trace to start from (a first build, or after `--clean`).
    var traceNote: String?

    /// A hash of every file of the theme (`templates/`), by path and bytes.
    /// The error for a folder that is not a site (`root`: absolute).
    static func missingConfig(_ root: String) -> Diagnostic? {
        if FileSystem.exists(root + "/" + configFile) { return nil }
        return Diagnostic(path: configFile, message: "no newsgen.yml here (\(root)); run newsgen in a site folder or pass --site DIR")
    }

    static func themeDigest(root: String) -> UInt64 {
        var digest = ContentHasher()
        let templates = root + "/" + templatesFolder
        let listing = FileSystem.sources(under: templates, includeHiddenFiles: false)
        for (file, _) in listing.files {
            digest.combine(file)
            digest.combine((try? FileSystem.readInput(templates + "/" + file)) ?? [0xFF, 0xFE])
        }
        for problem in listing.problems {
            digest.combine(problem.path)
            digest.combine(problem.reason)
        }
        return digest.value
    }

    /// The story with its bodies: itself when they are loaded, otherwise read again from its file, which
    /// must still hold the bytes the story was parsed from (`sourceHash`, of its `StoryFacts`).
    func withBodies(_ story: Story, sourceHash: UInt64) throws(FileSystem.Failure) -> Story {
        if story.bodiesLoaded { return story }
        let path = directory + "/" + story.sourcePath
        let bytes = try FileSystem.readInput(path)
        // The same bytes as when the story was parsed, so each body is where parsing found it.
        guard ContentHasher.hash(bytes) == sourceHash,
              story.bodies.values.allSatisfy({ $0.sourceRange.upperBound <= bytes.count }) else {
            throw FileSystem.Failure(path: story.sourcePath, reason: "the file changed while the site was being built; run the build again")
        }
        var loaded = story
        for (code, body) in story.bodies {
            loaded.bodies[code]?.text = StoryBody.text(in: bytes, body.sourceRange)
        }
        loaded.bodiesLoaded = true
        return loaded
    }

    /// `listed`: the story files as an `InputSnapshot` found them, and when it looked; nil to look now.
    /// The load's engine run is partial: the build that follows runs it again with the story pages (`SiteEngine`).
    private static func loadStories(root: String, cache: CacheMode, listed: (files: FileSystem.SourceListing, at: Int64)?,
                                    checks: [StoryCheck], options: [String: String], themeDigest: UInt64,
                                    session: BuildSession?, diagnostics: inout [Diagnostic])
        -> (stories: LoadedStories, checked: [String: [(place: Int, value: any Sendable)]], engine: SiteEngine?, traceNote: String?) {
        let contentDirectory = root + "/" + contentFolder
        guard FileSystem.isDirectory(contentDirectory) else {
            diagnostics.append(Diagnostic(path: contentFolder, message: "the content folder is missing"))
            return (LoadedStories(), [:], nil, nil)
        }
        let listedAt = listed?.at ?? BuildCache.nowNanoseconds()
        let tracePath = StoryRules.tracePath(site: root)
        let rules = checks.reduce(into: StoryRules.rules) { rules, check in rules.merge(check.rules) { own, _ in own } }
        var kept = cache.readsCache ? session?.takeEngine() : nil
        let changedSinceKept = kept?.changed
        let loadTrace: @Sendable () -> (Engine, Engine.TraceStatus) = {
            cache.readsCache ? Engine.load(from: tracePath, rules: rules, world: BuildCache.executableIdentity)
                             : (Engine(rules: rules, world: BuildCache.executableIdentity), .missing)
        }
        let listing: FileSystem.SourceListing
        var (engine, status): (Engine, Engine.TraceStatus)
        // Taken out of `kept`, so that the engine's trace has one owner: a second one makes its first change copy it all.
        if let keptEngine = kept.take()?.engine {
            (engine, status) = (keptEngine, .loaded)
            listing = listed?.files ?? storyFiles(in: contentDirectory)
        } else if let listed {
            listing = listed.files
            (engine, status) = loadTrace()
        } else {
            // `check` and `publish` look at the story files here (a build has its snapshot's look): the trace is read
            // meanwhile on the other core, since neither needs the other (13 % off publish --dry-run at 10,000 stories).
            (listing, (engine, status)) = bothAtOnce({ storyFiles(in: contentDirectory) }, loadTrace)
        }
        diagnostics += Self.diagnostics(listing.problems, in: contentFolder)
        if session != nil, cache.writer != nil { engine.runsAgain = true }   // kept by the session (see `keep` below)
        let inputs = SiteFiles(root: root, listed: listing, listedAt: listedAt, options: options)
        let storyKeys = listing.files.map { Key(StoryRules.story, $0.path) }
        // The checks' tasks are known only once the stories are: first those the last run demanded, then, when
        // the stories call for others, a second run (which finds no input changed, so it costs lookups).
        var checkKeys = checks.flatMap { check in
            engine.demanded(kind: check.kind).filter { listing.stamp(of: $0.name) != nil }.sorted()
        }
        // The stories of the last load of the same session (serve), which this one takes over: then it asks only for
        // the values of the stories that changed, not for every story's.
        var previous = cache.readsCache ? session?.takeStories(root: root) : nil
        let valuesOfAll = previous == nil
        var report = engine.run(demand: storyKeys + checkKeys, inputs: inputs, changed: changedSinceKept,
                                valuesOfDemand: valuesOfAll, partial: true)
        let firstValues = report.values
        let changedSince = previous?.taskIndex.mark.flatMap { engine.changes(since: $0) }
        var loaded = LoadedStories.collect(keys: storyKeys, previous: &previous, changed: changedSince,
                                           keepTasks: session != nil) { index in
            (valuesOfAll ? firstValues[index]
                         : report.ran[storyKeys[index]] ?? engine.recordedValue(of: storyKeys[index])) as? ParsedStory
        }
        diagnostics += loaded.problems
        // The stories each check applies to, by the name of their task.
        let wanted = checks.flatMap { check in
            loaded.stories.indices.filter { check.applies(loaded.stories[$0]) }.map { place in
                (key: Key(check.kind, String(loaded.stories[place].sourcePath.dropFirst(contentFolder.count + 1))), place: place)
            }.sorted { $0.key < $1.key }
        }
        var changed = !report.ran.isEmpty || !report.dropped.isEmpty
        if wanted.map(\.key) != checkKeys {
            checkKeys = wanted.map(\.key)
            let again = engine.run(demand: storyKeys + checkKeys, inputs: inputs, changed: [], valuesOfDemand: valuesOfAll,
                                   partial: true)
            changed = changed || !again.ran.isEmpty || !again.dropped.isEmpty
            report.failures.merge(again.failures) { first, _ in first }
            report.ran.merge(again.ran) { _, new in new }
            report.values = again.values
        }
        loaded.taskIndex.mark = engine.mark   // what the stories are taken from
        var checked: [String: [(place: Int, value: any Sendable)]] = [:]
        for (index, (key, place)) in wanted.enumerated() {   // checkKeys is wanted's keys
            let value = valuesOfAll ? report.values[storyKeys.count + index] : report.ran[key] ?? engine.recordedValue(of: key)
            guard let value else { continue }
            checked[key.kind, default: []].append((place, value))
        }
        for check in checks where checked[check.kind] == nil { checked[check.kind] = [] }
        for failure in report.failures.values.sorted(by: { $0.key < $1.key }) {
            if let error = failure.reason as? FileSystem.Failure {
                diagnostics.append(Diagnostic(path: error.path, message: error.reason))
            } else {
                diagnostics.append(Diagnostic(path: failure.key.name, message: "\(failure.reason)"))
            }
        }
        if !loaded.keysAsBefore { diagnostics += crossCheck(loaded.stories) }
        let siteEngine = SiteEngine(engine: engine, files: inputs, demand: storyKeys + checkKeys, themeDigest: themeDigest,
                                    changed: status != .loaded || changed, cache: cache, session: session)
        let traceNote: String? = switch status {
        case .otherWorld: "built everything again: \(StoryRules.traceFile) was written by another newsgen binary"
        case .ignored(let reason): "built everything again: \(StoryRules.traceFile) could not be used (\(reason))"
        case .loaded, .missing: nil
        }
        return (loaded, checked, siteEngine, traceNote)
    }

    /// `first` and `second` at the same time, each on a core of its own when there are two; both results.
    private static func bothAtOnce<A: Sendable, B: Sendable>(_ first: @Sendable () -> A, _ second: @Sendable () -> B) -> (A, B) {
        let firstResult = Mutex<A?>(nil), secondResult = Mutex<B?>(nil)
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            if index == 0 {
                let result = first()
                firstResult.withLock { $0 = result }
            } else {
                let result = second()
                secondResult.withLock { $0 = result }
            }
        }
        return (firstResult.withLock { $0.take()! }, secondResult.withLock { $0.take()! })
    }

    /// The story files under a content folder (relative paths, sorted) with their stamps, and the problems that
    /// keep stories out: folders that cannot be read, and `.md` entries that are not (links to) regular files in
    /// the folder (see `FileSystem.sources`). Hidden .md files are included on purpose: `.draft.md` would otherwise
    /// vanish silently; its slug is refused with a message. Hidden folders (an editor's `.trash/`, `.git/`) are not
    /// part of the site.
    static func storyFiles(in contentDirectory: String) -> FileSystem.SourceListing {
        var listing = FileSystem.sources(under: contentDirectory, includeHiddenFiles: true)
        listing.files.removeAll { !$0.path.hasSuffix(".md") }
        listing.problems.removeAll { !$0.isFolder && !$0.path.hasSuffix(".md") }
        return listing
    }

    /// The problems of a source listing as diagnostics, the paths relative to the site.
    static func diagnostics(_ problems: [FileSystem.ListingProblem], in folder: String) -> [Diagnostic] {
        problems.map { Diagnostic(path: $0.path.isEmpty ? folder : folder + "/" + $0.path, message: $0.reason) }
    }

    /// Problems that involve several stories: duplicate ids and duplicate slugs.
    static func crossCheck(_ stories: [Story]) -> [Diagnostic] {
        // The common case first: no id and no slug used twice (one pass, no sorting).
        var ids = Set<String>(minimumCapacity: stories.count)
        var slugs = Set<String>(minimumCapacity: stories.count)
        if stories.indices.allSatisfy({ ids.insert(stories[$0].id).inserted && slugs.insert(stories[$0].slug).inserted }) {
            return []
        }
        var taken = StoryKeys()
        return stories.sorted(by: { $0.sourcePath < $1.sourcePath }).flatMap {
            taken.add(id: $0.id, slug: $0.slug, sourcePath: $0.sourcePath)
        }
    }
}

/// The ids and slugs of the stories seen so far: ids and slugs are unique across the whole of content/.
/// `check` adds every story in path order; `newsgen new` adds the story files there are, then the new one.
struct StoryKeys {
    private var byID: [String: String] = [:]     // id → the source path of the story that has it
    private var bySlug: [String: String] = [:]

    /// Takes the story's id and slug; the problems when another story has either.
    mutating func add(id: String, slug: String, sourcePath: String) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        if let other = byID[id] {
            diagnostics.append(Diagnostic(path: sourcePath, location: .init(line: 1, column: 1),
                                          message: "duplicate story id \"\(id)\" (also used by \(other)); ids must be unique"))
        } else {
            byID[id] = sourcePath
        }
        if let other = bySlug[slug] {
            diagnostics.append(Diagnostic(path: sourcePath, location: .init(line: 1, column: 1),
                                          message: "duplicate slug \"\(slug)\" (also used by \(other)); rename one of the files"))
        } else {
            bySlug[slug] = sourcePath
        }
        return diagnostics
    }
}

/// Which stories an output shows.
public struct EditionFilter: Sendable, Hashable {
    /// "Now": the clock, or `SOURCE_DATE_EPOCH` when set.
    public var now: Timestamp
    public var includeDrafts = false
    public var includeFuture = false

    public init(now: Timestamp, includeDrafts: Bool = false, includeFuture: Bool = false) {
        self.now = now
        self.includeDrafts = includeDrafts
        self.includeFuture = includeFuture
    }

    public func shows(_ story: Story) -> Bool {
        (includeDrafts || !story.draft) && (includeFuture || story.published <= now)
    }

    /// `SOURCE_DATE_EPOCH` if set (reproducible builds), else the clock.
    public static func currentTime(environment: [String: String]) -> Result<Timestamp, SiteError> {
        if let text = environment["SOURCE_DATE_EPOCH"] {
            guard let seconds = Int(text.strip(" \n")), seconds >= 0 else {
                return .failure(SiteError([Diagnostic(path: "SOURCE_DATE_EPOCH",
                                                      message: "must be a whole number of seconds since 1970, found \"\(text)\"")]))
            }
            // At most a day before the year 10000, so that "now" has a four-digit year in any time zone (RFC 3339).
            guard seconds <= 253_402_214_399 else {
                return .failure(SiteError([Diagnostic(path: "SOURCE_DATE_EPOCH",
                                                      message: "must be at most 253402214399 (9999-12-30T23:59:59Z), found \"\(text)\"")]))
            }
            return .success(Timestamp(secondsSinceEpoch: Double(seconds)))
        }
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return .success(Timestamp(secondsSinceEpoch: Double(spec.tv_sec)))
    }
}

#if canImport(Glibc)
import Glibc
#endif
