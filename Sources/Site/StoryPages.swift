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
    static let kind = "pages"
    /// Input: the theme (every file of `templates/`), by a digest of their paths and bytes.
    static let theme = "theme"
    /// Input: the media files a story shows, by the story task's name: a hash of their contents and of the media
    /// settings (`PublishedMedia.key(for:)`).
    static let media = "media"

    /// A task's result: the stamp of each file it staged, in config order, and the hash of their bytes.
    struct Made: Sendable {
        var stamps: [FileStamp?]
        var hash: UInt64
    }

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
            let full = try context.edition.withBodies(story)
            var made = Made(stamps: [], hash: 0)
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

    /// The name of a story's task: its file's path under `content/`.
    static func taskName(_ story: Story) -> String {
        String(story.sourcePath.dropFirst(Edition.contentFolder.count + 1))
    }

    /// Brings the pages of the build's stories up to date and keeps the engine's trace of them: a story's pages are
    /// kept when its task is current and its files are as the last build into this folder left them; otherwise the
    /// task runs (again) and stages them. `files`: the pages' files, story by story in the order of
    /// `context.stories`, each story's in config order, at the start of the build's list of files.
    static func produce(_ site: inout SiteEngine, files: [String], context: PageContext, media: PublishedMedia,
                        found: FoundOutput, writer: OutputWriter, options: MarkdownOptions,
                        progress: BuildProgress?) -> Produced {
        let stories = context.stories
        var keys: [Key] = []
        keys.reserveCapacity(stories.count)
        var keptStamps = [FileStamp?](repeating: nil, count: files.count)
        var again: Set<Key> = []
        var mediaKeys: [String: UInt64] = [:]
        var place = 0
        for (index, story) in stories.enumerated() {
            let name = taskName(story)
            let key = Key(kind, name)
            keys.append(key)
            if !story.media.isEmpty { mediaKeys[name] = media.key(for: story) }
            let count = context.facts.stories[index].pageLanguages.nonzeroBitCount
            // A current task whose files are not all as this folder's cache says must run again for their bytes.
            if let recorded = site.engine.recordedHash(of: key) {
                for offset in place..<place + count {
                    keptStamps[offset] = found.kept(files[offset], at: offset, fingerprint: recorded)
                    if keptStamps[offset] == nil { again.insert(key) }
                }
            }
            place += count
        }
        let inputs = PageInputs(files: site.files, themeDigest: site.themeDigest, media: mediaKeys)
        let changed = Set([Key(theme)] + mediaKeys.keys.map { Key(StoryPages.media, $0) })
        let report = site.engine.run(demand: site.demand + keys, inputs: inputs, changed: changed, again: again,
                                     extra: [kind: rule(context: context, writer: writer, options: options,
                                                        progress: progress)])
        site.changed = site.changed || !report.ran.isEmpty || !report.dropped.isEmpty
        var produced = Produced()
        for failure in report.failures.values.sorted(by: { $0.key < $1.key }) {
            produced.failures.append(OutputWork.diagnostic(failure.reason, output: writer.directory))
        }
        produced.fingerprints.reserveCapacity(files.count)
        produced.stamps.reserveCapacity(files.count)
        place = 0
        for (index, key) in keys.enumerated() {
            let count = context.facts.stories[index].pageLanguages.nonzeroBitCount
            if let made = report.ran[key] as? Made {
                produced.fingerprints += repeatElement(made.hash, count: count)
                produced.stamps += made.stamps
                produced.rendered += count
            } else {
                produced.fingerprints += repeatElement(site.engine.recordedHash(of: key) ?? 0, count: count)
                produced.stamps += keptStamps[place..<place + count]
            }
            place += count
        }
        return produced
    }
}

/// The inputs of a build's engine run: the site's files, folders and options (`SiteFiles`), the theme, and the media
/// each story shows, as the build's media step published them.
struct PageInputs: InputProvider {
    let files: SiteFiles
    let themeDigest: UInt64
    /// By story task name, for the stories that show media.
    let media: [String: UInt64]

    func provides(_ kind: String) -> Bool {
        kind == StoryPages.theme || kind == StoryPages.media || files.provides(kind)
    }

    func hash(of input: Key) throws -> UInt64 {
        switch input.kind {
        case StoryPages.theme: themeDigest
        case StoryPages.media: media[input.name] ?? 0
        default: try files.hash(of: input)
        }
    }

    func read(_ input: Key) throws -> Output {
        switch input.kind {
        case StoryPages.theme, StoryPages.media: Output((), hash: try hash(of: input))
        default: try files.read(input)
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
