import YAML

/// A news category: the hub tag (`name`), its URL segment and its display name per language.
public struct Category: Sendable, Hashable {
    public var name: String
    public var slug: String
    public var titles: LocalizedText

    package init(name: String, slug: String, titles: LocalizedText) {
        self.name = name
        self.slug = slug
        self.titles = titles
    }

    public func title(in language: Language) -> String { titles[code: language.code] ?? name }
}

/// What a language page shows for a story that has no body in that language.
public enum MissingLanguagePolicy: String, Sendable, CaseIterable {
    /// The page exists and shows the default-language body, marked with its `lang`, under a notice.
    case fallback
    /// No page in that language; the story is left out of that language's lists.
    case skip
}

/// At most `alerts` alerts in any rolling `window`, counted over all sends or per tag (`push.budget`).
public struct AlertBudget: Sendable, Hashable {
    public var alerts: Int
    public var window: Double = 3600
    /// Count each tag's sends on their own: a phone following World is spared a fifth World alert while a
    /// Sports alert still goes out.
    public var perTag = false

    public init(alerts: Int, window: Double = 3600, perTag: Bool = false) {
        self.alerts = alerts
        self.window = window
        self.perTag = perTag
    }
}

/// Settings for `newsgen publish` (the `push:` section of newsgen.yml).
public struct PushSettings: Sendable, Hashable {
    public enum MissingText: String, Sendable, CaseIterable { case fill, fail }
    /// Hub name; `NEWSGEN_HUB_NAME` overrides it.
    public var hub: String?
    /// Hub property per language is `<prefix><language name>`, e.g. `News_French`.
    public var propertyPrefix = "News_"
    /// Breaking stories older than this are never announced (a lost ledger must not flood phones).
    public var maxAge: Double = 6 * 3600
    public var missingText: MissingText = .fill
    public var attempts = 4
    public var connectTimeout: Double = 10
    public var timeout: Double = 30
    public var concurrency = 8
    /// How long `--check-live` waits for a story URL to answer 200.
    public var liveWait: Double = 300
    /// How long an alert stays deliverable after it is sent (a phone that was off longer never shows it).
    public var expires: Double = 3 * 3600
    public enum Priority: String, Sendable, CaseIterable { case high, normal }
    /// `high` wakes the phone at once (APNs 10, FCM HIGH); `normal` lets the platform save battery.
    public var priority: Priority = .high
    /// None: no limit.
    public var budget: AlertBudget?
    /// The newsroom's own phones (`publish --test` sends there; empty means `--to` must be given).
    public var testTags: [String] = []
}

/// Feeds (the `feeds:` section of newsgen.yml).
public struct FeedSettings: Sendable, Hashable {
    public enum Content: String, Sendable, CaseIterable {
        /// The whole story body as HTML.
        case full
        /// Only the summary (or the first words of the body).
        case summary
    }
    /// How many stories each feed holds, newest first.
    public var items = 50
    public var content: Content = .full
}

/// Who publishes the site: named in JSON-LD `publisher` and in the Google News sitemap (the `publisher:`
/// section of newsgen.yml).
public struct PublisherSettings: Sendable, Hashable {
    /// Per language; the site title where not given. Google News wants the name exactly as registered.
    public var name = LocalizedText()
    /// A site path (`/static/logo.png`) or an http(s) URL.
    public var logo: String?
}

/// Sitemaps (the `sitemaps:` section of newsgen.yml).
public struct SitemapSettings: Sendable, Hashable {
    /// The protocol allows 50,000 URLs and 50 MB per file; past either, a sitemap file is split in several.
    public static let protocolMaxURLs = 50_000
    public static let protocolMaxBytes = 50 * 1024 * 1024
    public var maxURLs = protocolMaxURLs
}

public struct SiteConfig: Sendable, Hashable {
    public var title: LocalizedText
    public var description: LocalizedText
    /// Always ends with "/".
    public var baseURL: String
    /// IANA time zone for dates shown to readers and for the date in story URLs.
    public var timeZone: String
    /// The first one is the default language.
    public var languages: [Language]
    public var categories: [Category]
    public var missingLanguage: MissingLanguagePolicy
    public var allowRawHTML: Bool
    public var pageSize: Int
    public var frontPageSize: Int
    public var push: PushSettings
    public var feeds = FeedSettings()
    public var publisher = PublisherSettings()
    public var sitemaps = SitemapSettings()
    public var media = MediaSettings()

