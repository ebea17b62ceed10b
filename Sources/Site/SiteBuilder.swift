import News
import Incremental
import Markdown
import Templates

public struct BuildOptions: Sendable {
    /// Output folder; default `site/` in the site folder.
    public var output: String?
    public var filter: EditionFilter
    /// Ignore the build cache of the output folder: render every output (files whose bytes are unchanged are
    /// still left alone) and write a new cache.
    public var clean: Bool
    public init(output: String? = nil, filter: EditionFilter, clean: Bool = false) {
        self.output = output
        self.filter = filter
        self.clean = clean
    }
}

public struct BuildReport: Sendable, Hashable {
    public var stories: Int
    public var pages: Int
    public var written: Int
    public var unchanged: Int
    public var removed: Int
    public var output: String
    /// Photos of the media folder, and how many of them this build processed (the others came from the cache).
    public var photos = 0
    public var photosProcessed = 0
    /// The line that says why everything was built again although the site had been built before
    /// (`Edition.traceNote`); nil when nothing needs saying.
    public var rebuiltEverything: String?
}

/// `newsgen build`: renders an Edition into the output folder.
///
/// Steps: choose the stories the build shows → plan every output (story pages per language, front
/// pages, paginated category pages, feeds, sitemaps, robots.txt, root, 404, static assets) → render in
/// parallel into the staging area → commit (rename into place, remove stale files).
/// Any error before the commit leaves the previous site exactly as it was.
public enum SiteBuilder {
    /// A page of the site but the story pages (`StoryPages`), made by a task of the engine (`SitePages`). The few
    /// large cases are boxed (`indirect`): every value is as large as the largest case.
    enum Output: Sendable {
        case front(Language)
        indirect case category(CategoryListing)
        indirect case feed(FeedScope, Language, FeedFormat)
        case root
        case notFound
        case staticFile(String)
        /// A file of the media folder or a photo's variant: its place in `PageContext.media.outputs`.
        case media(Int)
    }

    /// One page of a category in one language, as planned: which page it is, the stories it shows (newest first),
    /// where its pager leads, and the languages that have the same page. Nothing here depends on how many archive
    /// pages there are, except the index's link to the newest one and the newest one's being the newest.
    struct CategoryListing: Sendable {
        var category: Category
        var language: Language
        var page: CategoryPage
        var stories: ArraySlice<Int>
        /// The page of newer stories (`rel="prev"`) and of older ones (`rel="next"`), when there is one.
        var newer: CategoryPage?
        var older: CategoryPage?
        /// The languages that have this page: every language for the index, those with at least `k` archive
        /// pages for archive page `k`.
        var alternates: [Language]
    }

    public static func outputDirectory(for edition: Edition, requested: String?) -> String {
        outputDirectory(site: edition.directory, requested: requested)
    }

    /// `site`: the absolute site folder.
    static func outputDirectory(site: String, requested: String?) -> String {
        requested.map(FileSystem.absolute) ?? site + "/site"
    }

    /// Removes an output folder of the site that nothing will build into again (`output`: absolute), its output
    /// cache first, so that no cache describes a folder that is gone.
    public static func removeOutput(site: String, output: String) {
        OutputCache.remove(site: site, output: output)
        FileSystem.removeTree(output)
    }

