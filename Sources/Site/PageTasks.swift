import News
import Incremental
import Markdown
import Synchronization

/// A story's pages (one per language it has a page in) as a task of the incremental engine, named like the story's
/// own task (the file's path under `content/`).
///
/// The task reads, through its `Fetch`, the story with its facts (URLs, languages), `newsgen.yml` as the build sees
/// it, the theme, and the media files the story shows: the engine runs it again exactly when one of them changed,
/// and no list of what a story page is made from is kept anywhere else. It writes its files into the build's
/// staging folder as it runs and returns the hash of their bytes, so that a build of 100,000 stories never holds
/// their pages in memory (one task per story rather than per page keeps the trace a third as large).
enum StoryPages {
    static let kind = "story-pages"
    /// Input: the theme (every file of `templates/`), by a digest of their paths and bytes.
    static let theme = "theme"
    /// Input: the media files a story shows, by the story task's name: a hash of their contents and of the media
    /// settings (`PublishedMedia.key(for:)`).
    static let media = "media"

    /// The rule of one build: it renders with the build's `PageContext` and stages into its `writer`.
    ///
    /// The context is the build's, not read through `fetch`, but the rule takes from it only what the fetched values
    /// decide: the theme's templates and strings, the config's languages and settings, the links, the photos of the
    /// story's media, and the story's body, which `withBodies` reads from its file only when the bytes are those the
    /// story was parsed from.
    static func rule(context: PageContext, writer: OutputWriter, options: MarkdownOptions,
                     progress: BuildProgress?) -> Rule {
        Rule { key, fetch in
            let parsed = try fetch.value(Key(StoryRules.story, key.name), as: ParsedStory.self)
            guard let story = parsed.story, let facts = parsed.facts else {
                throw FileSystem.Failure(path: Edition.contentFolder + "/" + key.name,
                                         reason: "the file changed while the site was being built; run the build again")
            }
            let config = try SiteTasks.config(fetch)
            _ = try fetch.hash(of: Key(theme))
            if !story.media.isEmpty { _ = try fetch.hash(of: Key(media, key.name)) }
            let full = try context.edition.withBodies(story, sourceHash: facts.sourceHash)
            var made = PageTasks.Made(stamps: [], hash: 0)
            var digest = ContentHasher()
            for (place, language) in config.languages.enumerated() where facts.pageLanguages & (1 << UInt64(place)) != 0 {
                let bytes = try context.edition.theme.templates.renderBytes(
                    "story", context.storyPage(full, facts: facts, language, options: options))
                digest.combine(bytes)
                made.stamps.append(try writer.stage(facts.files[place], bytes))
            }
            made.hash = digest.value
            progress?.add(made.stamps.count)
            return Output(made, hash: made.hash)
        }
    }

    /// The name of a story's task, from the story's `sourcePath`: its file's path under `content/`.
    static func taskName(sourcePath: String) -> String {
        // By UTF-8 offset: `dropFirst` on the characters walks them, for every story of every build.
        String(Substring(sourcePath.utf8.dropFirst(Edition.contentFolder.utf8.count + 1)))
    }
}

/// Every output but the story pages and the generated files (sitemaps, robots.txt) as a task of the incremental
/// engine, one per file, named by its path in the output folder: the front pages, category pages and feeds, the root
/// and 404 pages, the theme's static files and the media files.
///
/// Which stories a list page shows, and where its pager leads, depends on every story of the build (their dates,
/// categories and languages): the build works it out once (`SiteBuilder.Listings`) and gives each page what it
/// needs as an input (`PlannedPage`). The task reads that, the stories it lists, `newsgen.yml` as the build sees
/// it, the theme and the listed stories' media through its `Fetch`, so it runs again exactly when one of them
/// changed. Like a story's pages, it stages its file as it runs.
enum SitePages {
    static let kind = "page"
    /// Input: what the build planned for a page, by its path (`PlannedPage`).
    static let planned = "planned"

    /// The rule of one build (see `StoryPages.rule` for what it takes from the build's context; a media file's bytes are
    /// those of the file its planned hash names). `now`: the build's.
    static func rule(context: PageContext, writer: OutputWriter, now: Timestamp, options: MarkdownOptions,
                     progress: BuildProgress?) -> Rule {
        Rule { key, fetch in
            let planned = try fetch.value(Key(planned, key.name), as: PlannedPage.self)
            _ = try fetch.hashes(of: planned.stories.map { Key(StoryRules.story, $0) })
            _ = try SiteTasks.config(fetch)
            _ = try fetch.hash(of: Key(StoryPages.theme))
            _ = try fetch.hashes(of: planned.showingMedia.map { Key(StoryPages.media, $0) })
            let bytes = try SiteBuilder.render(planned.output, stories: context.stories, context: context, now: now,
                                               options: options)
            let made = PageTasks.Made(stamps: [try writer.stage(key.name, bytes)], hash: ContentHasher.hash(bytes))
            progress?.add(1)
            return Output(made, hash: made.hash)
        }
    }
}

