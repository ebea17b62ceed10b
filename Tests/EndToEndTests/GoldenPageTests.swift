import Foundation
import Testing
import TestSupport

/// Rendered pages of the small fixture site (BuildFixtures) compared byte for byte with reviewed golden files in
/// Golden/pages/. After an intended theme or rendering change: `NEWSGEN_RECORD_GOLDEN=1 swift test --filter
/// GoldenPageTests`, then review `git diff Tests/EndToEndTests/Golden`.
@Suite struct GoldenPageTests {
    struct Page: Sendable, CustomTestStringConvertible {
        /// Output file, relative to site/.
        var output: String
        /// Golden file name in Golden/pages/.
        var golden: String
        var language: String
        /// Built from the fixture site with three older World stories (`withArchive`), which fill two archive pages.
        var archive = false
        var testDescription: String { golden }
    }

    static let pages: [Page] = [
        // The French page of a story with no French body: fallback notice, body and title marked lang="en".
        Page(output: "fr/2026/11/28/english-only/index.html", golden: "fr-story-fallback.html", language: "fr"),
        // A front page: breaking badge, cards newest first.
        Page(output: "en/index.html", golden: "en-front.html", language: "en"),
        // A category page: the two-category story and a card whose title falls back to English.
        Page(output: "fr/world/index.html", golden: "fr-category-world.html", language: "fr"),
        // A category index with archive pages: its newest stories and the "Older" link to the newest archive page.
        Page(output: "en/world/index.html", golden: "en-category-world-index.html", language: "en", archive: true),
        // The oldest archive page: full, a "Newer" link to page 2, no "Older" link; its label in the title.
        Page(output: "en/world/page/1/index.html", golden: "en-category-world-archive-1.html", language: "en", archive: true),
        // The newest archive page (partial): "Newer" leads to the index, "Older" to page 1; French label.
        Page(output: "fr/world/page/2/index.html", golden: "fr-category-world-archive-2.html", language: "fr", archive: true),
    ]

    /// Three World stories older than the fixture's: World has five stories in English and French (page size 2),
    /// so an index of two and archive pages of two (page 1) and one (page 2).
    static let withArchive: [String: String] = {
        var files = BuildFixtures.files
        for day in 1...3 {
            files["content/world/older-\(day).md"] = """
            ---
            category: World
            published: 2026-11-0\(day)T09:00:00Z
            title: { en: Older story \(day), fr: Article ancien \(day) }
            ---
            Body \(day).
            """
        }
        return files
    }()

    static let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Golden/pages")

    static func build(withArchive: Bool = false) throws -> TemporarySite {
        let site = try TemporarySite(files: withArchive ? Self.withArchive : BuildFixtures.files)
        let result = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        guard result.status == 0 else {
            throw BuildFailure(message: "newsgen build exited \(result.status): \(result.standardError)")
        }
        return site
    }

    struct BuildFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    @Test(arguments: pages) func pageMatchesItsGoldenFile(_ page: Page) throws {
        let site = try Self.build(withArchive: page.archive)
        let html = try site.read("site/" + page.output)
        let problem = GoldenFile.problem(html, golden: Self.goldenFolder.appendingPathComponent(page.golden))
        #expect(problem == nil, "\(problem ?? "")")
    }

    /// The structural promises of every golden page, checked on the page itself so that a re-recorded golden
    /// file cannot quietly drop them.
    @Test(arguments: pages) func pageIsAccessible(_ page: Page) throws {
        let site = try Self.build(withArchive: page.archive)
        let html = try site.read("site/" + page.output)
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"\(page.language == "fr" ? "fr" : "en")\" dir=\"ltr\">\n"))
        #expect(occurrences(of: "<h1", in: html) == 1)
        #expect(occurrences(of: "<main id=\"main\">", in: html) == 1)
        #expect(html.contains("<a class=\"skip\" href=\"#main\">"))
        // Every nav is labelled, in the page's language.
        let labels = page.language == "fr" ? ["Langues", "Rubriques"] : ["Languages", "Sections"]
        #expect(occurrences(of: "<nav ", in: html) == occurrences(of: "<nav class=\"", in: html))
        #expect(occurrences(of: "<nav ", in: html) == occurrences(of: "aria-label=\"", in: html))
        for label in labels { #expect(html.contains("aria-label=\"\(label)\""), "\(label)") }
        // Each entry of the language switcher is marked with its own language; the current one is not a link.
        #expect(html.contains("<span aria-current=\"page\" lang=\"\(page.language)\" dir=\"ltr\">"))
        #expect(html.contains("lang=\"zh-Hans\" dir=\"ltr\">简体中文</a>"))
        #expect(html.contains("<link rel=\"canonical\" href=\"https://news.example.com/\(page.output.dropLast("index.html".count))\">"))
        // No script is needed to read: the only scripts allowed are JSON-LD data blocks.
        #expect(occurrences(of: "<script", in: html) == occurrences(of: "<script type=\"application/ld+json\">", in: html))
        #expect(!html.contains("{{") && !html.contains("}}"))
    }

    @Test func fallbackPageMarksEveryBorrowedText() throws {
        let site = try Self.build()
        let html = try site.read("site/fr/2026/11/28/english-only/index.html")
        #expect(html.contains("<h1 lang=\"en\">Only in English</h1>"))
        #expect(html.contains("<div class=\"body\" lang=\"en\" dir=\"ltr\">\n<p>English body.</p>"))
        #expect(html.contains("<p class=\"notice\" role=\"note\">Cet article n’est pas encore disponible en français ; voici la version en anglais.</p>"))
        // The <title> is in English too; it is text of the head, where lang cannot be set, so it is left as is.
        #expect(html.contains("<title>Only in English · Les Nouvelles Test</title>"))
    }

    @Test func missingGoldenFileFailsUnlessRecording() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("newsgen-golden-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: missing) }
        let problem = GoldenFile.problem("<p>x</p>\n", golden: missing)
        if GoldenFile.isRecording {
            #expect(problem == nil)
            #expect(FileManager.default.contents(atPath: missing.path) == Data("<p>x</p>\n".utf8))
        } else {
            #expect(problem?.contains("is missing; record it with NEWSGEN_RECORD_GOLDEN=1") == true)
            #expect(!FileManager.default.fileExists(atPath: missing.path))
        }
    }

    @Test func differenceNamesTheFirstDifferingLine() throws {
        guard !GoldenFile.isRecording else { return }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("newsgen-golden-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("<p>a</p>\n<p>b</p>\n".utf8).write(to: file)
        #expect(GoldenFile.problem("<p>a</p>\n<p>b</p>\n", golden: file) == nil)
        let problem = try #require(GoldenFile.problem("<p>a</p>\n<p>c</p>\n", golden: file))
        #expect(problem.contains("at line 2:\n  golden: <p>b</p>\n  actual: <p>c</p>"))
    }
}

private func occurrences(of needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}
