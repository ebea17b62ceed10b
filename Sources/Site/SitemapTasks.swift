import News
import Incremental

/// The sitemaps, news sitemaps and robots.txt as tasks of the incremental engine, in groups, so that a rebuild makes
/// only the groups whose inputs changed: one new story makes its month's sitemap, the pages sitemap, the index and
/// robots.txt again (and the news sitemaps when it is recent), and leaves every other month's file alone.
///
/// A group is one task, named by the group: `pages` (`sitemap-pages.xml`: the front and category pages), each
/// month's name (`sitemap-2026-11`: the pages of the stories of that month of their URL date), `news` (the Google News
/// sitemaps) and `index` (`sitemap.xml` and robots.txt). How many files a group has depends on its bytes (a file past
/// the limits is split), so the task's result is its files with their `lastmod`s, kept in the trace: the index reads
/// the other groups' results through its `Fetch`, and the build lists the files of a group that did not run from it.
///
/// Which stories a group shows depends on every story of the build: the build plans it (`PlannedSitemaps`) and
/// gives it to the task as an input whose hash covers each listed story's metadata (`StoryFacts.metadataHash`:
/// everything the engine keeps of a story but its bodies, which no sitemap shows). The task reads that and
/// `newsgen.yml` as the build sees it; like a page task, it stages its files as it runs.
enum SitemapTasks {
    static let kind = "sitemaps"
    /// Input: what the build planned for a group, by the group's name (`PlannedSitemaps`).
    static let planned = "planned-sitemaps"

    static let pagesGroup = "pages"
    static let newsGroup = "news"
    static let indexGroup = "index"

    /// A group's result: its files with the newest `lastmod` of each (nil for files that are not URL sets, or when
    /// no URL has one), the stamp of each file it staged (none when read back from the trace), and the hash of their
    /// bytes.
    struct Made: Sendable {
        var files: [SitemapFile]
        var stamps: [FileStamp?]
        var hash: UInt64
    }

    /// A group's files and hash in the trace (not the stamps, which are this build's).
    static let codec = Codec(Made.self, encode: { made in
        var writer = ByteWriter()
        writer.u64(made.hash)
        writer.int(made.files.count)
        for file in made.files {
            writer.string(file.path)
            writer.bool(file.lastModified != nil)
            if let lastModified = file.lastModified { writer.timestamp(lastModified) }
        }
        return writer.bytes
    }, decode: { bytes in
        var reader = ByteReader(bytes)
        guard let hash = reader.u64(), let count = reader.count() else { return nil }
        var files: [SitemapFile] = []
        for _ in 0..<count {
            guard let path = reader.string(), let dated = reader.bool() else { return nil }
            var lastModified: Timestamp?
            if dated {
                guard let value = reader.timestamp() else { return nil }
                lastModified = value
            }
            files.append(SitemapFile(path: path, lastModified: lastModified))
        }
        guard reader.atEnd else { return nil }
        return Made(files: files, stamps: [], hash: hash)
    })

