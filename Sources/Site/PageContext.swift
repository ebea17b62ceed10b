import News
import Foundation
import Incremental
import Markdown
import Synchronization
import Templates

/// Builds the values the theme's templates see. The names here are the theme contract, documented in
/// the README ("Templates").
struct PageContext: Sendable {
    let edition: Edition
    let links: Permalinks
    let clock: ReaderClock
    /// The build's stories, newest first: the planner refers to them by their place in this list.
    let stories: [Story]
    /// What the pages take from each story's metadata, by the story's place in `stories` (see `StoryFacts`).
    let facts: StoryFacts.Table
    /// Where each story is in `stories`, by id (for callers that have a story rather than its place).
    private let placeByID: [String: Int]
    /// `languageNames[page][other]`: the name of language `other` written in language `page`.
    let languageNames: [String: [String: String]]
    /// Each story's feed entry in each language, made once per build, and their body texts kept between builds
    /// when the build gives a cache (see `FeedEntries`).
    let feedEntries: FeedEntries
    /// Dates as readers see them, formatted once per build: a story's date shows on its page and on every list
    /// that has its card, and formatting in the reader's language is one of the dearer steps of a page.
    let dateValues = DateValues()
    /// The photos and files of the media folder as the build's media step published them.
    var media = PublishedMedia()
    /// The values of every page that depend only on its language (and, for navigation and feed links, on its
    /// category), by language code: made once per build rather than once per page.
    private var shared: [String: SharedValues] = [:]

    private struct SharedValues {
        var site: TemplateValue
        var lang: TemplateValue
        var strings: TemplateValue
        /// By the slug of the current category ("" for none).
        var navigation: [String: TemplateValue]
        /// By the slug of the category page's category ("" for other pages).
        var feeds: [String: TemplateValue]
    }

    /// `links.story(story, language)`, computed once per build.
    func storyURL(_ story: Story, _ language: Language) -> String {
        if let place = placeByID[story.id], stories[place].sourcePath == story.sourcePath {
            return storyURL(at: place, language)
        }
        return links.story(story, language)
    }

    /// `links.story` of the story at `place` in `stories`.
    func storyURL(at place: Int, _ language: Language) -> String {
        if let index = languagePlace(language) { return facts.stories[place].urls[index] }
        return links.story(stories[place], language)
    }

    /// The place of `language` in `config.languages`.
    func languagePlace(_ language: Language) -> Int? {
        config.languages.firstIndex { $0.code == language.code }
    }

    /// The languages in which the story at `place` has a page, in config order.
    func pageLanguages(at place: Int) -> [Language] {
        let bits = facts.stories[place].pageLanguages
        if let list = languageLists[bits] { return list }
        return Self.languages(bits, config.languages)
    }

    static func languages(_ bits: UInt64, _ languages: [Language]) -> [Language] {
        languages.indices.filter { bits & (1 << UInt64($0)) != 0 }.map { languages[$0] }
    }

    /// `pageLanguages(at:)` for each set of languages some story has: a handful of lists, made once.
    private let languageLists: [UInt64: [Language]]

    /// Whether the story at `place` has a page in the language at `languagePlace` in `config.languages`.
    func hasPage(at place: Int, languagePlace: Int) -> Bool {
        facts.stories[place].pageLanguages & (1 << UInt64(languagePlace)) != 0
    }

    var config: SiteConfig { edition.config }

