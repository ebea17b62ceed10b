import Foundation
import Testing
import TestSupport

struct FixtureError: Error { var message: String }

/// The build cache must never make a build wrong: after any edit, an incremental build gives exactly the tree a
/// clean build gives, and it writes only the files whose bytes change.
@Suite struct IncrementalBuildTests {
    /// One edit of the fixture site, applied between two builds.
    struct Edit: Sendable, CustomTestStringConvertible {
        var name: String
        var apply: @Sendable (TemporarySite) throws -> Void
        var testDescription: String { name }
    }

    static func replace(_ site: TemporarySite, _ path: String, _ old: String, _ new: String) throws {
        let text = try site.read(path)
        guard text.contains(old) else { throw FixtureError(message: "\(path) has no \(old)") }
        try site.write(path, text.replacingOccurrences(of: old, with: new))
    }

    /// A new Sports story, "The final", in English (and French).
    static let finalPath = "content/sports/2026-11-29-final.md"
    static func finalStory(published: String, french: Bool = false) -> String {
        """
        ---
        category: Sports
        published: \(published)
        title: { en: The final, fr: La finale }
        ---
        <!-- lang: en -->
        The final was played.
        """ + (french ? "\n\n<!-- lang: fr -->\nLa finale a été jouée.\n" : "\n")
    }

    static let edits: [Edit] = [
        Edit(name: "body") { try replace($0, "content/world/quake.md", "The quake struck", "The strong quake struck") },
        Edit(name: "title") {
            try replace($0, "content/world/quake.md", "Magnitude 7.1 earthquake", "Magnitude 7.3 earthquake")
        },
        Edit(name: "category") {
            try replace($0, "content/world/2026-11-28-english-only.md", "category: World", "category: Sports")
        },
        Edit(name: "date") {
            try replace($0, "content/world/2026-11-28-english-only.md", "2026-11-28T09:00:00+01:00", "2026-11-29T16:30:00+01:00")
        },
        Edit(name: "body in another language") {
            // The French page stops being a fallback: the news sitemap gains it although no metadata changed.
            try replace($0, "content/world/2026-11-28-english-only.md", "中文正文。", "中文正文。\n\n<!-- lang: fr -->\nCorps en français.")
        },
        Edit(name: "breaking flag") { try replace($0, "content/world/quake.md", "breaking: true", "breaking: false") },
        Edit(name: "draft published") { try replace($0, "content/sports/draft.md", "draft: true", "draft: false") },
        Edit(name: "deletion") { try $0.remove("content/world/2026-11-28-english-only.md") },
        Edit(name: "rename") {
            let text = try $0.read("content/world/quake.md")
            try $0.remove("content/world/quake.md")
            try $0.write("content/world/2026-11-29-quake-moved.md", text)
        },
        Edit(name: "new story") {
            try $0.write(finalPath, finalStory(published: "2026-11-29T12:00:00Z", french: true))
        },
        Edit(name: "template") {
            try replace($0, "templates/story.mustache", "{{", "<!-- edited -->{{")
        },
        Edit(name: "strings") { try replace($0, "templates/strings.yml", "Skip to content", "Skip to the content") },
        Edit(name: "static file") { try $0.write("templates/static/extra.txt", "extra\n") },
        Edit(name: "config") { try replace($0, "newsgen.yml", "Test News", "Tested News") },
        Edit(name: "page size") { try replace($0, "newsgen.yml", "page_size: 2", "page_size: 1") },
        Edit(name: "language added") {
            try replace($0, "newsgen.yml", "  - code: zh-Hans\n    name: Mandarin\n",
                        "  - code: zh-Hans\n    name: Mandarin\n  - code: ar\n    name: Arabic\n")
            try replace($0, "newsgen.yml", "zh-Hans: 测试新闻 }", "zh-Hans: 测试新闻, ar: أخبار الاختبار }")
        },
    ]