    /// The rule of one build: it makes a group's files from the build's `PageContext` (see `StoryPages.rule` for what it
    /// takes from it) and stages them into its `writer`. `now`: the build's.
    static func rule(context: PageContext, writer: OutputWriter, now: Timestamp) -> Rule {
        Rule(keeping: .bytes(codec)) { key, fetch in
            let planned = try fetch.value(Key(planned, key.name), as: PlannedSitemaps.self)
            let config = try SiteTasks.config(fetch)
            let stories = context.stories
            let built: [(file: GeneratedFile, lastModified: Timestamp?)]
            switch planned.content {
            case .pages:
                built = Sitemap.urlsets(SiteBuilder.pagesSitemapEntries(stories: stories, context: context),
                                        name: Sitemap.pagesName, maxURLs: config.sitemaps.maxURLs)
            case .month(let name, let places):
                built = Sitemap.urlsets(SiteBuilder.storySitemapEntries(places, stories: stories, context: context),
                                        name: name, maxURLs: config.sitemaps.maxURLs)
            case .news(let places):
                built = NewsSitemap.files(SiteBuilder.newsSitemapEntries(places, stories: stories, context: context), now: now)
                    .map { ($0, nil) }
            case .index(let groups):
                let made = try fetch.values(groups.map { Key(kind, $0) }, as: Made.self)
                var sitemaps: [SitemapFile] = []
                var news: [String] = []
                for (group, files) in zip(groups, made) {
                    if group == newsGroup { news += files.files.map(\.path) } else { sitemaps += files.files }
                }
                built = [(Sitemap.index(sitemaps, links: context.links), nil),
                         (Robots.file(sitemaps: [Sitemap.indexFile] + news, links: context.links), nil)]
            }
            var digest = ContentHasher()
            var made = Made(files: [], stamps: [], hash: 0)
            for (file, lastModified) in built {
                digest.combine(file.path)
                digest.combine(file.utf8)
                digest.combine(lastModified?.secondsSinceEpoch ?? -1)
                digest.combine(lastModified?.offsetSeconds ?? 0)
                made.files.append(SitemapFile(path: file.path, lastModified: lastModified))
                made.stamps.append(try writer.stage(file.path, file.utf8))
            }
            made.hash = digest.value
            return Output(made, hash: made.hash)
        }
    }
}

/// A group of sitemaps as the build planned it (see `SitemapTasks`), and a hash of everything it is made from but
/// `newsgen.yml`, which is the input's.
struct PlannedSitemaps: Sendable {
    enum Content: Sendable {
        /// `sitemap-pages.xml`: the front and category pages, made from every story's metadata.
        case pages
        /// `sitemap-YYYY-MM.xml` (`name`): the pages of the stories at these places of the build's stories.
        case month(name: String, stories: [Int])
        /// The Google News sitemaps: the stories at these places, those first published in the window.
        case news(stories: [Int])
        /// `sitemap.xml` and robots.txt, made from the files of these groups.
        case index(groups: [String])
    }

    let content: Content
    let hash: UInt64

    /// Every group of a build, by name, in the index's order: the pages sitemap, each month newest first, the news
    /// sitemaps (the stories in the window at `now`), then the index.
    static func plan(stories: [Story], facts: StoryFacts.Table, links: Permalinks, now: Timestamp) -> [(name: String, planned: PlannedSitemaps)] {
        func planned(_ content: Content, _ kind: String, _ places: some Collection<Int>) -> PlannedSitemaps {
            var digest = ContentHasher()
            digest.combine(kind)
            digest.combine(places.count)
            for place in places {
                let metadataHash = facts.stories[place].metadataHash
                if metadataHash == 0 { digest.combine(UInt64.random(in: 0...UInt64.max)) }   // unknown: always made
                digest.combine(metadataHash)
            }
            return PlannedSitemaps(content: content, hash: digest.value)
        }
        var groups = [(SitemapTasks.pagesGroup, planned(.pages, "sitemap pages", stories.indices))]
        for (year, month, places) in SiteBuilder.storiesByMonth(stories, links: links) {
            let name = Sitemap.monthName(year: year, month: month)
            groups.append((name, planned(.month(name: name, stories: places), name, places)))
        }
        let recent = stories.indices.filter { NewsSitemap.isRecent(stories[$0].published, now: now) }
        groups.append((SitemapTasks.newsGroup, planned(.news(stories: recent), "news sitemaps", recent)))
        let names = groups.map(\.0)
        var index = ContentHasher()
        index.combine("sitemap index and robots.txt")
        for name in names { index.combine(name) }
        groups.append((SitemapTasks.indexGroup, PlannedSitemaps(content: .index(groups: names), hash: index.value)))
        return groups
    }
}