/// A page as the build planned it: the output (for a list page: which page, its pager and languages), the names of
/// the story tasks it lists, those of them that show media, and a hash of all of it, which is the input's.
struct PlannedPage: Sendable {
    let output: SiteBuilder.Output
    let stories: [String]
    let showingMedia: [String]
    let hash: UInt64

    /// `names`: the build's story task names, by place in `context.stories`, and a hash of each.
    init(_ output: SiteBuilder.Output, context: PageContext, names: [(name: String, hash: UInt64)], now: Timestamp) {
        self.output = output
        var digest = ContentHasher()
        let listed: [Int]
        switch output {
        case .front(let language):
            digest.combine("front")
            digest.combine(language.code)
            listed = context.frontStories(language)
        case .category(let listing):
            digest.combine("category")
            digest.combine(listing.category.slug)
            digest.combine(listing.language.code)
            for page in [listing.page, listing.newer, listing.older] {
                switch page {
                case nil: digest.combine(-1)
                case .index?: digest.combine(0)
                case .archive(let number)?: digest.combine(number)
                }
            }
            digest.combine(listing.alternates.count)
            for other in listing.alternates { digest.combine(other.code) }
            listed = Array(listing.stories)
        case .feed(let scope, let language, let format):
            digest.combine("feed")
            switch scope {
            case .front: digest.combine("front")
            case .category(let category): digest.combine(category.slug)
            }
            digest.combine(language.code)
            digest.combine(format.rawValue)
            listed = context.feedStories(scope, language)
            if listed.isEmpty {   // the date of an empty feed: the newest change, or "now"
                let date = context.stories.map(\.lastModified).max() ?? now
                digest.combine(date.secondsSinceEpoch)
                digest.combine(date.offsetSeconds)
            }
        case .root:
            digest.combine("root")
            listed = []
        case .notFound:
            digest.combine("404")
            listed = []
        case .staticFile(let file):   // its bytes are the theme's, which the task reads
            digest.combine("static")
            digest.combine(file)
            listed = []
        case .media(let index):
            digest.combine("media")
            digest.combine(context.media.outputs[index].path)
            digest.combine(context.media.outputs[index].fingerprint)
            listed = []
        }
        stories = listed.map { names[$0].name }
        showingMedia = listed.filter { !context.stories[$0].media.isEmpty }.map { names[$0].name }
        digest.combine(listed.count)
        for place in listed { digest.combine(names[place].hash) }
        hash = digest.value
    }
}

/// The outputs of a build as tasks of the engine, each staging its files as it runs: the story pages, the other pages,
/// and the sitemaps with robots.txt.
enum PageTasks {
    /// A task's result: the stamp of each file it staged, in order, and the hash of their bytes.
    struct Made: Sendable {
        var stamps: [FileStamp?]
        var hash: UInt64
    }

    /// A task and the places of its files in the build's list of files.
    struct Task {
        var key: Key
        var places: Range<Int>
    }

    /// The outputs of a build as tasks, with their files and what the build gives them as inputs.
    struct Plan {
        var tasks: [Task] = []
        /// The files of the page tasks, in order: the build's list of files starts with them.
        var paths: [String] = []
        /// The groups of sitemaps, in order: their files, known once they are made, end the build's list.
        var sitemaps: [Key] = []
        /// The hash of the media each story shows, by its task name, for those that show any.
        var media: [String: UInt64] = [:]
        var planned: [String: PlannedPage] = [:]
        var plannedSitemaps: [String: PlannedSitemaps] = [:]
    }

