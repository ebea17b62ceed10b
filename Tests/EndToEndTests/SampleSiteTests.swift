import Foundation
import Testing
import TestSupport

/// Builds the repository's own sample site (newsgen.yml, content/, templates/) with the built binary and checks
/// the promises the sample makes: 18 stories, of which a draft and a future one stay out; one story without a
/// French body; one story in two categories; one story that shows the marker syntax inside a code fence.
@Suite struct SampleSiteTests {
    /// 2026-11-29T15:00:00Z: after every sample story but the future one (2027-01-15).
    static let now = ["SOURCE_DATE_EPOCH": "1795964400"]
    static let languages = ["en", "fr", "zh-hans"]

    /// Story pages in the output: `lang/yyyy/mm/dd/slug/index.html`, as (language, date path, slug).
    static func storyPages(_ files: some Collection<String>) -> [(language: String, date: String, slug: String)] {
        files.compactMap { file in
            let parts = file.split(separator: "/").map(String.init)
            guard parts.count == 6, parts[5] == "index.html", parts[1].count == 4, parts[1].allSatisfy(\.isNumber)
            else { return nil }
            return (parts[0], parts[1...3].joined(separator: "/"), parts[4])
        }
    }

    static func text(_ data: Data?) -> String { data.map { String(decoding: $0, as: UTF8.self) } ?? "" }