    /// `filter`: which of the edition's stories the build shows.
    init(edition: Edition, links: Permalinks, clock: ReaderClock, filter: EditionFilter,
         feedEntries: FeedEntries = FeedEntries()) {
        self.edition = edition
        self.feedEntries = feedEntries
        self.links = links
        self.clock = clock
        let shown = edition.stories.indices.filter { filter.shows(edition.stories[$0]) }
        // Every story shown (the usual case): the edition's lists are shared, not copied story by story.
        let stories = shown.count == edition.stories.count ? edition.stories : shown.map { edition.stories[$0] }
        let facts = StoryFacts.Table(stories: shown.count == edition.stories.count ? edition.facts : shown.map { edition.facts[$0] })
        self.stories = stories
        let config = edition.config
        precondition(config.languages.count <= 64, "more languages than a page-language set holds")
        var placeByID: [String: Int] = [:]
        placeByID.reserveCapacity(stories.count)
        // By place, here and wherever every story is looked at: `for story in stories` copies each story, a retain
        // per field of it.
        for place in stories.indices { placeByID[stories[place].id] = place }
        var languageLists: [UInt64: [Language]] = [:]
        for bits in Set(facts.stories.map(\.pageLanguages)) { languageLists[bits] = Self.languages(bits, config.languages) }
        self.languageLists = languageLists
        self.facts = facts
        self.placeByID = placeByID
        var names: [String: [String: String]] = [:]
        for page in edition.config.languages {
            let locale = Locale(identifier: page.code)
            for other in edition.config.languages {
                names[page.code, default: [:]][other.code] =
                    locale.localizedString(forIdentifier: other.code) ?? other.label
            }
        }
        languageNames = names
        for language in edition.config.languages {
            var values = SharedValues(site: site(language), lang: languageValue(language), strings: strings(language),
                                      navigation: ["": navigation(language, current: nil)],
                                      feeds: ["": feedLinksValue(language, category: nil)])
            for category in edition.config.categories {
                values.navigation[category.slug] = navigation(language, current: category)
                values.feeds[category.slug] = feedLinksValue(language, category: category)
            }
            shared[language.code] = values
        }
    }

    private func feedLinksValue(_ language: Language, category: Category?) -> TemplateValue {
        .list(feedLinks(language, category: category).map { link in .object(link.mapValues { .string($0) }) })
    }

    func strings(_ language: Language) -> TemplateValue {
        .object((edition.theme.strings[language.code] ?? [:]).mapValues { .string($0) })
    }

    func site(_ language: Language) -> TemplateValue {
        .object([
            "title": .string(config.title(in: language)),
            "description": .string(config.description(in: language)),
            "base_url": .string(config.baseURL),
            "home_url": .string(links.href(links.front(language))),
            "static_url": .string(links.href("static/")),
        ])
    }

    func languageValue(_ language: Language) -> TemplateValue {
        .object([
            "code": .string(language.code), "dir": .string(language.direction.rawValue),
            "label": .string(language.label), "name": .string(language.name),
            "og_locale": .string(language.ogLocale), "rtl": .bool(language.direction == .rtl),
        ])
    }

    /// The "same page in other languages" list: every language with its URL, the current one flagged.
    func alternates(_ current: Language, in languages: [Language], url: (Language) -> String) -> TemplateValue {
        .list(languages.map { language in
            .object([
                "code": .string(language.code), "hreflang": .string(language.code),
                "label": .string(language.label), "dir": .string(language.direction.rawValue),
                "href": .string(links.href(url(language))), "url": .string(links.absolute(url(language))),
                "current": .bool(language == current),
            ])
        })
    }

    func navigation(_ language: Language, current: Category?) -> TemplateValue {
        .list(config.categories.map { category in
            .object([
                "title": .string(category.title(in: language)),
                "href": .string(links.href(links.category(category, language))),
                "current": .bool(category == current),
            ])
        })
    }

    func time(_ timestamp: Timestamp, _ language: Language) -> TemplateValue {
        TemplateValue.object([
            "display": .string(dateTime(timestamp, language)),
            "day": .string(day(timestamp, language)),
            "iso": .string(clock.machineReadable(timestamp)),
        ])
    }

    /// `clock.dateTime`, formatted once per instant and language (a story's time is on its page, its cards and its
    /// feed entries). Only the text is kept: the value made of it is several times its size, and one per story and
    /// language alive at the end of a cold build was the largest thing it held.
    func dateTime(_ timestamp: Timestamp, _ language: Language) -> String {
        let key = DateValues.Key(seconds: timestamp.secondsSinceEpoch, offset: timestamp.offsetSeconds, language: language.code)
        if let text = dateValues.times.withLock({ $0[key] }) { return text }
        let text = clock.dateTime(timestamp, in: language)
        dateValues.times.withLock { $0[key] = text }
        return text
    }

    /// `clock.day`, formatted once per calendar day and language (stories of one day share it).
    func day(_ timestamp: Timestamp, _ language: Language) -> String {
        let (year, month, day) = clock.localDate(timestamp)
        let key = DateValues.DayKey(year: year, month: month, day: day, language: language.code)
        if let text = dateValues.days.withLock({ $0[key] }) { return text }
        let text = clock.day(timestamp, in: language)
        dateValues.days.withLock { $0[key] = text }
        return text
    }