    /// Each story's pages (its files in config order), then each of `pages` (the other outputs the build planned),
    /// then the groups of sitemaps.
    static func plan(_ pages: [SiteBuilder.Output], context: PageContext, media: PublishedMedia, now: Timestamp) -> Plan {
        let stories = context.stories
        var plan = Plan()
        var names: [(name: String, hash: UInt64)] = []   // made once: a story is listed by many pages
        names.reserveCapacity(stories.count)
        plan.tasks.reserveCapacity(stories.count + pages.count)
        plan.paths.reserveCapacity(stories.indices.reduce(pages.count) {
            $0 + context.facts.stories[$1].pageLanguages.nonzeroBitCount
        })
        for index in stories.indices {
            let name = StoryPages.taskName(sourcePath: stories[index].sourcePath)
            names.append((name, ContentHasher.hash(name)))
            let facts = context.facts.stories[index]
            let first = plan.paths.count
            for place in context.config.languages.indices where context.hasPage(at: index, languagePlace: place) {
                plan.paths.append(facts.files[place])
            }
            plan.tasks.append(Task(key: Key(StoryPages.kind, name), places: first..<plan.paths.count))
            if !stories[index].media.isEmpty { plan.media[name] = media.key(for: stories[index]) }
        }
        for output in pages {
            let path = SiteBuilder.path(output, stories: stories, context: context)
            plan.tasks.append(Task(key: Key(SitePages.kind, path), places: plan.paths.count..<plan.paths.count + 1))
            plan.paths.append(path)
            plan.planned[path] = PlannedPage(output, context: context, names: names, now: now)
        }
        for (name, planned) in PlannedSitemaps.plan(stories: stories, facts: context.facts, links: context.links, now: now) {
            plan.sitemaps.append(Key(SitemapTasks.kind, name))
            plan.plannedSitemaps[name] = planned
        }
        return plan
    }

    /// Brings the planned tasks up to date, and with them the stories and the checks the load demanded, and keeps the
    /// engine's trace of them: a task's files are kept when it is current and they are as the last build into this
    /// folder left them; otherwise it runs (again) and stages them. `output`: the output folder, for messages.
    /// The files are the page tasks' (`plan.paths`), then the sitemaps', group by group.
    static func produce(_ site: inout SiteEngine, _ plan: Plan, rules: [String: Rule], found: FoundOutput,
                        output: String) -> Produced {
        let (tasks, paths) = (plan.tasks, plan.paths)
        let inputs = PageInputs(files: site.files, themeDigest: site.themeDigest, media: plan.media, planned: plan.planned,
                                sitemaps: plan.plannedSitemaps)
        let count = paths.count
        var changed = Set(inputs.media.keys.map { Key(StoryPages.media, $0) })
        changed.insert(Key(StoryPages.theme))
        for path in inputs.planned.keys { changed.insert(Key(SitePages.planned, path)) }
        for name in inputs.sitemaps.keys { changed.insert(Key(SitemapTasks.planned, name)) }
        let demand = site.demand + tasks.map(\.key) + plan.sitemaps
        var report = site.engine.run(demand: demand, inputs: inputs, changed: changed, extra: rules)
        // A current task whose files are not all as this folder's cache says (lost, or made for another folder) runs
        // again for their bytes: looked at after the run, which mostly leaves nothing to look at twice.
        var keptStamps = [FileStamp?](repeating: nil, count: count)
        var keptHashes = [UInt64](repeating: 0, count: tasks.count)
        var again: Set<Key> = []
        let firstTask = site.demand.count
        for (index, task) in tasks.enumerated() where report.ran[task.key] == nil {
            guard let recorded = report.hashes[firstTask + index] else { continue }   // failed
            keptHashes[index] = recorded
            for place in task.places {
                keptStamps[place] = found.kept(paths[place], at: place, fingerprint: recorded)
                if keptStamps[place] == nil { again.insert(task.key) }
            }
        }
        // A current group of sitemaps: its files are those its recorded result lists (after the pages', in the order
        // of the groups, which is where the last build listed them too when it made the same files).
        var keptSitemaps: [Key: SitemapTasks.Made] = [:]
        var place = count
        for (index, key) in plan.sitemaps.enumerated() {
            if let ran = report.ran[key] as? SitemapTasks.Made { place += ran.files.count }
            // Ran, or failed:
            guard report.ran[key] == nil, report.hashes[firstTask + tasks.count + index] != nil else { continue }
            guard var made = site.engine.recordedValue(of: key) as? SitemapTasks.Made else {
                again.insert(key)
                continue
            }
            made.stamps = made.files.enumerated().map { found.kept($1.path, at: place + $0, fingerprint: made.hash) }
            place += made.files.count
            if made.stamps.contains(nil) { again.insert(key) } else { keptSitemaps[key] = made }
        }
        if !again.isEmpty {
            let more = site.engine.run(demand: demand, inputs: inputs, changed: [], again: again, extra: rules)
            report.ran.merge(more.ran) { _, new in new }
            report.failures.merge(more.failures) { first, _ in first }
            report.dropped += more.dropped
        }
        site.changed = site.changed || !report.ran.isEmpty || !report.dropped.isEmpty
        var produced = Produced()
        for failure in report.failures.values.sorted(by: { $0.key < $1.key }) {
            produced.failures.append(Produced.diagnostic(failure.reason, output: output))
        }
        produced.paths = paths
        produced.fingerprints.reserveCapacity(count)
        produced.stamps.reserveCapacity(count)
        for (index, task) in tasks.enumerated() {
            if let made = report.ran[task.key] as? PageTasks.Made {
                produced.fingerprints += repeatElement(made.hash, count: task.places.count)
                produced.stamps += made.stamps
                produced.rendered += task.places.count
            } else {
                produced.fingerprints += repeatElement(keptHashes[index], count: task.places.count)
                produced.stamps += keptStamps[task.places]
            }
        }
        for key in plan.sitemaps {
            let ran = report.ran[key] as? SitemapTasks.Made
            guard let made = ran ?? keptSitemaps[key] else { continue }   // failed
            produced.paths += made.files.map(\.path)
            produced.fingerprints += repeatElement(made.hash, count: made.files.count)
            produced.stamps += made.stamps
            if ran != nil { produced.rendered += made.files.count }
        }
        return produced
    }
}

