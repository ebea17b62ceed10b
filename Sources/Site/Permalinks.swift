/// The URL scheme, in one place. Every page is a folder with an `index.html`, so URLs end in `/`.
///
/// - `/{lang}/` front page of a language (`/en/`, `/fr/`, `/zh-hans/`)
/// - `/{lang}/{category}/`, `/{lang}/{category}/page/{n}/` category pages
/// - `/{lang}/{yyyy}/{mm}/{dd}/{slug}/` a story; the date is the first publication date in the site's
///   time zone, so the URL never changes once published (edits and `updated` do not move it)
/// - `/index.html` (leads to the default language), `/404.html`, `/static/…`
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

    public func category(_ category: Category, _ language: Language, page: Int = 1) -> String {
        let first = language.pathSegment + "/" + category.slug + "/"
        return page <= 1 ? first : first + "page/\(page)/"
    }

    public func story(_ story: Story, _ language: Language) -> String {
        let (y, m, d) = clock.localDate(story.published)
        return "\(language.pathSegment)/\(pad(y, 4))/\(pad(m))/\(pad(d))/\(story.slug)/"
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
