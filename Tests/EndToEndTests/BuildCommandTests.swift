import Foundation
import Testing
import TestSupport

@Suite struct BuildCommandTests {
    @Test func buildsEveryPageInEveryLanguage() throws {
        let site = try BuildFixtures.site()
        let result = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("built 2 stories into "))
        let files = Set(site.snapshot().keys)
        for expected in [
            "index.html", "404.html", "static/style.css",
            "en/index.html", "fr/index.html", "zh-hans/index.html",
            "en/2026/11/29/quake/index.html", "fr/2026/11/29/quake/index.html", "zh-hans/2026/11/29/quake/index.html",
            "en/2026/11/28/english-only/index.html", "fr/2026/11/28/english-only/index.html",
            "en/world/index.html", "fr/world/index.html", "zh-hans/sports/index.html",
        ] {
            #expect(files.contains(expected), "missing \(expected)")
        }
        // Drafts and future stories are nowhere.
        #expect(!files.contains { $0.contains("draft") || $0.contains("future") })
        let all = site.snapshot().values.map { String(decoding: $0, as: UTF8.self) }.joined()
        #expect(!all.contains("A draft") && !all.contains("From the future"))
    }

    @Test func storyPageHasLanguageDirectionCanonicalAndAlternates() throws {
        let site = try BuildFixtures.site()
        _ = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        let fr = try site.read("site/fr/2026/11/29/quake/index.html")
        #expect(fr.contains("<html lang=\"fr\" dir=\"ltr\">"))
        #expect(fr.contains("<link rel=\"canonical\" href=\"https://news.example.com/fr/2026/11/29/quake/\">"))
        #expect(fr.contains("<link rel=\"alternate\" hreflang=\"en\" href=\"https://news.example.com/en/2026/11/29/quake/\">"))
        #expect(fr.contains("<link rel=\"alternate\" hreflang=\"zh-Hans\" href=\"https://news.example.com/zh-hans/2026/11/29/quake/\">"))
        #expect(fr.contains("<link rel=\"alternate\" hreflang=\"x-default\" href=\"https://news.example.com/en/2026/11/29/quake/\">"))
        #expect(fr.contains("Un séisme de magnitude 7,1 frappe au large des côtes"))
        // Dates in the page's language, in the site's time zone (Europe/Paris: 15:05).
        #expect(fr.contains("<time datetime=\"2026-11-29T15:05:00+01:00\">29 novembre 2026 à 15:05</time>"))
        let zh = try site.read("site/zh-hans/2026/11/29/quake/index.html")
        #expect(zh.contains("<html lang=\"zh-Hans\" dir=\"ltr\">"))
        #expect(zh.contains("2026年11月29日"))
        let en = try site.read("site/en/2026/11/29/quake/index.html")
        // cmark with smart punctuation, heading ids.
        #expect(en.contains("<p><strong>TOKYO —</strong> The quake struck at “dawn”.</p>"))
        #expect(en.contains("<h2 id=\"what-we-know\">What we know</h2>"))
        #expect(en.contains("href=\"/fr/2026/11/29/quake/\""))
    }

    @Test func missingLanguageFallsBackVisiblyOrIsSkipped() throws {
        let site = try BuildFixtures.site()
        _ = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        let fr = try site.read("site/fr/2026/11/28/english-only/index.html")
        #expect(fr.contains("<div class=\"body\" lang=\"en\" dir=\"ltr\">"))
        #expect(fr.contains("<p>English body.</p>"))
        #expect(fr.contains("Cet article n’est pas encore disponible en français ; voici la version en anglais."))
        #expect(fr.contains("<h1 lang=\"en\">Only in English</h1>"))

        try site.write("newsgen.yml", BuildFixtures.config + "\nmissing_language: skip\n")
        let result = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 0)
        #expect(!site.exists("site/fr/2026/11/28/english-only/index.html"))
        #expect(site.exists("site/zh-hans/2026/11/28/english-only/index.html"))
        #expect(try !site.read("site/fr/index.html").contains("english-only"))
        #expect(try !site.read("site/en/2026/11/28/english-only/index.html").contains("hreflang=\"fr\" href=\"https://news.example.com/fr/2026/11/28"))
    }

    @Test func draftsAndFutureOnRequest() throws {
        let site = try BuildFixtures.site()
        let result = try newsgen(["build", "--drafts", "--future"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 0)
        #expect(site.exists("site/en/2026/11/27/draft/index.html"))
        #expect(site.exists("site/en/2027/01/15/future/index.html"))
    }

    @Test func categoryPagesArePaginated() throws {
        let site = try BuildFixtures.site()
        _ = try newsgen(["build", "--drafts"], in: site, environment: BuildFixtures.now)
        // Sports: quake (second category) + draft = 2 stories = the index alone; World: quake + english-only.
        #expect(site.exists("site/en/sports/index.html"))
        #expect(!site.exists("site/en/sports/page/1/index.html"))
        #expect(try !site.read("site/en/sports/index.html").contains("class=\"pager\""))
        // An older story goes to the first archive page, whose "Newer" link leads back to the index.
        try site.write("content/sports/extra.md", "---\ncategory: Sports\npublished: 2026-11-01T09:00:00Z\ntitle: Extra\n---\nExtra.\n")
        _ = try newsgen(["build", "--drafts"], in: site, environment: BuildFixtures.now)
        let archive = try site.read("site/en/sports/page/1/index.html")
        #expect(archive.contains("Extra"))
        #expect(archive.contains("rel=\"prev\" href=\"/en/sports/\""))
        #expect(!archive.contains("rel=\"next\""))
        #expect(!site.exists("site/en/sports/page/2/index.html"))
        let index = try site.read("site/en/sports/index.html")
        #expect(index.contains("rel=\"next\" href=\"/en/sports/page/1/\""))
        #expect(!index.contains("Extra"))
    }

    @Test func rebuildRewritesNothingAndRemovesWhatLeft() throws {
        let site = try BuildFixtures.site()
        _ = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        let page = site.url.appendingPathComponent("site/en/2026/11/29/quake/index.html").path
        let before = try FileManager.default.attributesOfItem(atPath: page)[.modificationDate] as? Date
        let inode = try FileManager.default.attributesOfItem(atPath: page)[.systemFileNumber] as? Int
        Thread.sleep(forTimeInterval: 0.05)
        let again = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(again.standardOutput.contains(" 0 written, "))
        #expect(try FileManager.default.attributesOfItem(atPath: page)[.modificationDate] as? Date == before)
        #expect(try FileManager.default.attributesOfItem(atPath: page)[.systemFileNumber] as? Int == inode)

        try site.write("site/stray.html", "left over")
        try site.remove("content/world/2026-11-28-english-only.md")
        let third = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(third.status == 0)
        #expect(!site.exists("site/stray.html"))
        // Files put anywhere else by something other than newsgen go too, with the folders that held them, even
        // when the build has nothing else to do (it looks only into folders whose entries changed).
        try site.write("site/en/2026/11/29/quake/notes.txt", "left over")
        try site.write("site/extra/deep/page.html", "left over")
        let fourth = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(fourth.standardOutput.contains(" 0 written, ") && fourth.standardOutput.contains(" 2 removed"), "\(fourth.standardOutput)")
        #expect(!site.exists("site/en/2026/11/29/quake/notes.txt") && site.exists("site/en/2026/11/29/quake/index.html"))
        #expect(!site.exists("site/extra"))
        #expect(try newsgen(["build"], in: site, environment: BuildFixtures.now).standardOutput.contains(" 0 removed"))
        #expect(!site.exists("site/en/2026/11/28/english-only/index.html"))
        #expect(!site.exists("site/en/2026/11/28"))
        #expect(try !site.read("site/en/world/index.html").contains("Only in English"))
    }

    @Test func sameInputsAndSourceDateEpochGiveAByteIdenticalSite() throws {
        let site = try BuildFixtures.site()
        _ = try newsgen(["build", "--output", "one"], in: site, environment: BuildFixtures.now)
        _ = try newsgen(["build", "--output", "two"], in: site, environment: BuildFixtures.now)
        let one = site.snapshot("one"), two = site.snapshot("two")
        #expect(!one.isEmpty)
        #expect(one == two)
    }

    @Test func rootLeadsToTheDefaultLanguageWithoutJavaScript() throws {
        let site = try BuildFixtures.site()
        _ = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        let root = try site.read("site/index.html")
        #expect(root.contains("<meta http-equiv=\"refresh\" content=\"0; url=/en/\">"))
        #expect(root.contains("<a href=\"/fr/\" lang=\"fr\" dir=\"ltr\">Français</a>"))
        #expect(!root.contains("<script"))
        #expect(try site.read("site/404.html").contains("<a href=\"/zh-hans/\">简体中文</a>"))
    }

    @Test func baseURLWithAPathPrefixesEveryLink() throws {
        let site = try BuildFixtures.site()
        let result = try newsgen(["build", "--base-url", "https://example.org/news"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 0)
        let page = try site.read("site/en/index.html")
        #expect(page.contains("href=\"/news/static/style.css\""))
        #expect(page.contains("<link rel=\"canonical\" href=\"https://example.org/news/en/\">"))
    }

    @Test func checkValidatesAndWritesNothing() throws {
        let site = try BuildFixtures.site()
        let result = try newsgen(["check"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 0)
        #expect(result.standardOutput == "checked 4 stories (2 would be published), 3 languages: no problems\n")
        #expect(!site.exists("site"))
    }

    @Test func refusesAFolderNewsgenDidNotWrite() throws {
        let site = try BuildFixtures.site()
        try site.write("elsewhere/notes.txt", "keep me")
        let result = try newsgen(["build", "--output", "elsewhere"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 1)
        #expect(result.standardError.contains("holds files that newsgen did not write (such as notes.txt)"))
        #expect(try site.read("elsewhere/notes.txt") == "keep me")
        #expect(site.snapshot("elsewhere").keys.sorted() == ["notes.txt"])
        // An empty folder is fine, and once built, newsgen owns it.
        let fresh = try newsgen(["build", "--output", "fresh"], in: site, environment: BuildFixtures.now)
        #expect(fresh.status == 0)
        #expect(site.exists("fresh/.newsgen-output"))
        try site.write("fresh/stray.html", "x")
        #expect(try newsgen(["build", "--output", "fresh"], in: site, environment: BuildFixtures.now).status == 0)
        #expect(!site.exists("fresh/stray.html"))
    }

    @Test func refusesToWriteOverTheSources() throws {
        let site = try BuildFixtures.site()
        for output in [".", "content", "templates"] {
            let result = try newsgen(["build", "--output", output], in: site, environment: BuildFixtures.now)
            #expect(result.status == 1)
            #expect(result.standardError.contains("would overwrite the site's sources"))
        }
        #expect(site.exists("content/world/quake.md"))
    }
}