    /// The site's title in `language`, else in the default language (what pages, feeds and phones name it).
    public func title(in language: Language) -> String { title[code: language.code] ?? title[code: defaultLanguage.code] ?? "" }
    /// The site's description in `language`, else in the default language.
    public func description(in language: Language) -> String {
        description[code: language.code] ?? description[code: defaultLanguage.code] ?? ""
    }

    /// Whether `story` has a page in `language`: it has a body there, or missing languages fall back.
    public func hasPage(_ story: Story, in language: Language) -> Bool {
        missingLanguage == .fallback || story.bodies[language.code] != nil
    }
    /// The languages in which `story` has a page, in config order.
    public func pageLanguages(of story: Story) -> [Language] { languages.filter { hasPage(story, in: $0) } }

    /// The publisher's name in a language: `publisher.name`, else the site title.
    public func publisherName(_ language: Language) -> String {
        publisher.name[code: language.code] ?? publisher.name[code: defaultLanguage.code] ?? title(in: language)
    }

    public var defaultLanguage: Language { languages[0] }

    public func language(code: String) -> Language? {
        languages.first { $0.code.lowercased() == code.lowercased() }
    }

    public func category(named name: String) -> Category? {
        categories.first { $0.name == name }
    }

    package static let keys = ["title", "description", "base_url", "timezone", "languages", "categories",
                       "missing_language", "raw_html", "page_size", "front_page_size", "push",
                       "feeds", "publisher", "sitemaps", "media"]

    /// Parses and validates newsgen.yml. Returns nil when there were errors (all of them are in `diagnostics`).
    package static func parse(_ text: String, path: String, diagnostics: inout [Diagnostic]) -> SiteConfig? {
        var fields = Fields(path: path)
        defer { diagnostics += fields.sink.diagnostics }
        let root: YAMLNode
        do {
            guard let node = try YAMLDocument.parse(text) else {
                fields.sink.error("the config is empty; it needs at least title, base_url, languages and categories")
                return nil
            }
            root = node
        } catch {
            fields.sink.error(error.message, at: error.location)
            return nil
        }
        let map = fields.mapping(root, known: keys, what: "newsgen.yml")
        for required in ["title", "base_url", "languages", "categories"] where map[required] == nil {
            fields.sink.error("missing required key \"\(required)\"", at: root.location)
        }

        // Languages first: every localized value is checked against them.
        let languages = map["languages"].map { parseLanguages($0, fields: &fields) } ?? []

        let categories = map["categories"].map { parseCategories($0, languages: languages, fields: &fields) } ?? []

        let title = map["title"].map { fields.localized($0, "title", languages: languages) } ?? LocalizedText()
        if let node = map["title"], let first = languages.first, title[code: first.code] == nil, fields.sink.isEmpty {
            fields.sink.error("title needs a value for the default language \(first.code)", at: node.location)
        }
        let description = map["description"].map { fields.localized($0, "description", languages: languages) } ?? LocalizedText()

        var baseURL = "https://example.com/"
        if let node = map["base_url"], let text = fields.string(node, "base_url") {
            if let problem = baseURLProblem(text) { fields.sink.error(problem, at: node.location) } else {
                baseURL = text.hasSuffix("/") ? text : text + "/"
            }
        }
        var timeZone = "UTC"
        if let node = map["timezone"], let text = fields.string(node, "timezone") {
            if ReaderClock.isKnownTimeZone(text) { timeZone = text } else {
                fields.sink.error("unknown time zone \"\(text)\" (use an IANA name such as UTC, Europe/Paris or Asia/Shanghai)", at: node.location)
            }
        }
        var missing = MissingLanguagePolicy.fallback
        if let node = map["missing_language"], let text = fields.string(node, "missing_language") {
            if let policy = MissingLanguagePolicy(rawValue: text) { missing = policy } else {
                fields.sink.error("missing_language must be fallback or skip, found \"\(text)\"", at: node.location)
            }
        }
        let rawHTML = map["raw_html"].flatMap { fields.bool($0, "raw_html") } ?? false
        let pageSize = map["page_size"].flatMap { fields.positiveInt($0, "page_size", max: 1000) } ?? 20
        let frontPageSize = map["front_page_size"].flatMap { fields.positiveInt($0, "front_page_size", max: 1000) } ?? 30
        let push = map["push"].map { parsePush($0, fields: &fields) } ?? PushSettings()

        let feeds = map["feeds"].map { FeedSettings.parse($0, fields: &fields) } ?? FeedSettings()
        let publisher = map["publisher"].map { PublisherSettings.parse($0, languages: languages, fields: &fields) } ?? PublisherSettings()
        let sitemaps = map["sitemaps"].map { SitemapSettings.parse($0, fields: &fields) } ?? SitemapSettings()

        let media = map["media"].map { MediaSettings.parse($0, fields: &fields) } ?? MediaSettings()

        guard fields.sink.isEmpty, !languages.isEmpty, !categories.isEmpty else { return nil }
        return SiteConfig(title: title, description: description, baseURL: baseURL, timeZone: timeZone,
                          languages: languages, categories: categories, missingLanguage: missing,
                          allowRawHTML: rawHTML, pageSize: pageSize, frontPageSize: frontPageSize, push: push,
                          feeds: feeds, publisher: publisher, sitemaps: sitemaps, media: media)
    }