    /// Text in the page language if the story has it, otherwise the default language's, with the
    /// language it is actually in (so the template can mark it with `lang`).
    func localized(_ text: LocalizedText, _ language: Language) -> (String, Language)? {
        if let value = text[code: language.code] { return (value, language) }
        for fallback in [config.defaultLanguage] + config.languages {
            if let value = text[code: fallback.code] { return (value, fallback) }
        }
        return nil
    }

    /// A story as it appears in lists: title, link, summary, date, breaking flag, category.
    func card(_ story: Story, _ language: Language) -> TemplateValue {
        let (title, titleLanguage) = localized(story.titles, language) ?? (story.id, language)
        var value: [String: TemplateValue] = [
            "id": .string(story.id),
            "title": .string(title),
            "href": .string(links.href(storyURL(story, language))),
            "published": time(story.published, language),
            "breaking": .bool(story.breaking),
            "category": .string(story.categories[0].title(in: language)),
            "category_href": .string(links.href(links.category(story.categories[0], language))),
        ]
        if titleLanguage != language { value["title_lang"] = .string(titleLanguage.code) }
        if let (summary, summaryLanguage) = localized(story.summaries, language) {
            value["summary"] = .string(summary)
            if summaryLanguage != language { value["summary_lang"] = .string(summaryLanguage.code) }
        }
        if let image = imageValue(story, language, lead: false) { value["image"] = image }
        return .object(value)
    }

    func base(_ language: Language, kind: String, title: String, description: String, relativeURL: String,
              alternateLanguages: [Language], url: @escaping (Language) -> String, current: Category? = nil) -> [String: TemplateValue] {
        let shared = shared[language.code]
        let feedCategory = kind == "category" ? current : nil
        var base: [String: TemplateValue] = [
            "site": shared?.site ?? site(language),
            "lang": shared?.lang ?? languageValue(language),
            "strings": shared?.strings ?? strings(language),
            "page": .object([
                "kind": .string(kind),
                "title": .string(title),
                "description": .string(description),
                "canonical_url": .string(links.absolute(relativeURL)),
                "href": .string(links.href(relativeURL)),
                "og_type": .string(kind == "story" ? "article" : "website"),
            ]),
            "alternates": alternates(language, in: alternateLanguages, url: url),
            "has_alternates": .bool(alternateLanguages.count > 1),
            "navigation": shared?.navigation[current?.slug ?? ""] ?? navigation(language, current: current),
            "feeds": shared?.feeds[feedCategory?.slug ?? ""] ?? feedLinksValue(language, category: feedCategory),
            "og_locale_alternates": .list(ogLocaleAlternates(language, in: alternateLanguages).map { .string($0) }),
        ]
        if alternateLanguages.contains(config.defaultLanguage) {
            base["x_default_url"] = .string(links.absolute(url(config.defaultLanguage)))
        }
        return base
    }

    /// `og:locale:alternate` values: the other languages' Open Graph locales, each once.
    func ogLocaleAlternates(_ language: Language, in languages: [Language]) -> [String] {
        var seen: Set<String> = [language.ogLocale]
        var result: [String] = []
        for other in languages where seen.insert(other.ogLocale).inserted { result.append(other.ogLocale) }
        return result
    }

