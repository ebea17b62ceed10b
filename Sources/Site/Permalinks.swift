import News
/// The URL scheme, in one place. Every page is a folder with an `index.html`, so URLs end in `/`.
///
/// - `/{lang}/` front page of a language (`/en/`, `/fr/`, `/zh-hans/`)
/// - `/{lang}/{category}/` a category's index (its newest stories), `/{lang}/{category}/page/{n}/` its archive
///   pages, numbered from the oldest so that a full one never moves (see `CategoryPage`)
/// - `/{lang}/{yyyy}/{mm}/{dd}/{slug}/` a story; the date is the first publication date in the site's
///   time zone, so the URL never changes once published (edits and `updated` do not move it)
/// - `/index.html` (leads to the default language), `/404.html`, `/static/…`
/// - `/{lang}/feed.xml` (RSS 2.0), `/{lang}/atom.xml` (Atom 1.0), `/{lang}/feed.json` (JSON Feed 1.1), and the
///   same three under `/{lang}/{category}/`
/// - `/sitemap.xml` (an index of `/sitemap-pages.xml` and one `/sitemap-{yyyy}-{mm}.xml` per month of the story
///   URLs' dates, each split `-2`, `-3`, … past the protocol's limits), `/news-sitemap.xml` (Google News;
///   `/news-sitemap-2.xml`, … past 1000), `/robots.txt`
/// A page of a category in one language. The index shows the newest `page_size` stories; the older ones are on
/// archive pages numbered from the oldest (`archive(1)` holds the oldest `page_size`, the newest archive page may
/// be partial), so a full archive page keeps its stories while stories are only added.
public enum CategoryPage: Hashable, Sendable {
    case index
    case archive(Int)
}

public struct Permalinks: Sendable {
    public let baseURL: String
    /// The path part of `base_url`, always starting and ending with "/" (`/` or `/news/`).
    public let basePath: String
    let clock: ReaderClock

    public init(config: SiteConfig, clock: ReaderClock) {
        baseURL = config.baseURL
        self.clock = clock
        let afterScheme = config.baseURL.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        // ["https:", "", "host", "rest/"]
        if afterScheme.count == 4, !afterScheme[3].isEmpty {
            let rest = String(afterScheme[3])
            basePath = "/" + (rest.hasSuffix("/") ? rest : rest + "/")
        } else {
            basePath = "/"
        }
    }

    /// Site-relative forms (no leading slash): what goes after `base_url`.
    public func front(_ language: Language) -> String { language.pathSegment + "/" }

    public func category(_ category: Category, _ language: Language, page: CategoryPage = .index) -> String {
        let first = language.pathSegment + "/" + category.slug + "/"
        switch page {
        case .index: return first
        case .archive(let number): return first + "page/\(number)/"
        }
    }

    public func story(_ story: Story, _ language: Language) -> String {
        self.story(story, in: [language])[0]
    }

    /// `story(story, language)` for each of `languages`, with the date worked out once (and written as bytes:
    /// a build makes this for every story).
    public func story(_ story: Story, in languages: [Language]) -> [String] {
        let (y, m, d) = date(published: story.published)
        guard (0...9999).contains(y) else {
            let tail = "/\(pad(y, 4))/\(pad(m))/\(pad(d))/\(story.slug)/"
            return languages.map { $0.pathSegment + tail }
        }
        var tail: [UInt8] = [UInt8(ascii: "/")]
        tail.reserveCapacity(story.slug.utf8.count + 13)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                tail.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(y, 4)
        tail.append(UInt8(ascii: "/"))
        digits(m, 2)
        tail.append(UInt8(ascii: "/"))
        digits(d, 2)
        tail.append(UInt8(ascii: "/"))
        tail.append(contentsOf: story.slug.utf8)
        tail.append(UInt8(ascii: "/"))
        // Made into text once and joined to each language's segment: building each URL as bytes and checking them as
        // UTF-8 again cost ten times as much, and every build makes a URL for every story in every language.
        let text = String(decoding: tail, as: UTF8.self)
        return languages.map { $0.pathSegment + text }
    }

    /// The date in a story's URL, from its first publication (`Story.published`) as a reader in the site's time zone
    /// sees it. Also the date of its feed ids and the month of the sitemap file that lists it.
    public func date(published: Timestamp) -> (year: Int, month: Int, day: Int) {
        clock.localDate(published)
    }

    /// A feed of a language's front page or of one of its categories.
    public func feed(_ scope: FeedScope, _ language: Language, _ format: FeedFormat) -> String {
        switch scope {
        case .front: return front(language) + format.fileName
        case .category(let item): return self.category(item, language) + format.fileName
        }
    }

    /// The host of `base_url`, lowercased and without port or credentials: the authority of `tag:` ids.
    public var host: String {
        let afterScheme = baseURL.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard afterScheme.count >= 3 else { return "localhost" }
        var authority = Substring(afterScheme[2])
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end]).lowercased()
        }
        if let colon = authority.firstIndex(of: ":") { authority = authority[..<colon] }
        return authority.isEmpty ? "localhost" : authority.lowercased()
    }

    /// The id of a story in one language in feeds: a `tag:` URI (RFC 4151) made of the host, the story's
    /// first-publication date (the date in its URL), its `id` and the language. Editing the story, its
    /// title, `updated` or a correction never changes it.
    public func entryID(_ story: Story, _ language: Language) -> String {
        let (y, m, d) = date(published: story.published)
        let prefix = String(basePath.dropFirst())
        return "tag:\(host),\(pad(y, 4))-\(pad(m))-\(pad(d)):\(prefix)\(story.id)/\(language.code)"
    }

    /// Link target used inside pages: an absolute path from the host root.
    public func href(_ relative: String) -> String { basePath + relative }

    /// Absolute URL for canonical links, feeds, sitemaps and push payloads.
    public func absolute(_ relative: String) -> String { baseURL + relative }

    /// The output file of a site-relative URL (`fr/monde/` → `fr/monde/index.html`).
    public static func file(for relative: String) -> String {
        relative.isEmpty || relative.hasSuffix("/") ? relative + "index.html" : relative
    }
}