/// The inputs of a build's engine run: the site's files, folders and options (`SiteFiles`), the theme, the media each
/// story shows, as the build's media step published them, and what the build planned for each page and each group
/// of sitemaps.
struct PageInputs: InputProvider {
    let files: SiteFiles
    let themeDigest: UInt64
    /// By story task name, for the stories that show media.
    let media: [String: UInt64]
    /// By page path.
    let planned: [String: PlannedPage]
    /// By group name.
    let sitemaps: [String: PlannedSitemaps]

    func provides(_ kind: String) -> Bool {
        kind == StoryPages.theme || kind == StoryPages.media || kind == SitePages.planned || kind == SitemapTasks.planned
            || files.provides(kind)
    }

    func hash(of input: Key) throws -> UInt64 {
        switch input.kind {
        case StoryPages.theme: themeDigest
        case StoryPages.media: media[input.name] ?? 0
        case SitePages.planned: planned[input.name]?.hash ?? 0
        case SitemapTasks.planned: sitemaps[input.name]?.hash ?? 0
        default: try files.hash(of: input)
        }
    }

    func read(_ input: Key) throws -> Output {
        switch input.kind {
        case StoryPages.theme, StoryPages.media:
            return Output((), hash: try hash(of: input))
        case SitePages.planned:
            guard let planned = planned[input.name] else {
                throw FileSystem.Failure(path: input.name, reason: "no such page in this build")
            }
            return Output(planned, hash: planned.hash)
        case SitemapTasks.planned:
            guard let planned = sitemaps[input.name] else {
                throw FileSystem.Failure(path: input.name, reason: "no such group of sitemaps in this build")
            }
            return Output(planned, hash: planned.hash)
        default:
            return try files.read(input)
        }
    }
}

/// The engine that loaded an edition, until the build that follows has run the pages with it (`StoryPages`): then
/// its trace is saved, or given back to the session that keeps it.
struct SiteEngine: Sendable {
    var engine: Engine
    let files: SiteFiles
    /// The keys the load demanded: the stories and the checks of other modules.
    let demand: [Key]
    let themeDigest: UInt64
    /// The trace differs from its file.
    var changed: Bool
    let cache: Edition.CacheMode
    let session: BuildSession?

    /// Saves the trace (on another thread, under the build lock) or gives the engine back to the session; nothing
    /// for a load that does not write the cache.
    consuming func finish() {
        let root = files.root
        if let session, cache.writer != nil {
            session.keep(engine, root: root, changedTrace: changed)
        } else if let lock = cache.writer, changed {
            precondition(lock.site == root, "the trace is written under its own site's lock")
            let finished = engine
            lock.writeInBackground {
                try? FileSystem.createDirectories(root + "/" + BuildCache.storyCacheFolder)
                var engine = finished
                try? engine.save(to: StoryRules.tracePath(site: root))   // without it, the next build parses every story again
            }
        }
    }
}

/// Hands an edition's `SiteEngine` to the one build that takes it.
final class EngineHandoff: Sendable {
    private let engine: Mutex<SiteEngine?>

    init(_ engine: SiteEngine?) { self.engine = Mutex(engine) }

    func take() -> SiteEngine? { engine.withLock { $0.take() } }
}