    /// Builds into `lock.output`: the lock, taken before the edition was loaded, makes this the only build that
    /// reads or writes the site's cache and that folder until it is released.
    /// `survey`: the output folder as looked at while the site was loading (`OutputSurvey.start`, with the same
    /// output and `--clean`); without it, or when it was made for another folder, it is looked at here.
    /// `session`: what the last build of the same process kept for this one (see `BuildSession`).
    public static func build(_ edition: Edition, options: BuildOptions, lock: BuildLock, survey: OutputSurvey? = nil,
                             session: BuildSession? = nil,
                             progress: (@Sendable (Int, Int) -> Void)? = nil) throws(SiteError) -> BuildReport {
        precondition(lock.site == edition.directory && lock.output == outputDirectory(for: edition, requested: options.output),
                     "a build holds the lock of its own site and output folder")
        let output = lock.output
        let config = edition.config
        let clock = ReaderClock(timeZone: config.timeZone, languages: config.languages)
        let links = Permalinks(config: config, clock: clock)
        guard var site = edition.engine.take() else { preconditionFailure("an edition is built once, by the build that loaded it") }
        // A build that stops before its pages still keeps what its load learnt (the parsed stories) for the next one.
        let media: PublishedMedia
        do {
            media = try MediaBuild.publish(edition, lock: lock)   // before anything is written to the output
        } catch {
            site.finish()
            throw error
        }
        var base = ContentHasher()
        base.combine(edition.fingerprint)
        base.combine(options.filter.includeDrafts)
        base.combine(options.filter.includeFuture)
        let baseFingerprint = base.value
        // Feed entries' body texts are kept between builds made from the same base (the cache is not read by
        // --clean, which renders everything, but is written).
        let feedEntries = FeedEntries(cache: (site: edition.directory, base: baseFingerprint, read: !options.clean))
        var withMedia = PageContext(edition: edition, links: links, clock: clock, filter: options.filter, feedEntries: feedEntries)
        withMedia.media = media
        let context = withMedia
        let stories = context.stories
        let now = options.filter.now
        let markdownOptions = MarkdownOptions(smartPunctuation: true, allowRawHTML: config.allowRawHTML)

        let writer: OutputWriter
        do {
            writer = try OutputWriter(directory: output)
        } catch {
            site.finish()
            throw SiteError([Diagnostic(path: error.path, message: "cannot write the output: \(error.reason)")])
        }
        // The build cache: an output whose fingerprint and file are as the last build left them is kept as it is.
        let survey = survey.flatMap { $0.site == edition.directory && $0.output == output && $0.clean == options.clean ? $0 : nil }
            ?? OutputSurvey(site: edition.directory, output: output, clean: options.clean)
        let found = FoundOutput(survey.findings())
        // Every output through the engine: the story pages first (where the last build listed them), then the other
        // pages, then the sitemaps.
        let outputs = plan(stories: stories, context: context, now: now)
        let pages = PageTasks.plan(outputs, context: context, media: media, now: now)
        let counter = progress.map { BuildProgress(total: pages.paths.count, report: $0) }
        let rules = [
            StoryPages.kind: StoryPages.rule(context: context, writer: writer, options: markdownOptions, progress: counter),
            SitePages.kind: SitePages.rule(context: context, writer: writer, now: now, options: markdownOptions,
                                           progress: counter),
            SitemapTasks.kind: SitemapTasks.rule(context: context, writer: writer, now: now),
        ]
        let produced = PageTasks.produce(&site, pages, rules: rules, found: found, output: writer.directory)
        site.finish()
        let paths = produced.paths
        if !produced.failures.isEmpty {
            writer.abort()
            throw SiteError(produced.failures)
        }
        // The feed texts to keep: those of every story in a feed of this build.
        var wantedTexts: [UInt64] = []
        for case .feed(let scope, let language, .rss) in outputs {
            for index in context.feedStories(scope, language) {
                if let key = feedEntries.key(stories[index], sourceHash: context.facts.stories[index].sourceHash, language) {
                    wantedTexts.append(key)
                }
            }
        }
        feedEntries.save(wanted: wantedTexts, lock: lock)
        let cached = found.cached
        do {
            // Everything kept as the cache said: the cache stays as it is (same paths, fingerprints and stamps).
            var inputs = inputsRecord(edition, stories: stories, filter: options.filter)
            if let new = inputs, let old = cached.inputs, old.key == new.key, old.validUntil == new.validUntil,
               old.stories == new.stories, old.builtAt <= new.builtAt {
                inputs = old   // the same output since the earlier time: the cache need not be written again
            }
            let untouched = produced.rendered == 0 && cached.files.count == paths.count && inputs == cached.inputs
            // No cache while files are being replaced: an interrupted commit leads to a full build next time.
            if !untouched { OutputCache.remove(site: edition.directory, output: output) }
            let summary = try writer.commit(files: paths, existing: found.files)
            let report = BuildReport(stories: stories.count, pages: paths.count, written: summary.written,
                                     unchanged: summary.unchanged, removed: summary.removed, output: output,
                                     photos: media.photos.count, photosProcessed: media.made.count,
                                     rebuiltEverything: edition.traceNote)
            if untouched && summary.written == 0 && summary.removed == 0 {
                if found.asCached { survey.leave(.unchanged(cached), lock: lock) }
                return report
            }
            if untouched { OutputCache.remove(site: edition.directory, output: output) }
            // The new cache's stamps and folders are looked at under the lock, but serve does it after the reload event.
            let (made, record, files) = (produced, inputs, paths)
            survey.leave(.written({
                newCache(paths: files, produced: made, summary: summary, found: found, output: output, inputs: record)
            }), lock: lock)
            return report
        } catch {
            writer.abort()
            throw SiteError([Diagnostic(path: error.path, message: "cannot write the output: \(error.reason)")],
                            changed: writer.changedFiles)
        }
    }