    /// The `languages:` list; the first is the default language.
    private static func parseLanguages(_ node: YAMLNode, fields: inout Fields) -> [Language] {
        var languages: [Language] = []
        if let items = node.sequence, !items.isEmpty {
            for item in items {
                let entry = fields.mapping(item, known: ["code", "name", "label", "path", "dir", "og_locale", "news_language"],
                                           what: "a language")
                guard let codeNode = entry["code"], let code = fields.string(codeNode, "code") else {
                    if entry["code"] == nil { fields.sink.error("a language needs a code, e.g. code: fr", at: item.location) }
                    continue
                }
                guard Language.isWellFormedTag(code) else {
                    fields.sink.error("\"\(code)\" is not a BCP 47 language tag (e.g. en, fr, zh-Hans, pt-BR)", at: codeNode.location)
                    continue
                }
                if languages.contains(where: { $0.code.lowercased() == code.lowercased() }) {
                    fields.sink.error("language \"\(code)\" is listed twice", at: codeNode.location)
                    continue
                }
                guard let nameNode = entry["name"], let name = fields.string(nameNode, "name") else {
                    if entry["name"] == nil {
                        fields.sink.error("language \"\(code)\" needs a name (e.g. name: French; it names the push property News_French)",
                                          at: item.location)
                    }
                    continue
                }
                if !name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) {
                    fields.sink.error("language name \"\(name)\" may only use ASCII letters, digits and _ (it becomes the push property News_\(name))",
                                      at: nameNode.location)
                }
                var direction: Language.Direction?
                if let dirNode = entry["dir"], let text = fields.string(dirNode, "dir") {
                    direction = Language.Direction(rawValue: text)
                    if direction == nil { fields.sink.error("dir must be ltr or rtl, found \"\(text)\"", at: dirNode.location) }
                }
                var pathSegment: String?
                if let pathNode = entry["path"], let text = fields.string(pathNode, "path") {
                    if isSafeSegment(text) { pathSegment = text } else {
                        fields.sink.error("path \"\(text)\" must be one URL segment of lowercase letters, digits and -", at: pathNode.location)
                    }
                }
                languages.append(Language(
                    code: code, name: name,
                    label: entry["label"].flatMap { fields.string($0, "label") },
                    pathSegment: pathSegment, direction: direction,
                    ogLocale: entry["og_locale"].flatMap { fields.string($0, "og_locale") },
                    newsLanguage: entry["news_language"].flatMap { fields.string($0, "news_language") }))
            }
            var seenPaths: [String: String] = [:]
            for language in languages {
                if let other = seenPaths[language.pathSegment] {
                    fields.sink.error("languages \(other) and \(language.code) would share the URL folder /\(language.pathSegment)/", at: node.location)
                }
                seenPaths[language.pathSegment] = language.code
            }
        } else {
            fields.sink.error("languages must be a non-empty list; the first one is the default language", at: node.location)
        }
        return languages
    }

    /// The `categories:` list, each with its URL segment and its title per language.
    private static func parseCategories(_ node: YAMLNode, languages: [Language], fields: inout Fields) -> [Category] {
        var categories: [Category] = []
        if let items = node.sequence, !items.isEmpty {
            for item in items {
                let entry = fields.mapping(item, known: ["name", "title", "slug"], what: "a category")
                guard let nameNode = entry["name"], let name = fields.string(nameNode, "name") else {
                    if entry["name"] == nil { fields.sink.error("a category needs a name, e.g. name: World", at: item.location) }
                    continue
                }
                if categories.contains(where: { $0.name == name }) {
                    fields.sink.error("category \"\(name)\" is listed twice", at: nameNode.location)
                }
                var slug = slugify(name)
                if let slugNode = entry["slug"], let text = fields.string(slugNode, "slug") {
                    if isSafeSegment(text) { slug = text } else {
                        fields.sink.error("slug \"\(text)\" must be one URL segment of lowercase letters, digits and -", at: slugNode.location)
                    }
                }
                if ["page", "static"].contains(slug) || (slug.count == 4 && slug.allSatisfy(\.isNumber)) {
                    fields.sink.error("category URL segment \"\(slug)\" is reserved; give the category another slug", at: nameNode.location)
                }
                if let other = categories.first(where: { $0.slug == slug }) {
                    fields.sink.error("categories \(other.name) and \(name) would share the URL segment \"\(slug)\"", at: nameNode.location)
                }
                let titles = entry["title"].map { fields.localized($0, "title", languages: languages) } ?? LocalizedText()
                categories.append(Category(name: name, slug: slug, titles: titles))
            }
        } else {
            fields.sink.error("categories must be a non-empty list", at: node.location)
        }
        return categories
    }

    private static func parsePush(_ node: YAMLNode, fields: inout Fields) -> PushSettings {
        var push = PushSettings()
        let map = fields.mapping(node, known: ["hub", "property_prefix", "max_age", "missing_text", "attempts",
                                               "connect_timeout", "timeout", "concurrency", "live_wait", "test_tags",
                                               "expires", "priority", "budget"],
                                    what: "push")
        if let n = map["hub"] { push.hub = fields.string(n, "push.hub") }
        if let n = map["property_prefix"], let text = fields.string(n, "push.property_prefix") {
            if text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) { push.propertyPrefix = text } else {
                fields.sink.error("push.property_prefix may only use ASCII letters, digits and _", at: n.location)
            }
        }
        if let n = map["max_age"], let v = fields.duration(n, "push.max_age") { push.maxAge = v }
        if let n = map["missing_text"], let text = fields.string(n, "push.missing_text") {
            if let v = PushSettings.MissingText(rawValue: text) { push.missingText = v } else {
                fields.sink.error("push.missing_text must be fill or fail, found \"\(text)\"", at: n.location)
            }
        }
        if let n = map["attempts"], let v = fields.positiveInt(n, "push.attempts", max: 20) { push.attempts = v }
        if let n = map["connect_timeout"], let v = fields.duration(n, "push.connect_timeout") { push.connectTimeout = v }
        if let n = map["timeout"], let v = fields.duration(n, "push.timeout") { push.timeout = v }
        if let n = map["concurrency"], let v = fields.positiveInt(n, "push.concurrency", max: 64) { push.concurrency = v }
        if let n = map["live_wait"], let v = fields.duration(n, "push.live_wait") { push.liveWait = v }
        if let n = map["expires"], let v = fields.duration(n, "push.expires") { push.expires = v }
        if let n = map["priority"], let text = fields.string(n, "push.priority") {
            if let v = PushSettings.Priority(rawValue: text) { push.priority = v } else {
                fields.sink.error(Suggestion.unknown("push.priority", text, known: PushSettings.Priority.allCases.map(\.rawValue)),
                                  at: n.location)
            }
        }
        if let n = map["budget"] {
            let budget = fields.mapping(n, known: ["alerts", "window", "per"], what: "push.budget")
            if let alertsNode = budget["alerts"] {
                if let alerts = fields.positiveInt(alertsNode, "push.budget.alerts", max: 1000) {
                    push.budget = AlertBudget(alerts: alerts)
                }
            } else if n.mapping != nil {
                fields.sink.error("push.budget needs alerts, e.g. budget: { alerts: 4, window: 1h }", at: n.location)
            }
            if let windowNode = budget["window"], let window = fields.duration(windowNode, "push.budget.window") {
                if window > 0 { push.budget?.window = window } else {
                    fields.sink.error("push.budget.window must be longer than 0s", at: windowNode.location)
                }
            }
            if let perNode = budget["per"], let per = fields.string(perNode, "push.budget.per") {
                if per == "tag" || per == "overall" { push.budget?.perTag = per == "tag" } else {
                    fields.sink.error(Suggestion.unknown("push.budget.per", per, known: ["overall", "tag"]), at: perNode.location)
                }
            }
        }
        if let n = map["test_tags"] {
            // Whether each is a valid tag is the hub's rule (PushCheck).
            for (tag, _) in fields.stringList(n, "push.test_tags") where !push.testTags.contains(tag) {
                push.testTags.append(tag)
            }
        }
        return push
    }

    package static func baseURLProblem(_ text: String) -> String? {
        let lower = text.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            return "base_url must be an absolute http(s) URL such as https://news.example.com/, found \"\(text)\""
        }
        let rest = text.drop(while: { $0 != "/" }).dropFirst(2)
        guard let host = rest.split(separator: "/", omittingEmptySubsequences: false).first, !host.isEmpty else {
            return "base_url has no host: \"\(text)\""
        }
        if text.contains("?") || text.contains("#") || text.contains(" ") {
            return "base_url must not contain a query, fragment or spaces: \"\(text)\""
        }
        return nil
    }

    static func isSafeSegment(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 100 && text.first != "-"
            && text.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }
    }

    static func slugify(_ name: String) -> String {
        var slug = ""
        for character in name.lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber) { slug.append(character) }
            else if !slug.isEmpty && slug.last != "-" { slug.append("-") }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return slug.isEmpty ? "category" : slug
    }
}