    /// A rebuild that changes a feed takes the body texts of the unchanged stories in it from the last build. This
    /// is seen by changing a feed story's bytes behind its stamp (same size, time and inode, so every cache trusts
    /// the file): a build that read the body again would stop, since the file no longer has the bytes it was parsed
    /// from. `--clean` reads everything and finds the change.
    @Test func feedEntriesOfUnchangedStoriesAreNotRenderedAgain() throws {
        let site = try BuildFixtures.site()
        let file = site.path + "/content/world/quake.md"
        let old = Date(timeIntervalSinceNow: -3600)   // old enough for the story cache to trust the stamp
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: file)
        _ = try Self.build(site)
        #expect(try site.read("site/en/feed.xml").contains("The quake struck"))
        try Self.changeBehindTheStamp(site, "content/world/quake.md", "The quake struck", "the quake struck", time: old)
        // A new story changes the front page's feeds, which list the quake story too.
        try site.write(Self.finalPath, Self.finalStory(published: "2026-11-29T12:00:00Z"))
        let rebuild = try newsgen(["build", "--quiet"], in: site, environment: BuildFixtures.now)
        #expect(rebuild.status == 0, "\(rebuild.standardError)")
        let feed = try site.read("site/en/feed.xml")
        #expect(feed.contains("The final"))
        #expect(feed.contains("The quake struck"))   // the kept text
        _ = try Self.build(site, ["--clean"])
        #expect(try site.read("site/en/feed.xml").contains("the quake struck"))
        #expect(try !site.read("site/en/feed.xml").contains("The quake struck"))
    }

    /// Changes `old` to `new` (of the same length) in a story file in place and gives the file back its time, so
    /// that its size, time and inode are as before and every cache trusts it.
    static func changeBehindTheStamp(_ site: TemporarySite, _ path: String, _ old: String, _ new: String, time: Date) throws {
        let file = site.path + "/" + path
        let bytes = Array(try site.read(path).utf8)
        let place = try #require((0..<bytes.count).first { bytes[$0...].starts(with: Array(old.utf8)) })
        #expect(old.utf8.count == new.utf8.count)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
        try handle.seek(toOffset: UInt64(place))
        try handle.write(contentsOf: Data(new.utf8))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: file)
    }

    /// A rebuild that renders only some feeds keeps the texts of the stories in the others: here the Chinese
    /// front-page feed is left alone by an English story, and its texts are still there when a Chinese story
    /// changes it later.
    @Test func feedTextsOfFeedsNotRenderedAreKept() throws {
        let site = try BuildFixtures.site()
        let old = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: site.path + "/content/world/2026-11-28-english-only.md")
        _ = try Self.build(site)
        try Self.changeBehindTheStamp(site, "content/world/2026-11-28-english-only.md", "中文正文", "申文正文", time: old)
        try site.write(Self.finalPath, Self.finalStory(published: "2026-11-29T12:00:00Z"))
        let english = try newsgen(["build", "--quiet"], in: site, environment: BuildFixtures.now)
        #expect(english.status == 0, "\(english.standardError)")
        try site.write("content/world/2026-11-29-chinese.md", "---\ncategory: World\npublished: 2026-11-29T12:30:00Z\ntitle: { en: Chinese, zh-Hans: 中文 }\n---\n<!-- lang: zh-Hans -->\n新的故事。\n")
        let chinese = try newsgen(["build", "--quiet"], in: site, environment: BuildFixtures.now)
        #expect(chinese.status == 0, "\(chinese.standardError)")
        let feed = try site.read("site/zh-hans/feed.xml")
        #expect(feed.contains("新的故事") && feed.contains("中文正文"))
    }

    /// The tree of an output folder without newsgen's own files (`.newsgen*`).
    static func tree(_ site: TemporarySite, _ folder: String) -> [String: Data] {
        site.snapshot(folder).filter { !$0.key.split(separator: "/").contains { $0.hasPrefix(".newsgen") } }
    }

    static func build(_ site: TemporarySite, _ extra: [String] = [], environment: [String: String] = BuildFixtures.now) throws -> String {
        let result = try newsgen(["build", "--quiet"] + extra, in: site, environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput
    }

    /// "built … : 40 files, 3 written, 37 unchanged, 0 removed in 12 ms" → (files, written, removed)
    static func counts(_ summary: String) -> (files: Int, written: Int, removed: Int)? {
        let numbers = summary.split(separator: ":").last.map { part in
            part.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        } ?? []
        guard numbers.count >= 4 else { return nil }
        return (numbers[0], numbers[1], numbers[3])
    }

    /// The cache files of the site (`.newsgen/…`), relative to the site folder.
    static func caches(_ site: TemporarySite) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: site.path + "/.newsgen")
        let caches = names.filter { $0 == "trace" || $0.hasPrefix("build-") }.sorted().map { ".newsgen/" + $0 }
        #expect(caches.count >= 2, "\(names)")
        return caches
    }

    /// Files that differ between two trees (added, removed or changed).
    static func difference(_ a: [String: Data], _ b: [String: Data]) -> Set<String> {
        Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }
    }

    @Test(arguments: edits)
    func incrementalBuildEqualsCleanBuild(_ edit: Edit) throws {
        let site = try BuildFixtures.site()
        _ = try Self.build(site)
        let before = Self.tree(site, "site")
        try edit.apply(site)
        let summary = try Self.build(site)
        let incremental = Self.tree(site, "site")
        _ = try Self.build(site, ["--clean", "--output", "reference"])
        let clean = Self.tree(site, "reference")
        #expect(!clean.isEmpty)
        let different = Self.difference(incremental, clean)
        #expect(different.isEmpty, "\(edit.name): differs from a clean build in \(different.sorted())")
        // Only files whose bytes change are written.
        let changed = Self.difference(before, incremental)
        let counts = try #require(Self.counts(summary), "\(summary)")
        #expect(counts.written + counts.removed == changed.count, "\(summary) but \(changed.count) files changed: \(changed.sorted())")
        #expect(counts.written + counts.removed > 0, "\(edit.name) changed nothing: \(summary)")
        // A second build after the edit has nothing to do.
        let again = try Self.build(site)
        #expect(again.contains(", 0 written, "), "\(again)")
        #expect(again.contains(", 0 removed "), "\(again)")
    }

    /// Sets every story file's modification time an hour back: stamps that recent are not trusted (see the story
    /// cache), so a site written a moment ago is never found up to date.
    static func ageStoryFiles(_ site: TemporarySite) throws {
        let content = site.path + "/content"
        let files = FileManager.default.enumerator(atPath: content)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".md") {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)],
                                                  ofItemAtPath: content + "/" + file)
        }
    }

    /// With nothing changed since the last build (story stamps, config, theme, flags, and no scheduled story or
    /// news window reached), a build loads nothing: the trace of parsed stories, deleted, is not written again. Any edit, and
    /// time reaching a story's news window end, make it a real build again, which equals a clean one.
    @Test func upToDateSiteIsNotLoadedAgain() throws {
        let site = try BuildFixtures.site()
        try Self.ageStoryFiles(site)
        _ = try Self.build(site)
        let before = Self.tree(site, "site")
        try FileManager.default.removeItem(atPath: site.path + "/.newsgen/trace")
        let second = try Self.build(site)
        #expect(second.contains(", 0 written, ") && second.contains(", 0 removed "), "\(second)")
        #expect(!site.exists(".newsgen/trace"), "the stories were loaded: \(second)")
        #expect(Self.tree(site, "site") == before)
        // Other flags are other inputs.
        _ = try Self.build(site, ["--drafts"])
        #expect(site.exists(".newsgen/trace"))
        #expect(Self.tree(site, "site") != before)
        _ = try Self.build(site)
        #expect(Self.tree(site, "site") == before)

        // An hour later nothing has changed (the 2026-11-28 story leaves the 48-hour news window at 08:00 the
        // next day); a day later the news sitemap has.
        try FileManager.default.removeItem(atPath: site.path + "/.newsgen/trace")
        let hourLater = ["SOURCE_DATE_EPOCH": "1795968000"]
        _ = try Self.build(site, environment: hourLater)
        #expect(!site.exists(".newsgen/trace"))
        let dayLater = ["SOURCE_DATE_EPOCH": "1796050800"]
        let later = try Self.build(site, environment: dayLater)
        let counts = try #require(Self.counts(later))
        #expect(counts.written > 0, "\(later)")
        #expect(site.exists(".newsgen/trace"))
        _ = try Self.build(site, ["--clean", "--output", "reference"], environment: dayLater)
        #expect(Self.difference(Self.tree(site, "site"), Self.tree(site, "reference")).isEmpty)

        // An edit of a story (its stamp changes) is a real build.
        try Self.ageStoryFiles(site)
        _ = try Self.build(site, environment: dayLater)
        try FileManager.default.removeItem(atPath: site.path + "/.newsgen/trace")
        try Self.replace(site, "content/world/quake.md", "The quake struck", "The strong quake struck")
        let edited = try Self.build(site, environment: dayLater)
        #expect(try #require(Self.counts(edited)).written > 0, "\(edited)")
        #expect(site.exists(".newsgen/trace"))
    }

    @Test func noChangeRebuildWritesNothing() throws {
        let site = try BuildFixtures.site()
        let first = try Self.build(site)
        #expect(first.contains(" 0 unchanged, "), "\(first)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: site.path + "/.newsgen").contains { $0.hasPrefix("build-") })
        #expect(!site.exists("site/.newsgen-build-cache"))
        #expect(site.exists(".newsgen/trace"))
        let before = Self.tree(site, "site")
        let second = try Self.build(site)
        let counts = try #require(Self.counts(second))
        #expect(second.contains(", 0 written, \(counts.files) unchanged, 0 removed "), "\(second)")
        #expect(Self.tree(site, "site") == before)
    }

    @Test func oneStoryChangeWritesOnlyWhatItTouches() throws {
        let site = try BuildFixtures.site()
        _ = try Self.build(site)
        let before = Self.tree(site, "site")
        try Self.replace(site, "content/world/2026-11-28-english-only.md", "English body.", "A new English body.")
        let summary = try Self.build(site)
        let after = Self.tree(site, "site")
        let changed = Self.difference(before, after)
        let counts = try #require(Self.counts(summary))
        #expect(counts.written == changed.count, "\(summary): \(changed.sorted())")
        // Its pages change (the French one shows the English body as a fallback), and the English feeds that
        // carry its full text; no other story page, and no feed of another language.
        #expect(changed.contains("en/2026/11/28/english-only/index.html"))
        #expect(changed.contains("en/feed.xml") && changed.contains("en/world/feed.json"), "\(changed.sorted())")
        for file in changed {
            let allowed = file.hasSuffix("/2026/11/28/english-only/index.html") || file.hasSuffix("feed.xml")
                || file.hasSuffix("atom.xml") || file.hasSuffix("feed.json")
                || (file.hasPrefix("en/world/") && file.hasSuffix("index.html")) || file == "en/index.html"
                || file.hasPrefix("sitemap") || file.hasPrefix("news-sitemap")
            #expect(allowed, "\(file) should not change")
            #expect(file.hasPrefix("en/") || file.hasSuffix("/english-only/index.html") || file.hasPrefix("sitemap")
                    || file.hasPrefix("news-sitemap"), "\(file)")
        }
    }

    @Test(arguments: ["garbage", "truncated", "empty", "text changed in place"])
    func corruptedCacheGivesACorrectFullBuild(_ damage: String) throws {
        let site = try BuildFixtures.site()
        _ = try Self.build(site)
        try Self.replace(site, "content/world/quake.md", "The quake struck", "The quake hit")
        for cache in try Self.caches(site) {
            let bytes = try Data(contentsOf: site.url.appendingPathComponent(cache))
            switch damage {
            case "garbage": try site.write(cache, Data((0..<bytes.count).map { UInt8(truncatingIfNeeded: $0 &* 37) }))
            case "truncated": try site.write(cache, bytes.prefix(bytes.count / 2 + 3))
            case "text changed in place":
                // The cache still has the right shape; only a title of a story that did not change is different.
                // Only the file's checksum can tell.
                var changed = [UInt8](bytes)
                let title = Array("Only in English".utf8)
                if let start = (0...(changed.count - title.count)).first(where: { changed[$0..<$0 + title.count].elementsEqual(title) }) {
                    changed[start] = UInt8(ascii: "X")
                }
                try site.write(cache, Data(changed))
            default: try site.write(cache, Data())
            }
        }
        _ = try Self.build(site)
        _ = try Self.build(site, ["--clean", "--output", "reference"])
        let different = Self.difference(Self.tree(site, "site"), Self.tree(site, "reference"))
        #expect(different.isEmpty, "\(different.sorted())")
        #expect(try site.read("site/en/2026/11/29/quake/index.html").contains("The quake hit"))
    }

    @Test func cleanRendersEverythingAndRewritesNothingUnchanged() throws {
        let site = try BuildFixtures.site()
        _ = try Self.build(site)
        // A cache that claims every output is up to date although the story changed: only --clean recovers.
        let cacheFile = try #require(try Self.caches(site).first { $0.contains("build-") })
        let cache = try Data(contentsOf: site.url.appendingPathComponent(cacheFile))
        try Self.replace(site, "content/world/quake.md", "The quake struck", "The quake hit")
        let normal = try Self.build(site)
        #expect(!normal.contains(" 0 written"), "\(normal)")
        try site.write(cacheFile, cache)
        let clean = try Self.build(site, ["--clean"])
        #expect(clean.contains(", 0 written, "), "\(clean)")
        _ = try Self.build(site, ["--clean", "--output", "reference"])
        #expect(Self.difference(Self.tree(site, "site"), Self.tree(site, "reference")).isEmpty)
        let help = try newsgen(["build", "--help"], in: site)
        #expect(help.standardOutput.contains("--clean"))
    }

    /// The sitemaps are kept when their inputs are unchanged; "now" is one of them (the Google News window).
    @Test func newsWindowFollowsTheBuildTime() throws {
        let site = try BuildFixtures.site()
        _ = try Self.build(site)
        let before = Self.tree(site, "site")
        let english = "/2026/11/28/english-only/"
        #expect(String(decoding: try #require(before["news-sitemap.xml"]), as: UTF8.self).contains(english))
        // An hour later the same stories are recent: nothing to write.
        let hourLater = ["SOURCE_DATE_EPOCH": "1795968000"]
        let same = try Self.build(site, environment: hourLater)
        #expect(same.contains(", 0 written, ") && same.contains(", 0 removed "), "\(same)")
        // A day later the story of 2026-11-28 has left the 48-hour window; no story file changed.
        let dayLater = ["SOURCE_DATE_EPOCH": "1796050800"]
        let summary = try Self.build(site, environment: dayLater)
        let incremental = Self.tree(site, "site")
        let news = String(decoding: try #require(incremental["news-sitemap.xml"]), as: UTF8.self)
        #expect(!news.contains(english), "\(news)")
        #expect(news.contains("/2026/11/29/quake/"), "\(news)")
        _ = try Self.build(site, ["--clean", "--output", "reference"], environment: dayLater)
        let different = Self.difference(incremental, Self.tree(site, "reference"))
        #expect(different.isEmpty, "differs from a clean build in \(different.sorted())")
        let changed = Self.difference(before, incremental)
        #expect(changed.contains("news-sitemap.xml"), "\(summary): \(changed.sorted())")
        let counts = try #require(Self.counts(summary), "\(summary)")
        #expect(counts.written + counts.removed == changed.count, "\(summary): \(changed.sorted())")
        let again = try Self.build(site, environment: dayLater)
        #expect(again.contains(", 0 written, ") && again.contains(", 0 removed "), "\(again)")
    }

    /// The fixture site with stories in three months: September and October 2026 besides November's.
    static func threeMonthSite() throws -> TemporarySite {
        var files = BuildFixtures.files
        files["content/world/2026-10-05-harbour.md"] = """
        ---
        category: World
        published: 2026-10-05T08:00:00Z
        title: { en: The harbour reopens, fr: Le port rouvre }
        ---
        <!-- lang: en -->
        The harbour reopened.

        <!-- lang: fr -->
        Le port a rouvert.
        """
        files["content/sports/2026-09-12-derby.md"] = """
        ---
        category: Sports
        published: 2026-09-12T18:00:00Z
        title: { en: The derby, fr: Le derby }
        ---
        <!-- lang: en -->
        The derby was a draw.
        """
        return try TemporarySite(files: files)
    }

    /// Inode and modification time of output files: the same pair means the file was not written again.
    static func stamps(_ site: TemporarySite, _ files: [String]) throws -> [String: String] {
        var result: [String: String] = [:]
        for file in files {
            let attributes = try FileManager.default.attributesOfItem(atPath: site.path + "/site/" + file)
            let inode = attributes[.systemFileNumber] as? NSNumber
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970
            result[file] = "\(inode?.uint64Value ?? 0) \(modified ?? 0)"
        }
        return result
    }

    /// The sitemap files of the output folder's root that differ between two trees.
    static func sitemapChanges(_ changed: Set<String>) -> Set<String> {
        changed.filter { !$0.contains("/") && ($0.hasPrefix("sitemap") || $0.hasPrefix("news-sitemap") || $0 == "robots.txt") }
    }

    /// Builds after `edit` and checks the incremental build against a clean one; the files that changed.
    static func rebuild(_ site: TemporarySite, after edit: (TemporarySite) throws -> Void) throws -> Set<String> {
        let before = Self.tree(site, "site")
        try edit(site)
        let summary = try Self.build(site)
        let incremental = Self.tree(site, "site")
        _ = try Self.build(site, ["--clean", "--output", "reference"])
        let different = Self.difference(incremental, Self.tree(site, "reference"))
        #expect(different.isEmpty, "differs from a clean build in \(different.sorted())")
        let changed = Self.difference(before, incremental)
        let counts = try #require(Self.counts(summary), "\(summary)")
        #expect(counts.written + counts.removed == changed.count, "\(summary) but \(changed.count) files changed: \(changed.sorted())")
        return changed
    }

    /// A new story rewrites only the sitemap files that list it: its month's, the pages file (its category pages
    /// and front pages), the index (their lastmods) and the news sitemap (it is recent). The other months' files
    /// are left as they are, not even written again with the same bytes.
    @Test func aNewStoryRewritesOnlyTheSitemapFilesThatListIt() throws {
        let site = try Self.threeMonthSite()
        _ = try Self.build(site)
        let sitemaps = Self.sitemapChanges(Set(Self.tree(site, "site").keys))
        #expect(sitemaps == ["sitemap.xml", "sitemap-pages.xml", "sitemap-2026-11.xml", "sitemap-2026-10.xml", "sitemap-2026-09.xml",
                             "news-sitemap.xml", "robots.txt"])
        let index = try site.read("site/sitemap.xml")
        let named = index.components(separatedBy: "<loc>").dropFirst().map { String($0.prefix { $0 != "<" }) }
        #expect(named == ["sitemap-pages.xml", "sitemap-2026-11.xml", "sitemap-2026-10.xml", "sitemap-2026-09.xml"]
            .map { "https://news.example.com/" + $0 })
        let untouched = ["sitemap-2026-10.xml", "sitemap-2026-09.xml", "robots.txt"]
        let stamps = try Self.stamps(site, untouched)
        let changed = try Self.rebuild(site) { site in
            try site.write(Self.finalPath, Self.finalStory(published: "2026-11-29T14:30:00Z"))
        }
        #expect(Self.sitemapChanges(changed) == ["sitemap-2026-11.xml", "sitemap-pages.xml", "sitemap.xml", "news-sitemap.xml"],
                "\(changed.sorted())")
        #expect(try site.read("site/sitemap-2026-11.xml").contains("<loc>https://news.example.com/fr/2026/11/29/final/</loc>"))
        #expect(try Self.stamps(site, untouched) == stamps)
    }

    /// An edit of a story of an old month rewrites that month's file (and the index, whose lastmod for it moves),
    /// and no other month's; the pages file too, since the archive page that holds the story takes its lastmod.
    @Test func anEditInAnOldMonthRewritesOnlyThatMonthsFile() throws {
        let site = try Self.threeMonthSite()
        _ = try Self.build(site)
        let untouched = ["sitemap-2026-11.xml", "sitemap-2026-09.xml", "news-sitemap.xml", "robots.txt"]
        let stamps = try Self.stamps(site, untouched)
        let changed = try Self.rebuild(site) { site in
            try Self.replace(site, "content/world/2026-10-05-harbour.md", "published: 2026-10-05T08:00:00Z",
                             "published: 2026-10-05T08:00:00Z\nupdated: 2026-10-06T10:00:00Z")
        }
        #expect(Self.sitemapChanges(changed) == ["sitemap-2026-10.xml", "sitemap-pages.xml", "sitemap.xml"], "\(changed.sorted())")
        #expect(changed.contains("en/2026/10/05/harbour/index.html"))
        #expect(try site.read("site/sitemap.xml").contains("""
            <loc>https://news.example.com/sitemap-2026-10.xml</loc>
            <lastmod>2026-10-06T10:00:00Z</lastmod>
        """))
        #expect(try Self.stamps(site, untouched) == stamps)
        // A second story in that month, then its deletion: back to the same files.
        _ = try Self.rebuild(site) { try $0.write("content/world/2026-10-01-second.md", "---\ncategory: World\npublished: 2026-10-01T08:00:00Z\ntitle: Second\n---\nSecond.\n") }
        let removed = try Self.rebuild(site) { try $0.remove("content/world/2026-10-01-second.md") }
        #expect(Self.sitemapChanges(removed).contains("sitemap-2026-10.xml"))
        // A month whose last story goes: its file goes too (the quake still heads the Sports pages: the pages
        // file keeps its bytes).
        let gone = try Self.rebuild(site) { try $0.remove("content/sports/2026-09-12-derby.md") }
        #expect(Self.sitemapChanges(gone) == ["sitemap-2026-09.xml", "sitemap.xml"], "\(gone.sorted())")
        #expect(!site.exists("site/sitemap-2026-09.xml"))
    }

    /// A kept sitemap that was edited or deleted by hand is written again.
    @Test func damagedSitemapsAreWrittenAgain() throws {
        let site = try BuildFixtures.site()
        _ = try Self.build(site)
        let before = Self.tree(site, "site")
        try site.write("site/sitemap.xml", "<not a sitemap/>")
        try site.remove("site/news-sitemap.xml")
        try site.write("site/robots.txt", "User-agent: *\nDisallow: /\n")
        let summary = try Self.build(site)
        #expect(Self.difference(before, Self.tree(site, "site")).isEmpty)
        let counts = try #require(Self.counts(summary), "\(summary)")
        #expect(counts.written == 3, "\(summary)")
        let again = try Self.build(site)
        #expect(again.contains(", 0 written, "), "\(again)")
    }

    /// A file of the site replaced by a folder that holds a link to a folder elsewhere (someone else's doing): the
    /// build puts the file back and leaves alone everything the link leads to, empty folders included.
    @Test func aBuildNeverRemovesAnythingALinkInTheOutputLeadsTo() throws {
        let site = try BuildFixtures.site()
        _ = try Self.build(site)
        let feed = try site.read("site/en/feed.xml")
        let elsewhere = site.path + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere + "/empty/deeper", withIntermediateDirectories: true)
        try site.remove("site/en/feed.xml")
        try FileManager.default.createDirectory(atPath: site.path + "/site/en/feed.xml", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: site.path + "/site/en/feed.xml/link", withDestinationPath: elsewhere)
        _ = try Self.build(site)
        #expect(try site.read("site/en/feed.xml") == feed)
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/empty/deeper"))
    }

    @Test func sameSizeSameTimeEditIsSeen() throws {
        // An edit that keeps the file's size, made right after the build, is found by the content hash.
        let site = try BuildFixtures.site()
        _ = try Self.build(site)
        try Self.replace(site, "content/world/quake.md", "The quake struck", "The quake STRUCK")
        _ = try Self.build(site)
        #expect(try site.read("site/en/2026/11/29/quake/index.html").contains("The quake STRUCK"))
    }

    @Test func checkAndOutputsElsewhereUseTheStoryCacheCorrectly() throws {
        let site = try BuildFixtures.site()
        _ = try Self.build(site)
        try Self.replace(site, "content/world/quake.md", "category: [World, Sports]", "category: [World, Nowhere]")
        let check = try newsgen(["check"], in: site, environment: BuildFixtures.now)
        #expect(check.status == 1)
        #expect(check.standardError.contains("content/world/quake.md"), "\(check.standardError)")
        let build = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(build.status == 1)
    }
}
