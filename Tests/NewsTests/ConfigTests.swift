import Testing
@testable import News
import NewsFixtures
import TestSupport

@Suite struct ConfigTests {
    func problems(_ text: String) -> [String] {
        var diagnostics: [Diagnostic] = []
        _ = SiteConfig.parse(text, path: "newsgen.yml", diagnostics: &diagnostics)
        return diagnostics.map(\.description)
    }

    @Test func parsesTheLanguageTableAndCategories() {
        let config = Fixtures.siteConfig()
        #expect(config.languages.map(\.code) == ["en", "fr", "zh-Hans"])
        #expect(config.defaultLanguage.code == "en")
        #expect(config.baseURL == "https://news.example.com/")
        #expect(config.timeZone == "Europe/Paris")
        #expect(config.categories.map(\.slug) == ["world", "politics", "sports"])
        #expect(config.categories[0].title(in: config.languages[1]) == "Monde")
        // No English title given: the category name is the English display name.
        #expect(config.categories[0].title(in: config.languages[0]) == "World")
        #expect(config.missingLanguage == .fallback)
        #expect(config.allowRawHTML == false)
        #expect(config.pageSize == 20)
        #expect(config.push.maxAge == 6 * 3600)
    }

    /// The config's text fields are read like the stories': a control character from a YAML escape is an error.
    @Test func controlCharactersInTheConfigAreErrors() {
        let text = FixtureConfig.threeLanguages(title: #"{ en: "Test\u001bNews", fr: Nouvelles }"#)
        #expect(problems(text) == [
            "newsgen.yml:1:14: error: title.en contains the control character U+001B, which pages, feeds and phones cannot show; remove it",
        ])
    }

    @Test func unknownKeySuggestsTheRightOne() {
        let text = Fixtures.config + "\ntimezon: UTC\n"
        #expect(problems(text) == [
            "newsgen.yml:17:1: error: unknown key \"timezon\" (known: title, description, base_url, timezone, languages, categories, missing_language, raw_html, page_size, front_page_size, push, feeds, publisher, sitemaps, media; did you mean \"timezone\"?) in newsgen.yml",
        ])
    }

    @Test func refusesWhatWouldBreakOutputsOrPushes() {
        let text = """
        title: Example
        base_url: news.example.com
        timezone: Europe/Pariss
        languages:
          - code: english
            name: English
          - code: fr
            name: Fran çais
        categories:
          - name: World News
          - name: World-News
        missing_language: drop
        """
        let found = problems(text)
        #expect(found.contains("newsgen.yml:5:11: error: \"english\" is not a BCP 47 language tag (e.g. en, fr, zh-Hans, pt-BR)"))
        #expect(found.contains("newsgen.yml:8:11: error: language name \"Fran çais\" may only use ASCII letters, digits and _ (it becomes the push property News_Fran çais)"))
        #expect(found.contains("newsgen.yml:11:11: error: categories World News and World-News would share the URL segment \"world-news\""))
        #expect(found.contains("newsgen.yml:2:11: error: base_url must be an absolute http(s) URL such as https://news.example.com/, found \"news.example.com\""))
        #expect(found.contains("newsgen.yml:3:11: error: unknown time zone \"Europe/Pariss\" (use an IANA name such as UTC, Europe/Paris or Asia/Shanghai)"))
        #expect(found.contains("newsgen.yml:12:19: error: missing_language must be fallback or skip, found \"drop\""))
    }

    @Test func reportsMissingRequiredKeys() {
        #expect(problems("title: x\n") == [
            "newsgen.yml:1:1: error: missing required key \"base_url\"",
            "newsgen.yml:1:1: error: missing required key \"languages\"",
            "newsgen.yml:1:1: error: missing required key \"categories\"",
        ])
    }

    @Test func yamlSyntaxErrorsPointAtTheLine() {
        let found = problems("title: x\nbase_url: [https://a\n")
        #expect(found.count == 1)
        #expect(found[0].hasPrefix("newsgen.yml:3:"))
    }

    @Test func pushSettings() {
        let config = Fixtures.siteConfig(Fixtures.config + "\npush:\n  hub: news\n  max_age: 90m\n  missing_text: fail\n  attempts: 6\n")
        #expect(config.push.hub == "news")
        #expect(config.push.maxAge == 5400)
        #expect(config.push.missingText == .fail)
        #expect(config.push.attempts == 6)
        #expect(problems(Fixtures.config + "\npush:\n  max_age: soon\n") ==
                ["newsgen.yml:18:12: error: push.max_age must be a duration such as 6h, 90m or 30s, found \"soon\""])
    }
}

@Suite struct LanguageTableTests {
    @Test func everySpellingComesFromOneRow() {
        let zh = Language(code: "zh-Hans", name: "Mandarin")
        #expect(zh.pathSegment == "zh-hans")
        #expect(zh.ogLocale == "zh_CN")
        #expect(zh.newsLanguage == "zh-cn")
        #expect(zh.direction == .ltr)
        #expect(zh.label == "简体中文")
        let fr = Language(code: "fr", name: "French")
        #expect(fr.ogLocale == "fr_FR")
        #expect(fr.newsLanguage == "fr")
        #expect(fr.label == "Français")
        let ar = Language(code: "ar", name: "Arabic")
        #expect(ar.direction == .rtl)
        #expect(ar.ogLocale == "ar_AR")
        let ptBR = Language(code: "pt-BR", name: "Portuguese")
        #expect(ptBR.ogLocale == "pt_PT" || ptBR.ogLocale == "pt_BR")
        #expect(Language(code: "sr-Latn", name: "Serbian").direction == .ltr)
        #expect(Language(code: "ku-Arab", name: "Kurdish").direction == .rtl)
    }

    @Test func tagSyntax() {
        for good in ["en", "fr", "zh-Hans", "pt-BR", "es-419"] { #expect(Language.isWellFormedTag(good)) }
        for bad in ["english", "zh_CN", "", "e", "en-", "fr-XX1-toolongsubtag"] { #expect(!Language.isWellFormedTag(bad)) }
    }

    @Test func didYouMean() {
        #expect(Suggestion.closest(to: "Wrld", in: ["World", "Politics"]) == "World")
        #expect(Suggestion.closest(to: "Cooking", in: ["World", "Politics"]) == nil)
        #expect(Suggestion.unknown("category", "Wrld", known: ["World", "Politics"]) ==
                "unknown category \"Wrld\" (known: World, Politics; did you mean \"World\"?)")
    }
}