    /// The output cache after a committed build: each output with its fingerprint and the stamp of its file (the
    /// stamp it was kept with, the stamp it was written with, or the one it has now), and the stamps of the folders,
    /// looked at again only where entries may have changed.
    static func newCache(paths: [String], produced: Produced, summary: OutputWriter.Summary, found: FoundOutput,
                         output: String, inputs: OutputCache.Inputs?) -> OutputCache.Written {
        var stamps = produced.stamps
        let unknown = stamps.indices.filter { stamps[$0] == nil }
        for (index, stamp) in zip(unknown, FileSystem.stamps(of: unknown.map { paths[$0] }, under: output)) {
            stamps[index] = stamp
        }
        var entries: [(path: String, entry: OutputCache.Entry)] = []
        entries.reserveCapacity(paths.count)
        for index in paths.indices {
            guard let stamp = stamps[index] else { continue }
            entries.append((paths[index], OutputCache.Entry(fingerprint: produced.fingerprints[index], stamp: stamp)))
        }
        // Without stamps from the start (a build without a cache), every folder that holds an output is looked at.
        var recheck: Set<String> = []
        func addFolders(holding file: String) {   // a folder's ancestors are in the set once it is
            var folder = String(FileSystem.folder(holding: file))
            while recheck.insert(folder).inserted, !folder.isEmpty { folder = String(FileSystem.folder(holding: folder)) }
        }
        if found.cached.folders.isEmpty {
            for path in paths { addFolders(holding: path) }
        } else {
            for file in summary.writtenFiles { addFolders(holding: file) }
            for file in summary.unplanned { addFolders(holding: file) }
        }
        let rechecked = Array(recheck)
        let folders = found.folderStamps.updated(with: Array(zip(rechecked, FileSystem.stamps(of: rechecked, under: output, folders: true))))
        return OutputCache.Written(entries: entries, inputs: inputs, folders: folders)
    }

    /// The report of a build that has nothing to do, or nil when there may be something: the output folder is as
    /// the last build into it left it (`survey`), and that build was made from the same inputs (`snapshot`), with
    /// the same flags, at a time since which nothing that depends on the time (a scheduled story appearing, a
    /// story entering or leaving the Google News window) has changed. Nothing is loaded or parsed.
    public static func upToDate(_ snapshot: InputSnapshot, survey: OutputSurvey, options: BuildOptions) -> BuildReport? {
        guard !options.clean, survey.site == snapshot.root, !survey.clean,
              survey.output == outputDirectory(site: snapshot.root, requested: options.output) else { return nil }
        // The cache's record first: when the inputs differ, the build goes on without waiting for the look at the
        // output folder, which then overlaps with loading the site.
        guard let inputs = survey.cachedInputs(),
              inputs.key == inputsKey(snapshot, filter: options.filter),
              inputs.builtAt <= options.filter.now.secondsSinceEpoch,
              options.filter.now.secondsSinceEpoch < inputs.validUntil,
              let files = survey.filesIfAsCached() else { return nil }
        return BuildReport(stories: inputs.stories, pages: files, written: 0, unchanged: files, removed: 0,
                           output: survey.output)
    }

    static func inputsKey(_ snapshot: InputSnapshot, filter: EditionFilter) -> UInt64 {
        var digest = ContentHasher()
        digest.combine(snapshot.key)
        digest.combine(filter.includeDrafts)
        digest.combine(filter.includeFuture)
        return digest.value
    }

