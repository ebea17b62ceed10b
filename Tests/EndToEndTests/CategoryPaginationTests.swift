import Foundation
import Testing
import TestSupport

/// Category pages as built: `/{lang}/{category}/` shows the newest `page_size` stories, the older ones are on
/// archive pages `/{lang}/{category}/page/{k}/` numbered from the oldest, so that a full archive page stays put
/// while stories are added.
@Suite struct CategoryPaginationTests {
    /// A site with `count` World stories in English and French, `w01` (the oldest) to `w{count}`, one a day in
    /// January 2026, and `page_size: size`.
    static func site(count: Int, size: Int) throws -> TemporarySite {
        var files = ["newsgen.yml": FixtureConfig.threeLanguages(
            title: "{ en: Test News, fr: Les Nouvelles Test }", extra: "page_size: \(size)")]
        for number in stride(from: 1, through: count, by: 1) { files["content/\(id(number)).md"] = story(number) }
        return try TemporarySite(files: files)
    }

    static func id(_ number: Int) -> String { number < 10 ? "w0\(number)" : "w\(number)" }

    static func story(_ number: Int) -> String {
        let day = number < 10 ? "0\(number)" : "\(number)"
        return """
        ---
        category: World
        published: 2026-01-\(day)T09:00:00Z
        title: { en: Story \(number), fr: Article \(number) }
        ---
        <!-- lang: en -->
        Body \(number).

        <!-- lang: fr -->
        Corps \(number).
        """
    }

    static func build(_ site: TemporarySite, _ extra: [String] = []) throws -> String {
        let result = try newsgen(["build", "--quiet"] + extra, in: site, environment: BuildFixtures.now)
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput
    }

    /// The story ids a page's cards link to, in order.
    static func cardIDs(_ html: String) -> [String] {
        html.matches(of: /<h3><a href="\/[a-z-]+\/2026\/01\/\d\d\/(w\d\d)\/">/).map { String($0.output.1) }
    }

    static func link(_ html: String, _ rel: String) -> String? {
        html.firstMatch(of: try! Regex("<a rel=\"\(rel)\" href=\"([^\"]+)\">"))
            .map { String($0.output[1].substring ?? "") }
    }

    static let size = 3

