import Foundation
import Testing
@testable import News
import NewsFixtures
@testable import Site
import TestSupport

@Suite struct XMLWriterTests {
    @Test func escapesTextAndAttributes() {
        var xml = XMLWriter()
        xml.open("feed", [("xmlns", "http://www.w3.org/2005/Atom"), ("title", "A \"quoted\" <b> & 'single'\n")])
        xml.element("title", text: "Tom & Jerry <script> ]]> \"x\" 'y'")
        xml.element("link", [("href", "https://example.com/?a=1&b=2")])
        let text = xml.finish()
        #expect(text == """
        <?xml version="1.0" encoding="UTF-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" title="A &quot;quoted&quot; &lt;b&gt; &amp; 'single'&#10;">
          <title>Tom &amp; Jerry &lt;script&gt; ]]&gt; "x" 'y'</title>
          <link href="https://example.com/?a=1&amp;b=2"/>
        </feed>

        """)
    }

    @Test func dropsCharactersXMLCannotHoldAndKeepsEverythingElse() {
        #expect(XMLWriter.escapeText("a\u{0}b\u{1}c\u{B}d\u{1F}e\u{FFFE}f\u{FFFF}g") == "abcdefg")
        #expect(XMLWriter.escapeText("tab\there\nline\r") == "tab\there\nline\r")
        #expect(XMLWriter.escapeText("العربية 简体中文 👨‍👩‍👧 \u{200F}") == "العربية 简体中文 👨‍👩‍👧 \u{200F}")
        #expect(XMLWriter.escapeAttribute("a\tb\rc\u{7}") == "a&#9;b&#13;c")
        // Neighbours of U+FFFE/U+FFFF in UTF-8 (lead byte EF) are ordinary characters and stay.
        #expect(XMLWriter.escapeText("\u{FFFD}\u{FF01}\u{F000}<\u{FFFE}") == "\u{FFFD}\u{FF01}\u{F000}&lt;")
        #expect(XMLWriter.escapeText("<p>a &amp; b</p>") == "&lt;p&gt;a &amp;amp; b&lt;/p&gt;")
    }

    @Test func fragmentsAreIndentedForTheirPlaceAndCloseWhatIsOpen() {
        var xml = XMLWriter(fragmentAtDepth: 1)
        xml.open("url")
        xml.element("loc", text: "https://x/")
        #expect(xml.finish() == "  <url>\n    <loc>https://x/</loc>\n  </url>\n")
    }
}

@Suite struct JSONWriterTests {
    @Test func writesMembersInOrderWithStableIndentation() {
        let value = JSONValue.object([
            ("b", .integer(-3)), ("a", .array([.bool(true), .null, .string("x")])), ("empty", .array([])),
            ("nested", .object([])),
        ])
        #expect(JSONWriter.write(value) == """
        {
          "b": -3,
          "a": [
            true,
            null,
            "x"
          ],
          "empty": [],
          "nested": {}
        }

        """)
    }

    @Test func escapesStrings() {
        #expect(JSONWriter.quote("\"\\/\n\r\t\u{8}\u{C}\u{0}\u{1F}\u{7F}") == #""\"\\/\n\r\t\b\f\u0000\u001f\u007f""#)
        #expect(JSONWriter.quote("a\u{2028}b\u{2029}c") == #""a\u2028b\u2029c""#)
        #expect(JSONWriter.quote("</script><!-- & é 中 😀") == #""</script><!-- & é 中 😀""#)
    }

    @Test func scriptModeCannotCloseTheScriptElement() {
        let text = JSONWriter.quote("</script><!--x--> & more", mode: .htmlScript)
        #expect(text == #""\u003c/script\u003e\u003c!--x--\u003e \u0026 more""#)
        #expect(!text.contains("<") && !text.contains(">") && !text.contains("&"))
    }

    /// What the `--json` outputs, the ledger and request bodies were written with before `JSONWriter` wrote them:
    /// the same value must come out byte for byte the same (a request body's SHA-256 is in the ledger).
    struct Report: Encodable {
        struct Entry: Encodable { var id: String; var note: String?; var count: Int; var tags: [String] }
        var title: String
        var dryRun: Bool
        var missing: String?
        var entries: [Entry]
        var none: [Entry]
        var headers: [String: String]
        var counts: [String: [String: Int]]
        var emptyCounts: [String: Int]
    }

    static let awkward = "q\"b\\s/\n\r\t\u{8}\u{C}\u{0}\u{1F} del\u{7F} ls\u{2028} ps\u{2029} <>& é 東 😀"
    static let report = Report(
        title: awkward, dryRun: true, missing: nil,
        entries: [.init(id: "a", note: nil, count: -3, tags: ["World", awkward]), .init(id: "b", note: "x", count: 0, tags: [])],
        none: [],
        headers: ["Content-Type": "application/json", "Authorization": "SharedAccessSignature sr=x", "x-ms-version": "2015-01",
                  "ServiceBusNotification-Format": "template", "_x": "1", "a10": "2", "a9": "3", "é": "4", "B": "5", "b": "6"],
        counts: ["fcm": ["delivered": 2, "Invalid": 1], "apns": [:]], emptyCounts: [:])

    @Test func spacedLayoutWithSortedKeysIsWhatFoundationsPrettyEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let expected = String(decoding: try encoder.encode(Self.report), as: UTF8.self)
        let written = JSONWriter.write(try JSONValue(encoding: Self.report), mode: .minimal, layout: .spaced, sortedKeys: true)
        #expect(written == expected)
    }

    @Test func compactLayoutWithSortedKeysIsWhatFoundationsEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected = String(decoding: try encoder.encode(Self.report), as: UTF8.self)
        #expect(JSONWriter.write(try JSONValue(encoding: Self.report), mode: .minimal, layout: .compact, sortedKeys: true) == expected)
        let body = ["title_en": Self.awkward, "News_French": "é", "1": "", "10": "x", "2": "\u{7F}"]
        #expect(JSONWriter.write(.object(body.map { ($0.key, .string($0.value)) }), mode: .minimal, layout: .compact, sortedKeys: true)
                == String(decoding: try encoder.encode(body), as: UTF8.self))
    }

    @Test func membersKeepTheOrderTheyAreEncodedInUnlessSorted() throws {
        struct Story: Encodable { var zeta = 1; var alpha = "a"; var missing: Int? = nil }
        #expect(JSONWriter.write(try JSONValue(encoding: Story()), layout: .compact) == #"{"zeta":1,"alpha":"a"}"#)
        #expect(JSONWriter.write(try JSONValue(encoding: Story()), layout: .compact, sortedKeys: true) == #"{"alpha":"a","zeta":1}"#)
    }

    @Test func aNumberJSONValueCannotHoldIsAnErrorNotADifferentNumber() {
        #expect(throws: EncodingError.self) { try JSONValue(encoding: ["x": 1.5]) }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: [UInt64.max]) }
    }
}

@Suite struct FeedFormatTests {
    @Test func rfc822KeepsTheWrittenOffsetAndNamesTheWeekday() throws {
        let a = try Timestamp.parse("2026-11-29T08:55:00Z").get()
        #expect(a.rfc822 == "Sun, 29 Nov 2026 08:55:00 +0000")
        let b = try Timestamp.parse("2026-11-14T21:30:00-05:00").get()
        #expect(b.rfc822 == "Sat, 14 Nov 2026 21:30:00 -0500")
        let c = try Timestamp.parse("1969-12-31T23:59:59Z").get()
        #expect(c.rfc822 == "Wed, 31 Dec 1969 23:59:59 +0000")
        let d = try Timestamp.parse("2024-02-29T00:00:00+05:30").get()
        #expect(d.rfc822 == "Thu, 29 Feb 2024 00:00:00 +0530")
    }

    /// The story URLs made once per build for every language are the ones made one at a time, on both sides of a
    /// midnight in the site's time zone, in years of fewer than four digits and past the usual ones.
    @Test func storyURLsForEveryLanguageMatchOneAtATime() throws {
        let config = Fixtures.siteConfig()
        let clock = ReaderClock(timeZone: config.timeZone, languages: config.languages)
        let links = Permalinks(config: config, clock: clock)
        var story = try #require(Fixtures.parseStory(Fixtures.story).0)
        for text in ["2026-11-29T23:30:00Z", "2026-11-30T00:30:00+01:00", "0999-01-02T03:04:05Z", "2026-02-28T23:59:59-05:00",
                     "9999-12-31T12:00:00Z"] {
            story.published = try Timestamp.parse(text).get()
            let together = links.story(story, in: config.languages)
            #expect(together == config.languages.map { links.story(story, $0) }, "\(text)")
            #expect(together[0].hasSuffix("/" + story.slug + "/"))
        }
        #expect(links.story(story, in: config.languages)[0].contains("/9999/12/31/"))
    }

    /// RSS readers take an item's title and description as HTML: both are escaped as HTML, then as XML, so that
    /// markup in them arrives as text. Atom (`type="text"`) and JSON Feed carry the characters escaped once.
    @Test func rssTitlesAndDescriptionsAreHTMLTextEscapedAsXML() throws {
        let published = try Timestamp.parse("2026-11-29T08:55:00Z").get()
        let entry = FeedEntry(id: "tag:x,2026-11-29:a/en", url: "https://x/a/", title: "AT&T <b>\"deal\"</b> ]]> 'ok'",
                              summary: "<img src=x onerror=alert(2)> & ]]>", contentHTML: "<p>AT&amp;T</p>",
                              published: published, modified: published, authors: ["Tom & Jerry"], categories: ["R&D"],
                              image: nil)
        #expect(Self.rssItem(entry) == """
        <item>
          <title>AT&amp;amp;T &amp;lt;b&amp;gt;&amp;quot;deal&amp;quot;&amp;lt;/b&amp;gt; ]]&amp;gt; 'ok'</title>
          <link>https://x/a/</link>
          <guid isPermaLink="false">tag:x,2026-11-29:a/en</guid>
          <pubDate>Sun, 29 Nov 2026 08:55:00 +0000</pubDate>
          <dc:creator>Tom &amp; Jerry</dc:creator>
          <category>R&amp;D</category>
          <description>&amp;lt;img src=x onerror=alert(2)&amp;gt; &amp;amp; ]]&amp;gt;</description>
          <content:encoded>&lt;p&gt;AT&amp;amp;T&lt;/p&gt;</content:encoded>
        </item>

        """)
        let atom = Self.atomEntry(entry)
        #expect(atom.contains("<title>AT&amp;T &lt;b&gt;\"deal\"&lt;/b&gt; ]]&gt; 'ok'</title>"), "\(atom)")
        #expect(atom.contains("<summary type=\"text\">&lt;img src=x onerror=alert(2)&gt; &amp; ]]&gt;</summary>"), "\(atom)")
        let json = JSONWriter.write(FeedWriter.jsonItem(entry))
        #expect(json.contains("\"title\": \"AT&T <b>\\\"deal\\\"</b> ]]> 'ok'\""), "\(json)")
    }

    @Test func entryIDsAreTagURIsThatEditsDoNotChange() throws {
        var config = Fixtures.siteConfig()
        let clock = ReaderClock(timeZone: config.timeZone, languages: config.languages)
        var story = try #require(Fixtures.parseStory(Fixtures.story).0)
        let links = Permalinks(config: config, clock: clock)
        let french = try #require(config.language(code: "fr"))
        #expect(links.entryID(story, french) == "tag:news.example.com,2026-11-29:quake-off-coast/fr")
        story.titles = LocalizedText(["en": "New title"])
        story.updated = try Timestamp.parse("2026-12-01T10:00:00Z").get()
        story.corrections = LocalizedText(["en": "Fixed a name."])
        #expect(links.entryID(story, french) == "tag:news.example.com,2026-11-29:quake-off-coast/fr")
        config.baseURL = "https://User@Example.ORG:8443/news/"
        #expect(Permalinks(config: config, clock: clock).entryID(story, french) == "tag:example.org,2026-11-29:news/quake-off-coast/fr")
        #expect(Permalinks(config: config, clock: clock).feed(.front, french, .atom) == "fr/atom.xml")
        #expect(Permalinks(config: config, clock: clock).feed(.category(config.categories[0]), french, .json) == "fr/world/feed.json")
    }
}

@Suite struct NewsSitemapTests {
    static let now = Timestamp(secondsSinceEpoch: 1_795_964_400)   // 2026-11-29T15:00:00Z

    static func entry(_ secondsBeforeNow: Double, _ name: String) -> NewsSitemapEntry {
        NewsSitemapEntry(loc: "https://x/\(name)/", publicationName: "X", language: "zh-cn",
                         published: Timestamp(secondsSinceEpoch: now.secondsSinceEpoch - secondsBeforeNow, offsetSeconds: 3600),
                         title: name)
    }

    @Test func theWindowIsTheFortyEightHoursBeforeNowInclusive() {
        #expect(NewsSitemap.isRecent(Self.entry(0, "now").published, now: Self.now))
        #expect(NewsSitemap.isRecent(Self.entry(48 * 3600, "edge").published, now: Self.now))
        #expect(!NewsSitemap.isRecent(Self.entry(48 * 3600 + 1, "old").published, now: Self.now))
        #expect(!NewsSitemap.isRecent(Self.entry(-1, "future").published, now: Self.now))
    }

    @Test func keepsOnlyRecentEntriesNewestFirstWithTheirFirstPublicationDate() {
        let files = NewsSitemap.files([Self.entry(3600, "b"), Self.entry(49 * 3600, "old"), Self.entry(60, "a"),
                                       Self.entry(-60, "future")], now: Self.now)
        #expect(files.map(\.path) == ["news-sitemap.xml"])
        #expect(files[0].text == """
        <?xml version="1.0" encoding="UTF-8"?>
        <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
          <url>
            <loc>https://x/a/</loc>
            <news:news>
              <news:publication>
                <news:name>X</news:name>
                <news:language>zh-cn</news:language>
              </news:publication>
              <news:publication_date>2026-11-29T15:59:00+01:00</news:publication_date>
              <news:title>a</news:title>
            </news:news>
          </url>
          <url>
            <loc>https://x/b/</loc>
            <news:news>
              <news:publication>
                <news:name>X</news:name>
                <news:language>zh-cn</news:language>
              </news:publication>
              <news:publication_date>2026-11-29T15:00:00+01:00</news:publication_date>
              <news:title>b</news:title>
            </news:news>
          </url>
        </urlset>

        """)
    }

    @Test func anEmptyWindowStillWritesTheFirstFile() {
        let files = NewsSitemap.files([Self.entry(72 * 3600, "old")], now: Self.now)
        #expect(files.map(\.path) == ["news-sitemap.xml"])
        #expect(!files[0].text.contains("<url>"))
    }

    @Test func moreThanAThousandAreSplitIntoFilesOfAtMostAThousand() {
        let entries = (0..<2501).map { Self.entry(Double($0), "s\($0)") }
        let files = NewsSitemap.files(entries, now: Self.now)
        #expect(files.map(\.path) == ["news-sitemap.xml", "news-sitemap-2.xml", "news-sitemap-3.xml"])
        let counts = files.map { $0.text.components(separatedBy: "<news:news>").count - 1 }
        #expect(counts == [1000, 1000, 501])
        #expect(files[0].text.contains("<loc>https://x/s0/</loc>"))
        #expect(files[2].text.contains("<loc>https://x/s2500/</loc>"))
    }

    @Test func chineseUsesTheNewsSpellingFromTheLanguageTable() {
        let config = Fixtures.siteConfig()
        #expect(config.languages.map(\.newsLanguage) == ["en", "fr", "zh-cn"])
        #expect(config.languages.map(\.ogLocale) == ["en_US", "fr_FR", "zh_CN"])
        #expect(Language(code: "ar", name: "Arabic").direction == .rtl)
        #expect(Language(code: "zh-Hant", name: "Cantonese").newsLanguage == "zh-tw")
    }
}

@Suite struct SitemapTests {
    static let config = Fixtures.siteConfig()
    static let links = Permalinks(config: config, clock: ReaderClock(timeZone: "UTC", languages: config.languages))

    static func entries(perLanguage: Int) -> [SitemapEntry] {
        config.languages.flatMap { language in
            (0..<perLanguage).map { index in
                SitemapEntry(language: language, loc: "https://news.example.com/\(language.pathSegment)/\(index)/",
                             lastModified: Timestamp(secondsSinceEpoch: Double(index) * 60),
                             alternates: [(hreflang: language.code, href: "https://news.example.com/\(language.pathSegment)/\(index)/")])
            }
        }
    }

    static func urls(_ file: GeneratedFile) -> Int { file.text.components(separatedBy: "<url>").count - 1 }

    @Test func oneFileWhileWithinTheLimits() {
        let files = Sitemap.urlsets(Self.entries(perLanguage: 1), name: "sitemap-2026-11", maxURLs: 3)
        #expect(files.map(\.file.path) == ["sitemap-2026-11.xml"])
        #expect(files[0].lastModified == Timestamp(secondsSinceEpoch: 0))
        #expect(files[0].file.text.hasPrefix("""
        <?xml version="1.0" encoding="UTF-8"?>
        <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
          <url>
            <loc>https://news.example.com/en/0/</loc>
            <lastmod>1970-01-01T00:00:00Z</lastmod>
            <xhtml:link rel="alternate" hreflang="en" href="https://news.example.com/en/0/"/>
          </url>
        """))
        #expect(files[0].file.text.hasSuffix("  </url>\n</urlset>\n"))
    }

    @Test func pastMaxURLsAFileIsSplitIntoNumberedFilesEachWithItsNewestLastmod() {
        // en 0, 1, 2, fr 0, 1, 2, zh-hans 0, 1, 2 (lastmods 0, 1, 2 minutes), two per file.
        let files = Sitemap.urlsets(Self.entries(perLanguage: 3), name: "sitemap-2026-11", maxURLs: 2)
        #expect(files.map(\.file.path) == ["sitemap-2026-11.xml", "sitemap-2026-11-2.xml", "sitemap-2026-11-3.xml",
                                           "sitemap-2026-11-4.xml", "sitemap-2026-11-5.xml"])
        #expect(files.map { Self.urls($0.file) } == [2, 2, 2, 2, 1])
        #expect(files.map { $0.lastModified?.secondsSinceEpoch } == [60, 120, 120, 60, 120])
        #expect(files[1].file.text.contains("<loc>https://news.example.com/en/2/</loc>"))
        #expect(files[1].file.text.contains("<loc>https://news.example.com/fr/0/</loc>"))
        // Nothing lost, nothing twice, in order.
        let locs = files.flatMap { $0.file.text.components(separatedBy: "<loc>").dropFirst().map { $0.prefix { $0 != "<" } } }
        #expect(locs == Self.entries(perLanguage: 3).map { Substring($0.loc) })
    }

    @Test func pastTheByteLimitTooEvenWithFewURLs() {
        let entries = Self.entries(perLanguage: 4)
        let one = Sitemap.fragment(entries[0]).utf8.count
        // Room for the header, footer and two entries per file.
        let limit = 200 + 2 * one + 10
        let files = Sitemap.urlsets(entries, name: Sitemap.pagesName, maxURLs: 100, maxBytes: limit)
        #expect(files.map(\.file.path) == ["sitemap-pages.xml"] + (2...6).map { "sitemap-pages-\($0).xml" })
        #expect(files.map { Self.urls($0.file) } == [2, 2, 2, 2, 2, 2])
        for item in files { #expect(item.file.utf8.count <= limit) }
        #expect(Sitemap.urlsets(entries, name: Sitemap.pagesName).count == 1)
    }

    @Test func theIndexNamesEachFileInOrderWithItsLastmod() {
        let november = Timestamp(secondsSinceEpoch: 1_795_964_400, offsetSeconds: 3600)
        let index = Sitemap.index([SitemapFile(path: "sitemap-pages.xml", lastModified: november),
                                   SitemapFile(path: "sitemap-2026-11.xml", lastModified: november),
                                   SitemapFile(path: "sitemap-2026-10.xml", lastModified: nil)], links: Self.links)
        #expect(index.path == "sitemap.xml")
        #expect(index.text == """
        <?xml version="1.0" encoding="UTF-8"?>
        <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
          <sitemap>
            <loc>https://news.example.com/sitemap-pages.xml</loc>
            <lastmod>2026-11-29T16:00:00+01:00</lastmod>
          </sitemap>
          <sitemap>
            <loc>https://news.example.com/sitemap-2026-11.xml</loc>
            <lastmod>2026-11-29T16:00:00+01:00</lastmod>
          </sitemap>
          <sitemap>
            <loc>https://news.example.com/sitemap-2026-10.xml</loc>
          </sitemap>
        </sitemapindex>

        """)
    }

    /// A story file of the small sites below: in English and French, in `category`.
    static func story(_ slug: String, _ published: String, category: String = "World", updated: String? = nil) -> String {
        """
        ---
        category: \(category)
        published: \(published)
        \(updated.map { "updated: \($0)\n" } ?? "")title: { en: \(slug) in English, fr: \(slug) en français }
        ---
        <!-- lang: en -->
        English.

        <!-- lang: fr -->
        Français.
        """
    }

    @Test func storiesGoToTheMonthOfTheirURLDateInTheSiteTimeZone() throws {
        let config = Fixtures.siteConfig()   // Europe/Paris
        let links = Permalinks(config: config, clock: ReaderClock(timeZone: config.timeZone, languages: config.languages))
        let stories = try ["2026-11-30T23:30:00Z", "2026-11-29T10:00:00Z", "2026-10-31T23:30:00Z", "2026-10-15T10:00:00Z",
                           "2025-11-20T10:00:00Z"].enumerated().map { place, published in
            try #require(Fixtures.parseStory(Self.story("s\(place)", published), fileName: "s\(place).md").0)
        }
        let months = SiteBuilder.storiesByMonth(stories, links: links)
        // 23:30Z on 30 November is 1 December in Paris, 23:30Z on 31 October is 1 November: as in their URLs.
        #expect(months.map { "\($0.year)-\($0.month): \($0.stories)" } == ["2026-12: [0]", "2026-11: [1, 2]", "2026-10: [3]", "2025-11: [4]"])
        #expect(links.story(stories[0], config.languages[0]) == "en/2026/12/01/s0/")
        #expect(links.story(stories[2], config.languages[0]) == "en/2026/11/01/s2/")
        #expect(Sitemap.monthName(year: 2026, month: 2) == "sitemap-2026-02")
    }

    /// The small site's files with `newsgen.yml` (`extra` added to it).
    static func site(_ files: [String: String], extra: String = "") throws -> TemporarySite {
        var all = files
        all["newsgen.yml"] = FixtureConfig.threeLanguages(title: "{ en: Test News, fr: Les Nouvelles Test, zh-Hans: 测试新闻 }",
                                                          extra: "page_size: 1\nmissing_language: skip" + (extra.isEmpty ? "" : "\n" + extra))
        return try TemporarySite(files: all)
    }

    /// Builds a site into `site/` as `newsgen build` does at `now`, and gives the paths of its sitemaps and
    /// robots.txt in the order the build lists them (the index's order), with their texts.
    static func build(_ site: TemporarySite) throws -> (paths: [String], files: [String: String]) {
        let lock = try BuildLock.acquire(site: site.path, output: nil, timeout: 10) { _ in }
        defer { lock.release() }
        let edition = try Edition.load(directory: site.path, cache: .readWrite(lock))
        _ = try SiteBuilder.build(edition, options: BuildOptions(filter: EditionFilter(now: Self.now)), lock: lock)
        let listed = try String(contentsOfFile: site.path + "/site/sitemap.xml", encoding: .utf8)
            .components(separatedBy: "<loc>https://news.example.com/").dropFirst().map { String($0.prefix { $0 != "<" }) }
        let robots = try String(contentsOfFile: site.path + "/site/robots.txt", encoding: .utf8)
        let news = robots.components(separatedBy: "Sitemap: https://news.example.com/").dropFirst()
            .map { String($0.prefix { $0 != "\n" }) }.filter { $0.hasPrefix("news-sitemap") }
        let paths = listed + news + ["sitemap.xml", "robots.txt"]
        var files: [String: String] = [:]
        for path in paths { files[path] = try String(contentsOfFile: site.path + "/site/" + path, encoding: .utf8) }
        return (paths, files)
    }

    static let now = Timestamp(secondsSinceEpoch: 1_795_964_400)   // 2026-11-29T15:00:00Z

    static let site = [
        "content/world/new.md": story("new", "2026-11-29T14:00:00Z"),
        "content/world/older.md": story("older", "2026-11-02T09:00:00Z", updated: "2026-11-03T09:00:00Z"),
        "content/sports/october.md": story("october", "2026-10-20T09:00:00Z", category: "Sports"),
    ]

    @Test func anIndexOfThePagesFileAndOneFilePerMonthNewestFirst() throws {
        let (paths, files) = try Self.build(try Self.site(Self.site))
        #expect(paths == ["sitemap-pages.xml", "sitemap-2026-11.xml", "sitemap-2026-10.xml", "news-sitemap.xml",
                          "sitemap.xml", "robots.txt"])
        let index = try #require(files["sitemap.xml"])
        #expect(index.contains("""
          <sitemap>
            <loc>https://news.example.com/sitemap-pages.xml</loc>
            <lastmod>2026-11-29T14:00:00Z</lastmod>
          </sitemap>
          <sitemap>
            <loc>https://news.example.com/sitemap-2026-11.xml</loc>
            <lastmod>2026-11-29T14:00:00Z</lastmod>
          </sitemap>
          <sitemap>
            <loc>https://news.example.com/sitemap-2026-10.xml</loc>
            <lastmod>2026-10-20T09:00:00Z</lastmod>
          </sitemap>
        """))
        #expect(try #require(files["robots.txt"]).contains("Sitemap: https://news.example.com/sitemap.xml\nSitemap: https://news.example.com/news-sitemap.xml\n"))
        // A month's file: its stories' pages in every page language (here en and fr; no zh-Hans body, missing_language: skip).
        let october = try #require(files["sitemap-2026-10.xml"])
        #expect(october.components(separatedBy: "<url>").count - 1 == 2)
        #expect(october.contains("""
          <url>
            <loc>https://news.example.com/fr/2026/10/20/october/</loc>
            <lastmod>2026-10-20T09:00:00Z</lastmod>
            <xhtml:link rel="alternate" hreflang="en" href="https://news.example.com/en/2026/10/20/october/"/>
            <xhtml:link rel="alternate" hreflang="fr" href="https://news.example.com/fr/2026/10/20/october/"/>
            <xhtml:link rel="alternate" hreflang="x-default" href="https://news.example.com/en/2026/10/20/october/"/>
          </url>
        """))
        let november = try #require(files["sitemap-2026-11.xml"])
        #expect(november.components(separatedBy: "<url>").count - 1 == 4)
        #expect(november.contains("<loc>https://news.example.com/en/2026/11/02/older/</loc>\n    <lastmod>2026-11-03T09:00:00Z</lastmod>"))
        #expect(!november.contains("october") && !november.contains("/world/"))
        // The pages file: front pages and category pages of every language, no story.
        let pages = try #require(files["sitemap-pages.xml"])
        #expect(!pages.contains("/2026/"))
        for url in ["en/", "fr/", "zh-hans/", "en/world/", "en/world/page/1/", "fr/sports/", "zh-hans/world/"] {
            #expect(pages.contains("<loc>https://news.example.com/\(url)</loc>"), "\(url)")
        }
        // World (page_size 1) has its newest story on its first page and the older one on archive page 1, whose
        // lastmod is that story's own (an archive page keeps its stories).
        #expect(pages.contains("""
          <url>
            <loc>https://news.example.com/en/world/page/1/</loc>
            <lastmod>2026-11-03T09:00:00Z</lastmod>
            <xhtml:link rel="alternate" hreflang="en" href="https://news.example.com/en/world/page/1/"/>
            <xhtml:link rel="alternate" hreflang="fr" href="https://news.example.com/fr/world/page/1/"/>
            <xhtml:link rel="alternate" hreflang="x-default" href="https://news.example.com/en/world/page/1/"/>
          </url>
        """))
        // A list with no story has no lastmod.
        #expect(pages.contains("<loc>https://news.example.com/zh-hans/world/</loc>\n    <xhtml:link"))
    }

    @Test func aFilePastMaxURLsIsSplitAndTheIndexNamesEveryPart() throws {
        var site = Self.site
        site["content/world/third.md"] = Self.story("third", "2026-11-10T09:00:00Z")
        let (paths, files) = try Self.build(try Self.site(site, extra: "sitemaps: { max_urls: 3 }"))
        #expect(paths.filter { $0.hasPrefix("sitemap-2026-11") } == ["sitemap-2026-11.xml", "sitemap-2026-11-2.xml"])
        #expect(files["sitemap-2026-11.xml"]?.components(separatedBy: "<url>").count == 4)
        #expect(files["sitemap-2026-11-2.xml"]?.components(separatedBy: "<url>").count == 4)
        let index = try #require(files["sitemap.xml"])
        let named = index.components(separatedBy: "<loc>").dropFirst().map { String($0.prefix { $0 != "<" }) }
        #expect(named.first == "https://news.example.com/sitemap-pages.xml")
        #expect(named.contains("https://news.example.com/sitemap-pages-2.xml"))
        #expect(named.suffix(3) == ["https://news.example.com/sitemap-2026-11.xml", "https://news.example.com/sitemap-2026-11-2.xml",
                                    "https://news.example.com/sitemap-2026-10.xml"])
        // Each part's lastmod is the newest of its own URLs: "new" and the first page of "third" are in the first.
        #expect(index.contains("<loc>https://news.example.com/sitemap-2026-11-2.xml</loc>\n    <lastmod>2026-11-10T09:00:00Z</lastmod>"))
    }

    /// A group of sitemaps is a task of the engine: a rebuild makes only the groups whose inputs changed. A change
    /// in one month's story makes that month, the pages file and (when a `lastmod` moves) the index, and no other
    /// month. What a build made is seen in files altered behind its back (same size, time and inode, so taken as
    /// the last build left them): a group that is made again puts its true bytes back, one that is not leaves them.
    @Test func onlyTheGroupsWhoseInputsChangedAreMade() throws {
        let site = try Self.site(Self.site)
        let first = try Self.build(site)
        func alter(_ paths: [String]) throws {
            for path in paths {
                let file = site.path + "/site/" + path
                var info = stat()
                try #require(stat(file, &info) == 0)
                let handle = try #require(FileHandle(forUpdatingAtPath: file))
                try handle.seek(toOffset: 0)
                try handle.write(contentsOf: Data("<!--x".utf8))   // over "<?xml": same size, same inode
                try handle.close()
                let times = [info.st_atim, info.st_mtim]   // to the nanosecond
                try #require(utimensat(AT_FDCWD, file, times, 0) == 0)
            }
        }
        func altered() throws -> Set<String> {
            Set(try first.paths.filter { try String(contentsOfFile: site.path + "/site/" + $0, encoding: .utf8).hasPrefix("<!--x") })
        }
        let sitemaps = first.paths.filter { $0.hasSuffix(".xml") }
        try alter(sitemaps)
        _ = try Self.build(site)
        #expect(try altered() == Set(sitemaps), "nothing changed, so no group is made")
        // A template is no input of a sitemap; newsgen.yml (its bytes) is one of every group.
        try site.write("templates/story.mustache", try site.read("templates/story.mustache") + "\n")
        _ = try Self.build(site)
        #expect(try altered() == Set(sitemaps))
        try site.write("newsgen.yml", try site.read("newsgen.yml") + "\n# edited\n")
        _ = try Self.build(site)
        #expect(try altered().isEmpty)
        try alter(sitemaps)
        // The October story's title changes (it shows in no URL set, and not in the news sitemap, which lists only
        // the last 48 hours): its month and the pages file are made again, with the same bytes; nothing else is.
        try site.write("content/sports/october.md", try site.read("content/sports/october.md")
            .replacingOccurrences(of: "{ en: october in English", with: "{ en: October again in English"))
        _ = try Self.build(site)
        #expect(try altered() == Set(sitemaps).subtracting(["sitemap-pages.xml", "sitemap-2026-10.xml"]))
        // Its `updated` time changes: the month's `lastmod` in the index too, and so the index and robots.txt.
        try alter(["sitemap-pages.xml", "sitemap-2026-10.xml"])
        try site.write("content/sports/october.md", try site.read("content/sports/october.md")
            .replacingOccurrences(of: "published: 2026-10-20T09:00:00Z", with: "published: 2026-10-20T09:00:00Z\nupdated: 2026-10-21T09:00:00Z"))
        let updated = try Self.build(site)
        #expect(try altered() == ["sitemap-2026-11.xml", "news-sitemap.xml"])
        #expect(updated.files["sitemap.xml"]?.contains("<lastmod>2026-10-21T09:00:00Z</lastmod>") == true)
        #expect(updated.paths == first.paths)
        // A file of a group that is not as the last build left it (here deleted) makes its group again.
        try FileManager.default.removeItem(atPath: site.path + "/site/news-sitemap.xml")
        _ = try Self.build(site)
        let left = try altered()
        #expect(left == ["sitemap-2026-11.xml"], "\(left)")
    }
}

@Suite struct NewsArticleTests {
    @Test func requiredPropertiesAndTheCorrection() throws {
        let published = try Timestamp.parse("2026-11-29T14:05:00Z").get()
        let modified = try Timestamp.parse("2026-11-29T15:40:00+01:00").get()
        var article = NewsArticle(url: "https://x/en/a/", headline: "A </script> headline", description: "",
                                  inLanguage: "en", published: published, modified: modified, authors: [],
                                  image: nil, sections: ["World"], publisherName: "X News", publisherURL: "https://x/en/",
                                  publisherLogo: nil, correction: (text: "Fixed.", date: modified))
        let text = article.scriptText
        #expect(text.contains(#""headline": "A \u003c/script\u003e headline""#))
        #expect(text.contains(#""datePublished": "2026-11-29T14:05:00Z""#))
        #expect(text.contains(#""dateModified": "2026-11-29T15:40:00+01:00""#))
        // Without a byline the publisher is the author.
        #expect(text.contains("""
          "author": [
            {
              "@type": "NewsMediaOrganization",
              "name": "X News",
        """))
        #expect(text.contains(#""@type": "CorrectionComment""#))
        #expect(!text.contains("description"))
        article.authors = ["Ana Ruiz", "Li Wei"]
        article.sections = ["World", "Sports"]
        article.image = "https://x/i.jpg"
        let second = article.scriptText
        #expect(second.contains(#""@type": "Person""#))
        #expect(second.contains("\"articleSection\": [\n    \"World\",\n    \"Sports\"\n  ]"))
        #expect(second.contains("\"image\": [\n    \"https://x/i.jpg\"\n  ]"))
    }
}

@Suite struct StandardsConfigTests {
    static func parse(_ extra: String) -> (SiteConfig?, [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        let config = SiteConfig.parse(Fixtures.config + "\n" + extra, path: "newsgen.yml", diagnostics: &diagnostics)
        return (config, diagnostics)
    }

    @Test func defaults() throws {
        let config = try #require(Self.parse("").0)
        #expect(config.feeds == FeedSettings(items: 50, content: .full))
        #expect(config.sitemaps.maxURLs == 50_000)
        #expect(config.publisher.logo == nil)
        #expect(config.publisherName(try #require(config.language(code: "fr"))) == "Les Nouvelles")
    }

    @Test func readsFeedsPublisherAndSitemaps() throws {
        let config = try #require(Self.parse("""
        feeds: { items: 5, content: summary }
        publisher: { name: { en: Example News Ltd, fr: Les Nouvelles SA }, logo: /static/logo.png }
        sitemaps: { max_urls: 100 }
        """).0)
        #expect(config.feeds == FeedSettings(items: 5, content: .summary))
        #expect(config.publisher.logo == "/static/logo.png")
        #expect(config.publisherName(try #require(config.language(code: "fr"))) == "Les Nouvelles SA")
        #expect(config.publisherName(try #require(config.language(code: "zh-Hans"))) == "Example News Ltd")
        #expect(config.sitemaps.maxURLs == 100)
    }

    @Test func reportsMistakesWithLocationsAndSuggestions() {
        let (config, diagnostics) = Self.parse("""
        feeds: { itmes: 5, content: everything }
        publisher: { logo: logo.png }
        sitemaps: { max_urls: 60000 }
        feed: {}
        """)
        #expect(config == nil)
        let messages = diagnostics.map(\.description)
        #expect(messages.contains { $0.contains("newsgen.yml:17:10: error: unknown key \"itmes\"") && $0.contains("did you mean \"items\"?") })
        #expect(messages.contains { $0.contains("newsgen.yml:17:29: error: feeds.content must be full or summary, found \"everything\"") })
        #expect(messages.contains { $0.contains("newsgen.yml:18:20: error: publisher.logo must be a site path starting with / or an http(s) URL") })
        #expect(messages.contains { $0.contains("newsgen.yml:19:23: error: sitemaps.max_urls must be a whole number from 1 to 50000") })
        #expect(messages.contains { $0.contains("newsgen.yml:20:1: error: unknown key \"feed\"") && $0.contains("did you mean \"feeds\"?") })
    }

    @Test func aCorrectedStoryIsFlaggedAndItsLastModificationIsTheUpdate() throws {
        let plain = try #require(Fixtures.parseStory(Fixtures.story).0)
        #expect(!plain.hasCorrection)
        let corrected = try #require(Fixtures.parseStory(Fixtures.story.replacingOccurrences(
            of: "breaking: true\n", with: "breaking: true\ncorrection: { fr: \"Le bilan était erroné.\" }\n")).0)
        #expect(corrected.hasCorrection)
        #expect(corrected.lastModified.rfc3339 == "2026-11-29T15:40:00+01:00")
        #expect(corrected.lastModified > corrected.published)
    }
}

extension FeedFormatTests {
    /// One feed item as the feed writer writes it inside a whole feed.
    static func rssItem(_ entry: FeedEntry) -> String {
        var xml = XMLWriter(fragmentAtDepth: 0)
        FeedWriter.rssItem(entry, into: &xml)
        return xml.finish()
    }

    static func atomEntry(_ entry: FeedEntry) -> String {
        var xml = XMLWriter(fragmentAtDepth: 0)
        FeedWriter.atomEntry(entry, into: &xml)
        return xml.finish()
    }
}