    /// The values of a story's page in `language`. Everything it takes from the story comes from `story` and its
    /// `facts` (its URLs and languages), not from the build's list of stories: a story's pages are a task of the
    /// engine that reads that story alone (see `StoryPages`).
    func storyPage(_ story: Story, facts: StoryFacts, _ language: Language, options: MarkdownOptions) -> TemplateValue {
        let languages = Self.languages(facts.pageLanguages, config.languages)
        func storyURL(_ story: Story, _ language: Language) -> String {
            languagePlace(language).map { facts.urls[$0] } ?? links.story(story, language)
        }
        let bodyLanguage: Language
        if story.bodies[language.code] != nil {
            bodyLanguage = language
        } else {
            bodyLanguage = ([config.defaultLanguage] + config.languages).first { story.bodies[$0.code] != nil } ?? language
        }
        let body = story.bodies[bodyLanguage.code]?.text ?? []
        let rendered = Markdown.render(body, options: options)
        let (title, titleLanguage) = localized(story.titles, language) ?? (story.id, language)
        let summary = localized(story.summaries, language)
        let description = summary?.0 ?? Markdown.plainText(body, limit: 160)
        var value = base(language, kind: "story", title: title, description: description,
                         relativeURL: storyURL(story, language), alternateLanguages: languages,
                         url: { storyURL(story, $0) }, current: story.categories[0])
        var storyValue: [String: TemplateValue] = [
            "id": .string(story.id),
            "title": .string(title),
            "body": .utf8(withPhotos(rendered.utf8)),
            "published": time(story.published, language),
            "breaking": .bool(story.breaking),
            "authors": .list(story.authors.map { .string($0) }),
            "authors_text": .string(story.authors.joined(separator: ", ")),
            "categories": .list(story.categories.map { category in
                .object(["title": .string(category.title(in: language)),
                         "href": .string(links.href(links.category(category, language)))])
            }),
            "url": .string(links.absolute(storyURL(story, language))),
        ]
        if titleLanguage != language { storyValue["title_lang"] = .string(titleLanguage.code) }
        if let summary {
            storyValue["summary"] = .string(summary.0)
            if summary.1 != language { storyValue["summary_lang"] = .string(summary.1.code) }
        }
        if let updated = story.updated, updated != story.published { storyValue["updated"] = time(updated, language) }
        if let image = imageValue(story, language, lead: true) { storyValue["image"] = image }
        if let (correction, correctionLanguage) = localized(story.corrections, language) {
            storyValue["correction"] = .string(correction)
            if correctionLanguage != language { storyValue["correction_lang"] = .string(correctionLanguage.code) }
        }
        if bodyLanguage != language {
            storyValue["body_lang"] = .string(bodyLanguage.code)
            storyValue["body_dir"] = .string(bodyLanguage.direction.rawValue)
            let template = edition.theme.string("fallback_notice", language)
            let notice = template
                .replacingOccurrences(of: "{language}", with: languageNames[language.code]?[language.code] ?? language.label)
                .replacingOccurrences(of: "{original}", with: languageNames[language.code]?[bodyLanguage.code] ?? bodyLanguage.label)
            storyValue["fallback_notice"] = .string(notice)
        }
        storyValue["published_time"] = .string(story.published.rfc3339)
        storyValue["modified_time"] = .string(story.lastModified.rfc3339)
        storyValue["section"] = .string(story.categories[0].title(in: language))
        storyValue["twitter_card"] = .string(story.image == nil ? "summary" : "summary_large_image")
        storyValue["twitter_title"] = .string(Self.shorten(title, to: 70))
        storyValue["twitter_description"] = .string(Self.shorten(description, to: 200))
        value["story"] = .object(storyValue)
        value["structured_data"] = .string(newsArticle(story, language, url: storyURL(story, language),
                                                       bodyLanguage: bodyLanguage, title: title,
                                                       description: description).scriptText)
        return .object(value)
    }

    /// Text cut at a word boundary to at most `limit` characters, with "…" when cut (X card limits).
    static func shorten(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        var cut = String(text.prefix(limit - 1))
        if let space = cut.lastIndex(of: " "), cut.distance(from: cut.startIndex, to: space) > limit / 2 {
            cut = String(cut[..<space])
        }
        return cut + "…"
    }

    func listPage(kind: String, title: String, description: String, language: Language, relativeURL: String,
                  url: @escaping (Language) -> String, cards: [TemplateValue], category: Category?,
                  pager: (archivePage: Int?, newer: String?, older: String?)?,
                  alternateLanguages: [Language]? = nil) -> TemplateValue {
        var value = base(language, kind: kind, title: title, description: description, relativeURL: relativeURL,
                         alternateLanguages: alternateLanguages ?? config.languages, url: url, current: category)
        value["stories"] = .list(cards)
        value["has_stories"] = .bool(!cards.isEmpty)
        if let category {
            value["category"] = .object(["name": .string(category.name), "title": .string(category.title(in: language))])
        }
        // A category's pager: on an archive page its number and label, and links to newer and older stories (relative
        // URLs). Nothing in it depends on the number of archive pages, so a full archive page's bytes stay put.
        if let pager, pager.archivePage != nil || pager.newer != nil || pager.older != nil {
            var pagination: [String: TemplateValue] = [:]
            if let page = pager.archivePage {
                pagination["page"] = .number(Double(page))
                pagination["label"] = .string(edition.theme.string("archive_page", language)
                    .replacingOccurrences(of: "{page}", with: String(page)))
            }
            if let newer = pager.newer { pagination["previous_href"] = .string(links.href(newer)) }
            if let older = pager.older { pagination["next_href"] = .string(links.href(older)) }
            value["pagination"] = .object(pagination)
        }
        return .object(value)
    }
}