    @Test(arguments: [0, 1, size, size + 1, 2 * size, 2 * size + 1, 3 * size + 5])
    func pagesHoldTheirStoriesAndLinkInOrder(_ count: Int) throws {
        let size = Self.size
        let site = try Self.site(count: count, size: size)
        _ = try Self.build(site)
        let archive = (max(0, count - size) + size - 1) / size
        let sitemap = try site.read("site/sitemap-pages.xml")
        for (language, category, label, siteTitle) in [("en", "World", "Archive page", "Test News"),
                                                   ("fr", "Monde", "Archives, page", "Les Nouvelles Test")] {
            let folder = "site/\(language)/world/"
            let index = try site.read(folder + "index.html")
            #expect(Self.cardIDs(index) == stride(from: count, to: max(0, count - size), by: -1).map(Self.id), "\(language)")
            #expect(index.contains("<title>\(category) · \(siteTitle)</title>"))
            #expect(!index.contains(label))
            #expect(Self.link(index, "prev") == nil)
            #expect(Self.link(index, "next") == (archive > 0 ? "/\(language)/world/page/\(archive)/" : nil), "\(language)")
            #expect(index.contains("class=\"pager\"") == (archive > 0))
            #expect(!site.exists(folder + "page/\(archive + 1)/index.html"), "\(language) \(archive + 1)")
            #expect(!site.exists(folder + "page/0/index.html"))
            if count > 0 {
                #expect(sitemap.contains("<loc>https://news.example.com/\(language)/world/</loc>\n    <lastmod>2026-01-\(Self.id(count).dropFirst())T09:00:00Z</lastmod>"))
            }
            for k in stride(from: 1, through: archive, by: 1) {
                let page = try site.read(folder + "page/\(k)/index.html")
                let oldest = (k - 1) * size + 1, newest = min(k * size, count - size)
                #expect(Self.cardIDs(page) == stride(from: newest, through: oldest, by: -1).map(Self.id), "\(language) \(k)")
                #expect(page.contains("<title>\(category) (\(label) \(k)) · \(siteTitle)</title>"))
                #expect(page.contains("<span>\(label) \(k)</span>"))
                #expect(Self.link(page, "prev") == (k < archive ? "/\(language)/world/page/\(k + 1)/" : "/\(language)/world/"))
                #expect(Self.link(page, "next") == (k > 1 ? "/\(language)/world/page/\(k - 1)/" : nil))
                #expect(page.contains("<link rel=\"alternate\" hreflang=\"fr\" href=\"https://news.example.com/fr/world/page/\(k)/\">"))
                // Its lastmod is its newest story's.
                #expect(sitemap.contains("<loc>https://news.example.com/\(language)/world/page/\(k)/</loc>\n    <lastmod>2026-01-\(Self.id(newest).dropFirst())T09:00:00Z</lastmod>"),
                        "\(language) \(k)")
            }
        }
    }

    /// The category pages of World in every language, with their stamps (inode and modification time).
    static func worldPages(_ site: TemporarySite) throws -> [String: (inode: Int, modified: Date, bytes: Data)] {
        var result: [String: (inode: Int, modified: Date, bytes: Data)] = [:]
        for (path, bytes) in site.snapshot("site") where path.contains("/world/") && path.hasSuffix("index.html") {
            let attributes = try FileManager.default.attributesOfItem(atPath: site.path + "/site/" + path)
            result[path] = (try #require(attributes[.systemFileNumber] as? Int), try #require(attributes[.modificationDate] as? Date), bytes)
        }
        return result
    }

    /// Adds story `number` (the newest) and builds: the World pages that changed, checked against a clean build,
    /// and the full archive pages `kept` neither rewritten nor changed in any language.
    static func addStory(_ number: Int, to site: TemporarySite, kept: ClosedRange<Int>) throws -> Set<String> {
        let before = try worldPages(site)
        let everything = IncrementalBuildTests.tree(site, "site")
        Thread.sleep(forTimeInterval: 0.02)
        try site.write("content/\(id(number)).md", story(number))
        let summary = try build(site)
        let after = try worldPages(site)
        for language in ["en", "fr", "zh-hans"] {
            for k in kept {
                let path = "\(language)/world/page/\(k)/index.html"
                let old = try #require(before[path], "\(path)"), new = try #require(after[path], "\(path)")
                #expect(old.bytes == new.bytes, "\(path) changed")
                #expect(old.inode == new.inode && old.modified == new.modified, "\(path) was rewritten")
            }
        }
        let incremental = IncrementalBuildTests.tree(site, "site")
        let changed = IncrementalBuildTests.difference(everything, incremental)
        let counts = try #require(IncrementalBuildTests.counts(summary), "\(summary)")
        #expect(counts.written + counts.removed == changed.count, "\(summary): \(changed.sorted())")
        // No other category page changed.
        let categoryPages = changed.filter { $0.contains("/world/") || $0.contains("/sports/") }.filter { $0.hasSuffix("index.html") }
        #expect(categoryPages.allSatisfy { $0.contains("/world/") }, "\(categoryPages.sorted())")
        _ = try build(site, ["--clean", "--output", "reference"])
        let different = IncrementalBuildTests.difference(incremental, IncrementalBuildTests.tree(site, "reference"))
        #expect(different.isEmpty, "differs from a clean build in \(different.sorted())")
        return categoryPages
    }

    /// `paths` (under a language's folder) in every language.
    static func inEveryLanguage(_ paths: [String]) -> Set<String> {
        Set(["en", "fr", "zh-hans"].flatMap { language in paths.map { language + "/" + $0 } })
    }

    /// Index 2 + three full archive pages + one of one story: a new story fills the fourth, and only it and the
    /// index change; the next one starts a fifth, and the fourth changes only its "Newer" link.
    @Test func aNewStoryLeavesTheFullArchivePagesAsTheyAre() throws {
        let site = try Self.site(count: 9, size: 2)
        _ = try Self.build(site)
        #expect(site.exists("site/en/world/page/4/index.html") && !site.exists("site/en/world/page/5/index.html"))

        let filled = try Self.addStory(10, to: site, kept: 1...3)
        #expect(filled == Self.inEveryLanguage(["world/index.html", "world/page/4/index.html"]))
        #expect(Self.cardIDs(try site.read("site/fr/world/page/4/index.html")) == ["w08", "w07"])

        let before = try site.read("site/en/world/page/4/index.html")
        let started = try Self.addStory(11, to: site, kept: 1...3)
        #expect(started == Self.inEveryLanguage(["world/index.html", "world/page/4/index.html", "world/page/5/index.html"]))
        #expect(Self.cardIDs(try site.read("site/en/world/page/5/index.html")) == ["w09"])
        let after = try site.read("site/en/world/page/4/index.html")
        #expect(after == before.replacingOccurrences(of: "<a rel=\"prev\" href=\"/en/world/\">",
                                                     with: "<a rel=\"prev\" href=\"/en/world/page/5/\">"))
        #expect(Self.link(try site.read("site/en/world/index.html"), "next") == "/en/world/page/5/")
    }
}