    /// What this build is made from, for `upToDate` next time; nil when the edition was not loaded from a snapshot,
    /// when a story file had changed so recently when the snapshot was taken that its stamp cannot be trusted (see
    /// `FileStamp.settled`: however long the build took since), or when
    /// the output depends on the time itself (no story shown: an empty feed is dated "now").
    static func inputsRecord(_ edition: Edition, stories shown: [Story], filter: EditionFilter) -> OutputCache.Inputs? {
        guard let snapshot = edition.inputs, !shown.isEmpty,
              snapshot.newestModification < FileStamp.settled(before: snapshot.takenAt) else { return nil }
        let now = filter.now.secondsSinceEpoch
        var validUntil = Double.infinity
        for place in edition.stories.indices {
            let published = edition.stories[place].published.secondsSinceEpoch
            if published > now {
                validUntil = min(validUntil, published)   // appears (or enters the news window) then
            } else if NewsSitemap.isRecent(edition.stories[place].published, now: filter.now) {
                validUntil = min(validUntil, published + NewsSitemap.window)   // leaves the news window after
            }
        }
        return OutputCache.Inputs(key: inputsKey(snapshot, filter: filter), builtAt: now, validUntil: validUntil,
                                  stories: shown.count)
    }

    /// The current stamp of each folder of `folders` that is still a folder, and the folders whose stamp is not
    /// the one recorded (gone ones included).
    static func checkFolders(_ output: String, _ folders: FolderStamps)
        -> (current: [(path: String, stamp: FileStamp)], changed: Set<String>) {
        let known = folders.folders
        var current: [(path: String, stamp: FileStamp)] = []
        current.reserveCapacity(known.count)
        var changed: Set<String> = []
        for (folder, stamp) in zip(known, FileSystem.stamps(of: known.map(\.path), under: output, folders: true)) {
            if let stamp { current.append((folder.path, stamp)) }
            if stamp != folder.stamp { changed.insert(folder.path) }
        }
        return (current, changed)
    }

    /// Every file in the output folder with its stamp (for the cache check, to find the files to remove and for
    /// the new stamps), and the current stamps of the folders the cache knows.
    ///
    /// Without a build cache (the first build, `--clean`, or after a cache was lost) the folder is walked. With
    /// one, walking it would cost more than the rest of a rebuild (30,000 folders for 10,000 stories), and so would
    /// a `stat` of every file: only the folders are looked up (on every core). A folder's stamp changes whenever an
    /// entry in it is added, removed or replaced, so only in folders whose stamp changed are files looked at: each
    /// file is stat'ed, and whatever the cache does not know (something other than newsgen put it there) is
    /// listed, to be removed like any file that is no longer part of the site. Elsewhere the files are as the
    /// last build left them. (A file rewritten in place leaves its folder's stamp alone: `--clean` restores it.)
    /// `folders`: `checkFolders` of the cache's folders.
    static func listOutput(_ output: String, cached: OutputCache.Contents,
                           folders: (current: [(path: String, stamp: FileStamp)], changed: Set<String>))
        -> (files: [(path: String, stamp: FileStamp)], folders: FolderStamps, asCached: Bool) {
        guard !cached.files.isEmpty, !cached.folders.isEmpty else {
            return (FileSystem.stampedFiles(under: output, includeHidden: true), FolderStamps(), false)
        }
        let known = cached.folders.folders
        let (current, changed) = folders
        if changed.isEmpty { return ([], FolderStamps(sorted: current), true) }   // the files are the cache's
        let knownFolders = changed.isEmpty ? [] : Set(known.map(\.path))
        var listed: [(path: String, stamp: FileStamp)] = []
        listed.reserveCapacity(cached.files.count)
        var toCheck: [String] = []
        for (file, entry) in zip(cached.files.paths, cached.entries) {
            if !changed.isEmpty, changed.contains(String(FileSystem.folder(holding: file))) {
                toCheck.append(file)
            } else {
                listed.append((file, entry.stamp))
            }
        }
        for (file, stamp) in zip(toCheck, FileSystem.stamps(of: toCheck, under: output)) {
            if let stamp { listed.append((file, stamp)) }
        }
        let stillThere = changed.isEmpty ? [] : Set(current.map(\.path))
        for folder in changed where stillThere.contains(folder) {
            for name in FileSystem.entries(of: folder.isEmpty ? output : output + "/" + folder) {
                let child = folder.isEmpty ? name : folder + "/" + name
                if cached.files.contains(child) || knownFolders.contains(child) { continue }
                if folder.isEmpty && name.hasPrefix(OutputWriter.reservedPrefix) { continue }
                if let stamp = FileStamp.of(output + "/" + child) {
                    listed.append((child, stamp))
                } else {
                    listed += FileSystem.stampedFiles(under: output + "/" + child, includeHidden: true)
                        .map { (child + "/" + $0.path, $0.stamp) }
                }
            }
        }
        return (listed, FolderStamps(sorted: current), changed.isEmpty)
    }