extension FeedSettings {
    /// The `feeds:` section of newsgen.yml.
    static func parse(_ node: YAMLNode, fields: inout Fields) -> FeedSettings {
        var feeds = FeedSettings()
        let entry = fields.mapping(node, known: ["items", "content"], what: "feeds")
        if let n = entry["items"], let v = fields.positiveInt(n, "feeds.items", max: 1000) { feeds.items = v }
        if let n = entry["content"], let text = fields.string(n, "feeds.content") {
            if let v = FeedSettings.Content(rawValue: text) { feeds.content = v } else {
                fields.sink.error("feeds.content must be full or summary, found \"\(text)\"", at: n.location)
            }
        }
        return feeds
    }
}

extension PublisherSettings {
    /// The `publisher:` section of newsgen.yml.
    static func parse(_ node: YAMLNode, languages: [Language], fields: inout Fields) -> PublisherSettings {
        var publisher = PublisherSettings()
        let entry = fields.mapping(node, known: ["name", "logo"], what: "publisher")
        if let n = entry["name"] { publisher.name = fields.localized(n, "publisher.name", languages: languages) }
        if let n = entry["logo"], let text = fields.string(n, "publisher.logo") {
            let lower = text.lowercased()
            if (text.hasPrefix("/") && !text.hasPrefix("//")) || lower.hasPrefix("https://") || lower.hasPrefix("http://") {
                publisher.logo = text
            } else {
                fields.sink.error("publisher.logo must be a site path starting with / or an http(s) URL, found \"\(text)\"", at: n.location)
            }
        }
        return publisher
    }
}

extension SitemapSettings {
    /// The `sitemaps:` section of newsgen.yml.
    static func parse(_ node: YAMLNode, fields: inout Fields) -> SitemapSettings {
        var sitemaps = SitemapSettings()
        let entry = fields.mapping(node, known: ["max_urls"], what: "sitemaps")
        if let n = entry["max_urls"], let v = fields.positiveInt(n, "sitemaps.max_urls", max: SitemapSettings.protocolMaxURLs) {
            sitemaps.maxURLs = v
        }
        return sitemaps
    }
}