final class DateValues: Sendable {
    struct Key: Hashable, Sendable {
        var seconds: Double
        var offset: Int
        var language: String
    }

    let times = Mutex<[Key: String]>([:])

    struct DayKey: Hashable, Sendable {
        var year: Int
        var month: Int
        var day: Int
        var language: String
    }

    let days = Mutex<[DayKey: String]>([:])
}

/// What the build knows of a story besides the story itself: the hashes of its file and of its metadata, and what
/// the pages take from its metadata and the config (its URL in each language, the languages it has a page in, the
/// places of its categories). Made by the story's task of the engine (`StoryRules`), with the story, and kept in the
/// trace with it: a build takes them from there instead of working out 30,000 URLs at 10,000 stories.
struct StoryFacts: Sendable, Equatable {
    /// A hash of the story file's bytes (0 when the story was not loaded from a file): a page that reads the bodies
    /// again from the file checks it (`Edition.withBodies`), and the feeds' kept texts are keyed by it.
    var sourceHash: UInt64
    /// A hash of everything the story holds but its bodies' text and where they are in the file (0 when the story
    /// was not loaded from a file): what the sitemaps are made from (`StoryCodec.metadataHash`).
    var metadataHash: UInt64
    /// `links.story` in every configured language, in config order.
    var urls: [String]
    /// The file of its page in each of them (`Permalinks.file(for:)` of each URL).
    var files: [String]
    /// The languages it has a page in, one bit per language of the config (bit `i` for `config.languages[i]`).
    var pageLanguages: UInt64
    /// The languages it is written in (has a body in), the same way.
    var bodyLanguages: UInt64
    /// In `config.categories`, main category first.
    var categoryPlaces: [Int]

    /// `sourceHash`: the hash of the file's bytes the story was parsed from, nil when it was not.
    init(_ story: Story, config: SiteConfig, links: Permalinks, sourceHash: UInt64? = nil) {
        self.sourceHash = sourceHash ?? 0
        metadataHash = sourceHash == nil ? 0 : StoryCodec.metadataHash(story)
        urls = links.story(story, in: config.languages)
        files = urls.map(Permalinks.file(for:))
        pageLanguages = 0
        bodyLanguages = 0
        for (index, language) in config.languages.enumerated() {
            if config.hasPage(story, in: language) { pageLanguages |= 1 << UInt64(index) }
            if story.bodies[language.code] != nil { bodyLanguages |= 1 << UInt64(index) }
        }
        categoryPlaces = []
        for category in story.categories {
            if let index = config.categories.firstIndex(where: { $0.slug == category.slug }), !categoryPlaces.contains(index) {
                categoryPlaces.append(index)
            }
        }
    }

    /// Bytes for the trace, after the story's own (see `StoryRules.codec`).
    func write(_ writer: inout ByteWriter) {
        writer.u64(sourceHash)
        writer.u64(metadataHash)
        writer.strings(urls)   // the files follow from them
        writer.u64(pageLanguages)
        writer.u64(bodyLanguages)
        writer.int(categoryPlaces.count)
        for place in categoryPlaces { writer.int(place) }
    }

    static func read(_ reader: inout ByteReader) -> StoryFacts? {
        guard let sourceHash = reader.u64(), let metadataHash = reader.u64(),
              let urls = reader.strings(),
              let pageLanguages = reader.u64(), let bodyLanguages = reader.u64(), let count = reader.count() else { return nil }
        var categoryPlaces: [Int] = []
        categoryPlaces.reserveCapacity(count)
        for _ in 0..<count {
            guard let place = reader.int(), place >= 0 else { return nil }
            categoryPlaces.append(place)
        }
        return StoryFacts(sourceHash: sourceHash, metadataHash: metadataHash, urls: urls, files: urls.map(Permalinks.file(for:)),
                          pageLanguages: pageLanguages, bodyLanguages: bodyLanguages, categoryPlaces: categoryPlaces)
    }

    private init(sourceHash: UInt64, metadataHash: UInt64, urls: [String], files: [String], pageLanguages: UInt64,
                 bodyLanguages: UInt64, categoryPlaces: [Int]) {
        self.sourceHash = sourceHash
        self.metadataHash = metadataHash
        self.urls = urls
        self.files = files
        self.pageLanguages = pageLanguages
        self.bodyLanguages = bodyLanguages
        self.categoryPlaces = categoryPlaces
    }

    /// The facts of a build's stories, by place.
    struct Table: Sendable {
        let stories: [StoryFacts]
    }
}