    /// Refuses output folders that would overwrite or delete the site's own sources.
    static func unsafeOutputProblem(_ output: String, site root: String) -> String? {
        let protected = [root, root + "/" + Edition.contentFolder, root + "/" + Edition.templatesFolder,
                         root + "/" + MediaReference.folder]
        for path in protected where path == output || path.hasPrefix(output + "/") || (output.hasPrefix(path + "/") && path != root) {
            return "the output folder \(output) would overwrite the site's sources (\(path)); choose another folder"
        }
        if output == "/" { return "the output folder cannot be /" }
        return nil
    }

    /// Which stories each language lists, and in each category and language the stories and the pages they fill.
    struct Listings {
        var available: [String: [Int]] = [:]
        var members: [String: [String: [Int]]] = [:]
        let pageSize: Int

        init(stories: [Story], context: PageContext) {
            let config = context.config
            pageSize = config.pageSize
            for (languagePlace, language) in config.languages.enumerated() {
                let list = stories.indices.filter { context.hasPage(at: $0, languagePlace: languagePlace) }
                available[language.code] = list
                var byCategory = [[Int]](repeating: [], count: config.categories.count)
                for index in list {
                    for category in context.facts.stories[index].categoryPlaces { byCategory[category].append(index) }
                }
                for (place, category) in config.categories.enumerated() {
                    members[language.code, default: [:]][category.slug] = byCategory[place]
                }
            }
        }

        /// The category's stories in `language`, newest first.
        func stories(_ language: Language, _ category: Category) -> [Int] { members[language.code]?[category.slug] ?? [] }

        /// How many archive pages the stories older than the index fill: ceil(max(0, n − size) / size).
        func archivePages(_ language: Language, _ category: Category) -> Int {
            let older = max(0, stories(language, category).count - pageSize)
            return (older + pageSize - 1) / pageSize
        }

        /// The category's pages in `language`: the index, then the archive pages from the oldest.
        func pages(_ language: Language, _ category: Category) -> [CategoryPage] {
            [.index] + (0..<archivePages(language, category)).map { .archive($0 + 1) }
        }

        /// The stories `page` shows, newest first: the index the newest `pageSize`; archive page k the k-th
        /// `pageSize` of the older ones counted from the oldest, so the newest archive page may hold fewer.
        func stories(_ language: Language, _ category: Category, on page: CategoryPage) -> ArraySlice<Int> {
            let all = stories(language, category)
            switch page {
            case .index:
                return all.prefix(pageSize)
            case .archive(let number):
                guard number >= 1, number <= archivePages(language, category) else { return [] }
                let end = all.count - (number - 1) * pageSize
                return all[max(pageSize, end - pageSize)..<end]
            }
        }

        /// The languages in which the category has `page`.
        func languages(_ category: Category, page: CategoryPage, in config: SiteConfig) -> [Language] {
            switch page {
            case .index: return config.languages
            case .archive(let number): return config.languages.filter { archivePages($0, category) >= number }
            }
        }

        /// `page` as planned, with its pager: the index leads to the newest archive page; archive page k to k − 1
        /// (older) and to k + 1 (newer), the newest archive page back to the index.
        func listing(_ category: Category, _ language: Language, _ page: CategoryPage, in config: SiteConfig) -> CategoryListing {
            let archive = archivePages(language, category)
            let newer: CategoryPage?, older: CategoryPage?
            switch page {
            case .index:
                (newer, older) = (nil, archive > 0 ? .archive(archive) : nil)
            case .archive(let number):
                (newer, older) = (number < archive ? .archive(number + 1) : .index, number > 1 ? .archive(number - 1) : nil)
            }
            return CategoryListing(category: category, language: language, page: page,
                                   stories: stories(language, category, on: page), newer: newer, older: older,
                                   alternates: languages(category, page: page, in: config))
        }
    }