    @Test func buildsSixteenOfTheEighteenStoriesInEveryLanguage() throws {
        let site = try TemporarySite.sample()
        #expect(FileManager.default.subpaths(atPath: site.url.appendingPathComponent("content").path)?
            .filter { $0.hasSuffix(".md") }.count == 18)
        let result = try newsgen(["build"], in: site, environment: Self.now)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty)
        #expect(result.standardOutput.hasPrefix("built 16 stories into site/: "), "\(result.standardOutput)")

        let pages = Self.storyPages(site.snapshot().keys)
        #expect(Set(pages.map(\.slug)).count == 16)
        #expect(pages.count == 16 * 3)   // missing_language: fallback gives every story a page in every language
        for language in Self.languages {
            #expect(pages.filter { $0.language == language }.count == 16)
        }
        // A story published at 02:30 UTC on the 15th (21:30 on the 14th in New York) is dated in the site's time zone.
        #expect(pages.contains { $0.language == "fr" && $0.date == "2026/11/15" && $0.slug == "high-seas-treaty-sanctuaries" })
        // The date prefix of the file name is not part of the slug.
        #expect(pages.contains { $0.language == "en" && $0.date == "2026/11/20" && $0.slug == "budget-vote" })

        let check = try newsgen(["check"], in: site, environment: Self.now)
        #expect(check.status == 0)
        #expect(check.standardOutput == "checked 18 stories (16 would be published), 3 languages, 6 photos: no problems\n")
    }

    @Test func storyWithoutAFrenchBodyShowsTheFallbackNotice() throws {
        let site = try TemporarySite.sample()
        #expect(try !site.read("content/business/shenzhen-port-record.md").contains("<!-- lang: fr -->"))
        let result = try newsgen(["build"], in: site, environment: Self.now)
        #expect(result.status == 0, "\(result.standardError)")

        let fr = try site.read("site/fr/2026/11/09/shenzhen-port-record/index.html")
        #expect(fr.contains("<html lang=\"fr\" dir=\"ltr\">"))
        #expect(fr.contains("<p class=\"notice\" role=\"note\">Cet article n’est pas encore disponible en français ; voici la version en anglais.</p>"))
        #expect(fr.contains("<div class=\"body\" lang=\"en\" dir=\"ltr\">\n<p><strong>SHENZHEN, China —</strong> Shenzhen’s container ports"))
        // The French title and summary exist and are shown unmarked.
        #expect(fr.contains("<h1>Les ports de Shenzhen battent leur record de conteneurs</h1>"))

        // Stories that have their French body show no notice.
        let translated = try site.read("site/fr/2026/11/17/lumen-motors-recall/index.html")
        #expect(!translated.contains("class=\"notice\""))
        #expect(translated.contains("<div class=\"body\">"))
        // The Chinese page has its own body.
        let zh = try site.read("site/zh-hans/2026/11/09/shenzhen-port-record/index.html")
        #expect(!zh.contains("class=\"notice\""))
        #expect(zh.contains("<div class=\"body\">"))
    }

    @Test func twoCategoryStoryIsOnBothCategoryPages() throws {
        let site = try TemporarySite.sample()
        #expect(try site.read("content/world/high-seas-treaty-sanctuaries.md").contains("category: [World, Politics]"))
        let result = try newsgen(["build"], in: site, environment: Self.now)
        #expect(result.status == 0, "\(result.standardError)")

        for language in Self.languages {
            let href = "href=\"/\(language)/2026/11/15/high-seas-treaty-sanctuaries/\""
            for category in ["world", "politics"] {
                #expect(try site.read("site/\(language)/\(category)/index.html").contains(href), "\(language)/\(category)")
            }
            for category in ["business", "technology", "science", "sports"] {
                #expect(try !site.read("site/\(language)/\(category)/index.html").contains(href), "\(language)/\(category)")
            }
        }
        // The story page links both categories; the first one is the main category (highlighted in the navigation).
        let page = try site.read("site/fr/2026/11/15/high-seas-treaty-sanctuaries/index.html")
        #expect(page.contains("<p class=\"kicker\"><a href=\"/fr/world/\">Monde</a> <a href=\"/fr/politics/\">Politique</a> </p>"))
        #expect(page.contains("<li><a href=\"/fr/world/\" aria-current=\"page\">Monde</a></li>"))
    }

    @Test func draftAndFutureStoriesAppearNowhere() throws {
        let site = try TemporarySite.sample()
        #expect(try site.read("content/politics/senate-pfas-inquiry.md").contains("\ndraft: true\n"))
        #expect(try site.read("content/technology/quantum-computer-opens.md").contains("\npublished: 2027-01-15T09:00:00Z\n"))
        let hidden = ["senate-pfas-inquiry", "PFAS", "quantum-computer-opens", "quantum computer", "ordinateur quantique", "量子计算机"]

        let result = try newsgen(["build"], in: site, environment: Self.now)
        #expect(result.status == 0, "\(result.standardError)")
        let files = site.snapshot()
        for (path, data) in files {
            let text = Self.text(data)
            for word in hidden {
                #expect(!path.contains(word) && !text.contains(word), "\(word) found in \(path)")
            }
        }

        // The same words do show up when drafts and future stories are asked for, so the check above can fail.
        let preview = try newsgen(["build", "--drafts", "--future", "--output", "preview"], in: site, environment: Self.now)
        #expect(preview.status == 0, "\(preview.standardError)")
        #expect(preview.standardOutput.hasPrefix("built 18 stories into preview/: "))
        let all = site.snapshot("preview")
        for word in hidden {
            #expect(all.contains { $0.key.contains(word) || Self.text($0.value).contains(word) }, "\(word)")
        }
        #expect(all["en/2026/11/28/senate-pfas-inquiry/index.html"] != nil)
        #expect(all["fr/2027/01/15/quantum-computer-opens/index.html"] != nil)
    }

    @Test func markersInsideCodeFencesStayText() throws {
        let site = try TemporarySite.sample()
        let source = try site.read("content/technology/public-broadcasters-open-source-cms.md")
        // 3 real markers and 6 inside the three fenced examples.
        #expect(source.components(separatedBy: "\n<!-- lang: ").count - 1 == 9)
        let result = try newsgen(["build"], in: site, environment: Self.now)
        #expect(result.status == 0, "\(result.standardError)")

        let pages = Self.storyPages(site.snapshot().keys).filter { $0.slug == "public-broadcasters-open-source-cms" }
        #expect(pages.map(\.language).sorted() == Self.languages)
        let escapedExample = """
            <pre><code class="language-markdown">---
            title:
              en: Night trains return to the Alps
              fr: Les trains de nuit reviennent dans les Alpes
            ---
            &lt;!-- lang: en --&gt;
            After a ten-year absence, sleeper services...

            &lt;!-- lang: fr --&gt;
            Après dix ans d'absence, les trains couchettes...
            </code></pre>
            """
        let starts = ["en": "<strong>GENEVA —</strong>", "fr": "<strong>GENÈVE —</strong>", "zh-hans": "<strong>日内瓦电</strong>"]
        for language in Self.languages {
            let page = try site.read("site/\(language)/2026/11/23/public-broadcasters-open-source-cms/index.html")
            #expect(page.components(separatedBy: escapedExample).count - 1 == 1, "\(language)")
            #expect(page.contains("<div class=\"body\">"), "\(language): the body must be its own, not a fallback")
            #expect(!page.contains("class=\"notice\""))
            // Each page holds exactly its own language's body.
            for (other, start) in starts {
                #expect(page.contains(start) == (other == language), "\(language) page and \(other) body")
            }
            #expect(!page.contains("<!-- lang:"))
        }
    }
}
