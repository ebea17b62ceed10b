import Incremental

/// The generated files of a build (sitemaps, news sitemaps, robots.txt), made in groups so that a rebuild makes
/// only the groups whose inputs changed: one new story rebuilds its month's sitemap, the pages sitemap, the index
/// and robots.txt (and the news sitemaps when it is recent), and leaves every other month's file alone.
extension SiteBuilder {
    /// Generated files made from the same inputs: built together, and kept together (neither built nor read) when
    /// the last build made them from the same inputs and they are as it left them. The index and robots.txt are a
    /// last group, made from the files of these (`generatedOutputs`).
    struct GeneratedGroup: Sendable {
        enum Content: Sendable {
            /// `sitemap-pages.xml`: the front and category pages.
            case pages
            /// `sitemap-YYYY-MM.xml` (`name`): the pages of the stories at these places of the build's stories.
            case month(name: String, stories: [Int])
            /// The Google News sitemaps: the stories at these places, those first published in the window.
            case news(stories: [Int])
        }

        /// Its key in the output cache: `pages`, `news`, `index`, or the month's file name.
        var name: String
        var content: Content
        /// A hash of everything its files are made from.
        var fingerprint: UInt64
    }

    static let pagesGroup = "pages"
    static let newsGroup = "news"
    static let indexGroup = "index"

    /// The places of the stories in each month of their URL date (`Permalinks.date(of:)`, the reader's time zone),
    /// in order, newest month first. Only dates are worked out: no URL is built.
    static func storiesByMonth(_ stories: [Story], links: Permalinks) -> [(year: Int, month: Int, stories: [Int])] {
        var byMonth: [Int: [Int]] = [:]
        for (place, story) in stories.enumerated() {
            let date = links.date(of: story)
            byMonth[date.year * 12 + date.month - 1, default: []].append(place)
        }
        return byMonth.keys.sorted(by: >).map { key in
            let year = key >= 0 ? key / 12 : (key - 11) / 12
            return (year, key - year * 12 + 1, byMonth[key] ?? [])
        }
    }

    /// The groups of generated files but the index, with their fingerprints, made from story metadata alone: the
    /// pages sitemap (every story's metadata, for the category pages' `lastmod`s), each month's sitemap (its
    /// stories' metadata, in order) newest month first, and the news sitemaps (the stories in the window at
    /// `now`). A story's metadata is its `metadataHash`: everything but the bodies' text, which no generated file
    /// shows (the languages that have a body are included, so its page languages are). `base` covers the binary,
    /// config, theme, base URL and flags.
    static func generatedGroups(stories: [Story], links: Permalinks, base: UInt64, now: Timestamp) -> [GeneratedGroup] {
        func fingerprint(_ kind: String, _ places: some Collection<Int>) -> UInt64 {
            var digest = ContentHasher()
            digest.combine(base)
            digest.combine(kind)
            digest.combine(places.count)
            for place in places {
                let story = stories[place]
                if story.metadataHash == 0 { digest.combine(UInt64.random(in: 0...UInt64.max)) }   // unknown: always build
                digest.combine(story.metadataHash)
            }
            return digest.value
        }
        var groups = [GeneratedGroup(name: pagesGroup, content: .pages, fingerprint: fingerprint("sitemap pages", stories.indices))]
        for (year, month, places) in storiesByMonth(stories, links: links) {
            let name = Sitemap.monthName(year: year, month: month)
            groups.append(GeneratedGroup(name: name, content: .month(name: name, stories: places),
                                         fingerprint: fingerprint(name, places)))
        }
        let recent = stories.indices.filter { NewsSitemap.isRecent(stories[$0].published, now: now) }
        groups.append(GeneratedGroup(name: newsGroup, content: .news(stories: recent), fingerprint: fingerprint("news sitemaps", recent)))
        return groups
    }

    /// The generated files, group by group: `sitemap-pages.xml`, the months newest first, the news sitemaps, then
    /// `sitemap.xml` and robots.txt. A group whose fingerprint is the one `cached` records and each of whose
    /// files `isKept` (its cache entry has this fingerprint and the file is as the cache says) is listed by its
    /// paths; any other group is built. The index's inputs are the other groups' files with their `lastmod`s,
    /// known for a kept group from the cache, so the index is kept too when they are all the same.
    /// Also returns what the cache records of each group.
    static func generatedOutputs(stories: [Story], context: PageContext, base: UInt64, now: Timestamp,
                                 cached: [OutputCache.Generated],
                                 isKept: (_ path: String, _ fingerprint: UInt64) -> Bool)
        -> (outputs: [Output], groups: [OutputCache.Generated]) {
        let config = context.config
        let links = context.links
        var previous: [String: OutputCache.Generated] = [:]
        for group in cached { previous[group.name] = group }
        var outputs: [Output] = []
        var groups: [OutputCache.Generated] = []
        /// Keeps or builds one group; its files.
        func add(_ name: String, _ fingerprint: UInt64, build: () -> [(file: GeneratedFile, lastModified: Timestamp?)]) -> [SitemapFile] {
            if let last = previous[name], last.fingerprint == fingerprint, !last.files.isEmpty,
               last.files.allSatisfy({ isKept($0.path, generatedFileFingerprint($0.path, inputs: fingerprint)) }) {
                for file in last.files { outputs.append(.keptGenerated(file.path, inputs: fingerprint)) }
                groups.append(last)
                return last.files
            }
            let built = build()
            for item in built { outputs.append(.generated(item.file, inputs: fingerprint)) }
            let files = built.map { SitemapFile(path: $0.file.path, lastModified: $0.lastModified) }
            groups.append(OutputCache.Generated(name: name, fingerprint: fingerprint, files: files))
            return files
        }
        var sitemaps: [SitemapFile] = []
        var news: [String] = []
        for group in generatedGroups(stories: stories, links: links, base: base, now: now) {
            let files = add(group.name, group.fingerprint) {
                switch group.content {
                case .pages:
                    return Sitemap.urlsets(pagesSitemapEntries(stories: stories, context: context), name: Sitemap.pagesName,
                                           maxURLs: config.sitemaps.maxURLs)
                case .month(let name, let places):
                    return Sitemap.urlsets(storySitemapEntries(places, stories: stories, context: context), name: name,
                                           maxURLs: config.sitemaps.maxURLs)
                case .news(let places):
                    return NewsSitemap.files(newsSitemapEntries(places, stories: stories, context: context), now: now)
                        .map { ($0, nil) }
                }
            }
            switch group.content {
            case .pages, .month: sitemaps += files
            case .news: news = files.map(\.path)
            }
        }
        var index = ContentHasher()
        index.combine(base)
        index.combine("sitemap index and robots.txt")
        index.combine(sitemaps.count)
        for file in sitemaps {
            index.combine(file.path)
            index.combine(file.lastModified != nil)
            if let lastModified = file.lastModified {
                index.combine(lastModified.secondsSinceEpoch)
                index.combine(lastModified.offsetSeconds)
            }
        }
        index.combine(news.count)
        for path in news { index.combine(path) }
        _ = add(indexGroup, index.value) {
            [(Sitemap.index(sitemaps, links: links), nil),
             (Robots.file(sitemaps: [Sitemap.indexFile] + news, links: links), nil)]
        }
        return (outputs, groups)
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

    /// The fingerprint of one generated file: its path and the fingerprint of its group.
    static func generatedFileFingerprint(_ path: String, inputs: UInt64) -> UInt64 {
        var digest = ContentHasher()
        digest.combine("generated")
        digest.combine(path)
        digest.combine(inputs)
        return digest.value
    }
}