    /// Every output except the story pages (`StoryPages`) and the sitemaps, news sitemaps and robots.txt
    /// (`SitemapTasks`).
    static func plan(stories: [Story], context: PageContext, now: Timestamp) -> [Output] {
        let config = context.config
        var others: [Output] = []
        let listings = Listings(stories: stories, context: context)
        for language in config.languages {
            others.append(.front(language))
            for format in FeedFormat.allCases { others.append(.feed(.front, language, format)) }
            for category in config.categories {
                for format in FeedFormat.allCases { others.append(.feed(.category(category), language, format)) }
                for page in listings.pages(language, category) {
                    others.append(.category(listings.listing(category, language, page, in: config)))
                }
            }
        }
        others.append(.root)
        others.append(.notFound)
        for file in context.edition.theme.staticFiles { others.append(.staticFile(file)) }
        for index in context.media.outputs.indices { others.append(.media(index)) }
        return others
    }

    /// The file an output is written to, relative to the output folder.
    static func path(_ output: Output, stories: [Story], context: PageContext) -> String {
        let links = context.links
        switch output {
        case .front(let language): return Permalinks.file(for: links.front(language))
        case .category(let listing):
            return Permalinks.file(for: links.category(listing.category, listing.language, page: listing.page))
        case .feed(let scope, let language, let format): return links.feed(scope, language, format)
        case .root: return "index.html"
        case .notFound: return "404.html"
        case .staticFile(let file): return "static/" + file
        case .media(let index): return context.media.outputs[index].path
        }
    }

    /// The bytes of the file an output becomes (at `path(output)`).
    static func render(_ output: Output, stories: [Story], context: PageContext, now: Timestamp,
                       options: MarkdownOptions) throws -> [UInt8] {
        let templates = context.edition.theme.templates
        let links = context.links
        let config = context.config
        switch output {
        case .front(let language):
            let cards = context.frontStories(language).map { context.card(stories[$0], language) }
            let title = config.title(in: language)
            let value = context.listPage(kind: "front", title: title,
                                         description: config.description[code: language.code] ?? "",
                                         language: language, relativeURL: links.front(language), url: links.front,
                                         cards: Array(cards), category: nil, pager: nil)
            return try templates.renderBytes("front", value)
        case .category(let listing):
            let (category, language, page) = (listing.category, listing.language, listing.page)
            let relative = links.category(category, language, page: page)
            var archivePage: Int?
            if case .archive(let number) = page { archivePage = number }
            let value = context.listPage(
                kind: "category", title: category.title(in: language), description: "",
                language: language, relativeURL: relative, url: { links.category(category, $0, page: page) },
                cards: listing.stories.map { context.card(stories[$0], language) }, category: category,
                pager: (archivePage, listing.newer.map { links.category(category, language, page: $0) },
                        listing.older.map { links.category(category, language, page: $0) }),
                alternateLanguages: listing.alternates)
            return try templates.renderBytes("category", value)
        case .feed(let scope, let language, let format):
            let feed = try context.feed(scope, language, now: now, options: options)
            return FeedWriter.bytes(feed, as: format)
        case .root, .notFound:
            let language = config.defaultLanguage
            var value = context.base(language, kind: output.isRoot ? "root" : "404",
                                     title: config.title[code: language.code] ?? "", description: "",
                                     relativeURL: output.isRoot ? "" : "404.html",
                                     alternateLanguages: config.languages, url: links.front)
            value["languages"] = .list(config.languages.map { language in
                .object([
                    "code": .string(language.code), "label": .string(language.label),
                    "dir": .string(language.direction.rawValue),
                    "href": .string(links.href(links.front(language))),
                    "strings": context.strings(language),
                ])
            })
            value["default_href"] = .string(links.href(links.front(language)))
            return try templates.renderBytes(output.isRoot ? "root" : "404", .object(value))
        case .staticFile(let file):
            return try FileSystem.read(context.edition.theme.directory + "/static/" + file)
        case .media(let index):
            let output = context.media.outputs[index]
            return try FileSystem.read(output.source)
        }
    }
}

extension SiteBuilder.Output {
    var isRoot: Bool { if case .root = self { return true } else { return false } }
}