extension SiteBuilder {
    /// The places of the stories in each month of their URL date (`Permalinks.date(published:)`, the reader's time zone),
    /// in order, newest month first. Only dates are worked out: no URL is built.
    static func storiesByMonth(_ stories: [Story], links: Permalinks) -> [(year: Int, month: Int, stories: [Int])] {
        var byMonth: [Int: [Int]] = [:]
        for place in stories.indices {
            let date = links.date(published: stories[place].published)
            byMonth[date.year * 12 + date.month - 1, default: []].append(place)
        }
        return byMonth.keys.sorted(by: >).map { key in
            let year = key >= 0 ? key / 12 : (key - 11) / 12
            return (year, key - year * 12 + 1, byMonth[key] ?? [])
        }
    }

    /// The entries of `sitemap-pages.xml`: for each language its front page, then each category's pages.
    static func pagesSitemapEntries(stories: [Story], context: PageContext) -> [SitemapEntry] {
        let config = context.config
        let links = context.links
        let listings = Listings(stories: stories, context: context)
        var entries: [SitemapEntry] = []
        for language in config.languages {
            let list = listings.available[language.code] ?? []
            let front = list.prefix(config.frontPageSize).map { stories[$0].lastModified }.max()
            entries += sitemapEntries([language], of: config.languages, lastModified: front, context: context, url: links.front)
            for category in config.categories {
                for page in listings.pages(language, category) {
                    // The index and each archive page hold their own stories (a full archive page keeps them).
                    let newest = listings.stories(language, category, on: page).map { stories[$0].lastModified }.max()
                    entries += sitemapEntries([language], of: listings.languages(category, page: page, in: config),
                                              lastModified: newest, context: context,
                                              url: { links.category(category, $0, page: page) })
                }
            }
        }
        return entries
    }

    /// The entries of a month's sitemap: each story's page in each of its page languages (fallback pages
    /// included), story by story.
    static func storySitemapEntries(_ places: [Int], stories: [Story], context: PageContext) -> [SitemapEntry] {
        var entries: [SitemapEntry] = []
        entries.reserveCapacity(places.count * context.config.languages.count)
        for place in places {
            let languages = context.pageLanguages(at: place)
            entries += sitemapEntries(languages, of: languages, lastModified: stories[place].lastModified, context: context,
                                      url: { context.storyURL(at: place, $0) })
        }
        return entries
    }

    /// The Google News entries of the stories at `places`: only pages written in their language (a fallback page
    /// is not news in that language).
    static func newsSitemapEntries(_ places: [Int], stories: [Story], context: PageContext) -> [NewsSitemapEntry] {
        let config = context.config
        var news: [NewsSitemapEntry] = []
        for place in places {
            let story = stories[place]
            for language in context.pageLanguages(at: place) where story.bodies[language.code] != nil {
                news.append(NewsSitemapEntry(loc: context.links.absolute(context.storyURL(at: place, language)),
                                             publicationName: config.publisherName(language),
                                             language: language.newsLanguage, published: story.published,
                                             title: context.localized(story.titles, language)?.0 ?? story.id))
            }
        }
        return news
    }

    /// One page's sitemap entries in each of `languages`. Each lists its versions in `versions` (itself
    /// included) and `x-default` (the default language's version) when there is one: the same set the page's own
    /// `<link>` tags list. The list is made once and shared by the entries.
    static func sitemapEntries(_ languages: [Language], of versions: [Language], lastModified: Timestamp?,
                               context: PageContext, url: (Language) -> String) -> [SitemapEntry] {
        let links = context.links
        var alternates = versions.map { (hreflang: $0.code, href: links.absolute(url($0))) }
        if let place = versions.firstIndex(of: context.config.defaultLanguage) {
            alternates.append((hreflang: "x-default", href: alternates[place].href))
        }
        return languages.map { language in
            let loc = versions.firstIndex(of: language).map { alternates[$0].href } ?? links.absolute(url(language))
            return SitemapEntry(language: language, loc: loc, lastModified: lastModified, alternates: alternates)
        }
    }
}
