import News
import Incremental
import Markdown
import Synchronization

/// Which stories a feed follows: a language's front page or one of its categories.
public enum FeedScope: Sendable, Hashable {
    case front
    case category(Category)
}

public enum FeedFormat: String, Sendable, CaseIterable {
    case rss, atom, json

    public var fileName: String {
        switch self {
        case .rss: return "feed.xml"
        case .atom: return "atom.xml"
        case .json: return "feed.json"
        }
    }

    public var mediaType: String {
        switch self {
        case .rss: return "application/rss+xml"
        case .atom: return "application/atom+xml"
        case .json: return "application/feed+json"
        }
    }
}

/// One feed in one language, ready to be written in any of the three formats.
public struct Feed: Sendable {
    public var title: String
    public var description: String
    public var language: Language
    /// The page the feed follows (absolute URL).
    public var homeURL: String
    /// The feed's own absolute URL in each format.
    public var urls: [FeedFormat: String]
    /// The newest `dateModified` of its entries; for an empty feed the site's newest change, and "now" only
    /// when the site shows no story at all (the formats require a date).
    public var updated: Timestamp
    /// Named as the feed's author (Atom requires one when an entry has none).
    public var publisherName: String
    public var entries: [FeedEntry]
}

public struct FeedEntry: Sendable {
    /// Stable `tag:` id (see `Permalinks.entryID`).
    public var id: String
    public var url: String
    public var title: String
    /// The summary, or the opening words of the body.
    public var summary: String
    /// The body as HTML when the site's feeds carry full content.
    public var contentHTML: String?
    public var published: Timestamp
    public var modified: Timestamp
    public var authors: [String]
    public var categories: [String]
    public var image: String?
    public var enclosure: FeedEnclosure?
}

/// Writes a `Feed` as RSS 2.0, Atom 1.0 (RFC 4287) or JSON Feed 1.1.
public enum FeedWriter {
    /// The feed file's bytes (what the build writes: no `String` is made of a feed of 50 whole stories).
    public static func bytes(_ feed: Feed, as format: FeedFormat) -> [UInt8] {
        switch format {
        case .rss:
            var xml = rssDocument(feed)
            return xml.finishBytes()
        case .atom:
            var xml = atomDocument(feed)
            return xml.finishBytes()
        case .json: return JSONWriter.bytes(json(feed))
        }
    }

    static func rssDocument(_ feed: Feed) -> XMLWriter {
        var xml = XMLWriter()
        xml.open("rss", [("version", "2.0"), ("xmlns:atom", "http://www.w3.org/2005/Atom"),
                         ("xmlns:content", "http://purl.org/rss/1.0/modules/content/"),
                         ("xmlns:dc", "http://purl.org/dc/elements/1.1/")])
        xml.open("channel")
        xml.element("title", htmlText: feed.title)
        xml.element("link", text: feed.homeURL)
        xml.element("description", htmlText: feed.description.isEmpty ? feed.title : feed.description)
        xml.element("language", text: feed.language.code)
        xml.element("lastBuildDate", text: feed.updated.rfc822)
        xml.element("generator", text: "newsgen")
        xml.element("atom:link", [("href", feed.urls[.rss] ?? ""), ("rel", "self"), ("type", FeedFormat.rss.mediaType)])
        for entry in feed.entries { rssItem(entry, into: &xml) }
        return xml
    }

    static func rssItem(_ entry: FeedEntry, into xml: inout XMLWriter) {
        xml.open("item")
        xml.element("title", htmlText: entry.title)
        xml.element("link", text: entry.url)
        xml.element("guid", [("isPermaLink", "false")], text: entry.id)
        xml.element("pubDate", text: entry.published.rfc822)
        for author in entry.authors { xml.element("dc:creator", text: author) }
        for category in entry.categories { xml.element("category", text: category) }
        xml.element("description", htmlText: entry.summary)
        if let html = entry.contentHTML { xml.element("content:encoded", text: html) }
        if let enclosure = entry.enclosure {
            xml.element("enclosure", [("url", enclosure.url), ("length", String(enclosure.length)), ("type", enclosure.type)])
        }
        xml.close()
    }

    static func atomDocument(_ feed: Feed) -> XMLWriter {
        var xml = XMLWriter()
        xml.open("feed", [("xmlns", "http://www.w3.org/2005/Atom"), ("xml:lang", feed.language.code)])
        xml.element("id", text: feed.urls[.atom] ?? feed.homeURL)
        xml.element("title", text: feed.title)
        if !feed.description.isEmpty { xml.element("subtitle", text: feed.description) }
        xml.element("updated", text: feed.updated.rfc3339)
        xml.element("link", [("rel", "self"), ("type", FeedFormat.atom.mediaType), ("href", feed.urls[.atom] ?? "")])
        xml.element("link", [("rel", "alternate"), ("type", "text/html"), ("href", feed.homeURL)])
        xml.open("author")
        xml.element("name", text: feed.publisherName)
        xml.close()
        xml.element("generator", text: "newsgen")
        for entry in feed.entries { atomEntry(entry, into: &xml) }
        return xml
    }

    static func atomEntry(_ entry: FeedEntry, into xml: inout XMLWriter) {
        xml.open("entry")
        xml.element("id", text: entry.id)
        xml.element("title", text: entry.title)
        xml.element("link", [("rel", "alternate"), ("type", "text/html"), ("href", entry.url)])
        if let enclosure = entry.enclosure {
            xml.element("link", [("rel", "enclosure"), ("type", enclosure.type), ("length", String(enclosure.length)),
                                 ("href", enclosure.url)])
        }
        xml.element("published", text: entry.published.rfc3339)
        xml.element("updated", text: entry.modified.rfc3339)
        for author in entry.authors {
            xml.open("author")
            xml.element("name", text: author)
            xml.close()
        }
        for category in entry.categories { xml.element("category", [("term", category)]) }
        xml.element("summary", [("type", "text")], text: entry.summary)
        if let html = entry.contentHTML { xml.element("content", [("type", "html")], text: html) }
        xml.close()
    }

    public static func json(_ feed: Feed) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("version", .string("https://jsonfeed.org/version/1.1")),
            ("title", .string(feed.title)),
            ("home_page_url", .string(feed.homeURL)),
            ("feed_url", .string(feed.urls[.json] ?? "")),
        ]
        if !feed.description.isEmpty { members.append(("description", .string(feed.description))) }
        members.append(("language", .string(feed.language.code)))
        members.append(("authors", .array([.object([("name", .string(feed.publisherName))])])))
        members.append(("items", .array(feed.entries.map(jsonItem))))
        return .object(members)
    }

    public static func jsonItem(_ entry: FeedEntry) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(entry.id)),
            ("url", .string(entry.url)),
            ("title", .string(entry.title)),
        ]
        if let html = entry.contentHTML {
            members.append(("content_html", .string(html)))
        } else {
            members.append(("content_text", .string(entry.summary)))
        }
        members.append(("summary", .string(entry.summary)))
        if let image = entry.image { members.append(("image", .string(image))) }
        members.append(("date_published", .string(entry.published.rfc3339)))
        members.append(("date_modified", .string(entry.modified.rfc3339)))
        if !entry.authors.isEmpty {
            members.append(("authors", .array(entry.authors.map { .object([("name", .string($0))]) })))
        }
        if !entry.categories.isEmpty { members.append(("tags", .array(entry.categories.map { .string($0) }))) }
        return .object(members)
    }
}

extension PageContext {
    /// Stories a feed in `language` carries (by their place in `stories`): those written in that language (a
    /// page that falls back to another language's body is not a story in this language), newest first, at most
    /// `feeds.items`.
    func feedStories(_ scope: FeedScope, _ language: Language) -> [Int] {
        var categoryPlace: Int?
        if case .category(let category) = scope {
            guard let place = config.categories.firstIndex(where: { $0.slug == category.slug }) else { return [] }
            categoryPlace = place
        }
        guard let languagePlace = languagePlace(language) else { return [] }
        let written: UInt64 = 1 << UInt64(languagePlace)
        return newest(config.feeds.items) { index in
            facts.stories[index].bodyLanguages & written != 0
                && (categoryPlace.map { facts.stories[index].categoryPlaces.contains($0) } ?? true)
        }
    }

    /// The stories the front page in `language` lists (by their place in `stories`), newest first.
    func frontStories(_ language: Language) -> [Int] {
        guard let languagePlace = languagePlace(language) else { return [] }
        return newest(config.frontPageSize) { hasPage(at: $0, languagePlace: languagePlace) }
    }

    /// The places of the first `limit` stories (newest first) that `include` accepts.
    private func newest(_ limit: Int, where include: (Int) -> Bool) -> [Int] {
        var chosen: [Int] = []
        guard limit > 0 else { return chosen }
        for index in stories.indices where include(index) {
            chosen.append(index)
            if chosen.count == limit { break }
        }
        return chosen
    }

    func feed(_ scope: FeedScope, _ language: Language, now: Timestamp,
              options: MarkdownOptions) throws(FileSystem.Failure) -> Feed {
        let siteTitle = config.title(in: language)
        let title: String, home: String
        switch scope {
        case .front:
            title = siteTitle
            home = links.front(language)
        case .category(let category):
            title = category.title(in: language) + " · " + siteTitle
            home = links.category(category, language)
        }
        var entries: [FeedEntry] = []
        for place in feedStories(scope, language) {
            entries.append(try feedEntries.entry(stories[place].id, language) { () throws(FileSystem.Failure) in
                try feedEntry(at: place, language, options: options)
            })
        }
        var urls: [FeedFormat: String] = [:]
        for format in FeedFormat.allCases { urls[format] = links.absolute(links.feed(scope, language, format)) }
        // An empty feed still needs a date: the site's newest change, so that rebuilds stay byte-identical.
        let updated = entries.map(\.modified).max() ?? stories.map(\.lastModified).max() ?? now
        return Feed(title: title,
                    description: config.description(in: language),
                    language: language, homeURL: links.absolute(home), urls: urls, updated: updated,
                    publisherName: config.publisherName(language), entries: entries)
    }

    /// A story's entry in its language's feeds. What comes from its body (the HTML, and the summary when the story
    /// has none) is taken from the last build when the story file is the same (`FeedEntries`); only otherwise is
    /// the body read and rendered.
    func feedEntry(at place: Int, _ language: Language, options: MarkdownOptions) throws(FileSystem.Failure) -> FeedEntry {
        let story = stories[place]
        let title = localized(story.titles, language)?.0 ?? story.id
        let sourceHash = facts.stories[place].sourceHash
        let text = try feedEntries.bodyText(of: story, sourceHash: sourceHash, language) { () throws(FileSystem.Failure) in
            let loaded = try edition.withBodies(story, sourceHash: sourceHash)
            let body = loaded.bodies[language.code]?.text ?? []
            var summary = localized(story.summaries, language)?.0 ?? Markdown.plainText(body, limit: 300)
            if summary.allSatisfy(\.isWhitespace) { summary = title }   // a body of only an image has no text
            var html: String?
            if config.feeds.content == .full {
                html = Markdown.render(body, options: options).html
                if let (correction, _) = localized(story.corrections, language) {
                    let label = edition.theme.string("correction", language)
                    html = "<p><strong>" + escapeHTML(label) + ":</strong> " + escapeHTML(correction) + "</p>\n" + (html ?? "")
                }
            }
            return FeedBodyText(summary: summary, html: html)
        }
        let (summary, html) = (text.summary, text.html)
        return FeedEntry(id: links.entryID(story, language),
                         url: links.absolute(storyURL(story, language)),
                         title: title,
                         summary: summary, contentHTML: html,
                         published: story.published, modified: story.lastModified,
                         authors: story.authors,
                         categories: story.categories.map { $0.title(in: language) },
                         image: imageURL(story), enclosure: enclosure(story))
    }

    func imageURL(_ story: Story) -> String? {
        story.image.map { $0.hasPrefix("/") ? links.absolute(String($0.dropFirst())) : $0 }
    }

    /// Discovery links (`<link rel="alternate" type="application/rss+xml">`) for a page: its category's
    /// feeds first when it is a category page, then its language's.
    func feedLinks(_ language: Language, category: Category?) -> [[String: String]] {
        var scopes: [(FeedScope, String)] = []
        let siteTitle = config.title(in: language)
        if let category { scopes.append((.category(category), category.title(in: language) + " · " + siteTitle)) }
        scopes.append((.front, siteTitle))
        var result: [[String: String]] = []
        for (scope, title) in scopes {
            for format in FeedFormat.allCases {
                let name: String
                switch format {
                case .rss: name = "RSS"
                case .atom: name = "Atom"
                case .json: name = "JSON Feed"
                }
                result.append(["type": format.mediaType, "title": title + " (" + name + ")",
                               "href": links.absolute(links.feed(scope, language, format))])
            }
        }
        return result
    }
}

func escapeHTML(_ text: String) -> String {
    var out = ""
    for character in text {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.append(character)
        }
    }
    return out
}

extension Timestamp {
    /// RFC 822 (as updated by RFC 1123, four-digit year) in the original offset, for RSS:
    /// `Sun, 29 Nov 2026 08:55:00 +0000`.
    public var rfc822: String {
        let local = Int(secondsSinceEpoch.rounded(.down)) + offsetSeconds
        let (y, m, d, hh, mm, ss) = Self.civil(local)
        var days = local / 86400
        if local % 86400 < 0 { days -= 1 }
        let weekday = ((days % 7) + 7 + 4) % 7   // 1970-01-01 was a Thursday
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let sign = offsetSeconds < 0 ? "-" : "+"
        let a = abs(offsetSeconds)
        return "\(names[weekday]), \(pad(d)) \(months[m - 1]) \(pad(y, 4)) \(pad(hh)):\(pad(mm)):\(pad(ss)) \(sign)\(pad(a / 3600))\(pad(a % 3600 / 60))"
    }
}

/// What a feed entry takes from its story's body: the summary (the story's own, or the body's first words) and
/// the body as HTML (with the correction note) when feeds carry full content.
struct FeedBodyText: Sendable, Equatable {
    var summary: String
    var html: String?
}

/// Feed entries made once per build and shared: a story is in its language's front-page feed and in each of
/// its categories' feeds, each written as RSS, Atom and JSON Feed, and every one of those needs the same
/// rendered body. Holds at most a few hundred entries (`feeds.items` per feed).
///
/// The body texts are also kept between builds, in `.newsgen/feed-entries` (`cache`): a feed lists the newest
/// stories in full, so without them any rebuild that changes a feed (a new story, an edit of a recent one) read
/// and rendered the bodies of every story in it again, about 150 for three languages. An entry is found by a
/// hash of everything its text is made from: the build's base fingerprint (binary, config, theme, base URL,
/// flags), the story's file (path and the hash of its bytes) and the language. Kept texts are decoded only when a
/// feed that shows them is rendered; the file holds the texts of the stories in this build's feeds and is written
/// only when they changed.
final class FeedEntries: Sendable {
    private let entries = Mutex<[String: FeedEntry]>([:])
    /// The kept file's bytes and where each entry's texts are in them; read on first use.
    private struct Kept: Sendable {
        var bytes: [UInt8] = []
        var places: [UInt64: Range<Int>] = [:]
    }
    private let kept = Mutex<Kept?>(nil)
    /// The texts made by this build (not found among the kept ones).
    private let made = Mutex<[UInt64: FeedBodyText]>([:])
    private let cache: (site: String, base: UInt64, read: Bool)?

    /// `cache`: the site whose `.newsgen/feed-entries` keeps the texts, the fingerprint everything else of a build
    /// is made from, and whether the kept texts may be read (not for `--clean`, which renders everything).
    init(cache: (site: String, base: UInt64, read: Bool)? = nil) {
        self.cache = cache
    }

    static let magic: UInt64 = 0x4E47_4645_4544_5332   // "NGFEEDS2"

    static func path(site: String) -> String { site + "/" + BuildCache.storyCacheFolder + "/feed-entries" }

    /// The key of `story`'s texts in `language` (nil without a cache, or for a story whose bytes are unknown).
    func key(_ story: Story, sourceHash: UInt64, _ language: Language) -> UInt64? {
        guard let cache, sourceHash != 0 else { return nil }
        var digest = ContentHasher()
        digest.combine(cache.base)
        digest.combine(story.sourcePath)
        digest.combine(sourceHash)
        digest.combine(language.code)
        return digest.value
    }

    private func withKept<T>(_ body: (Kept) -> T) -> T {
        kept.withLock { (kept: inout Kept?) -> T in
            if kept == nil { kept = cache.map { $0.read ? Self.load(site: $0.site) : Kept() } ?? Kept() }
            return body(kept!)
        }
    }

    /// The text of `story`'s entry in `language`: kept from the last build, or made now.
    func bodyText(of story: Story, sourceHash: UInt64, _ language: Language,
                  make: () throws(FileSystem.Failure) -> FeedBodyText) throws(FileSystem.Failure) -> FeedBodyText {
        guard let key = key(story, sourceHash: sourceHash, language) else { return try make() }
        if let found = withKept({ kept in kept.places[key].flatMap { Self.decode(kept.bytes, $0) } }) { return found }
        let text = try make()
        made.withLock { $0[key] = text }
        return text
    }

    /// Writes the texts of `wanted` (the stories in this build's feeds: kept ones copied as they were, new ones
    /// encoded), unless they are exactly the kept ones; on another thread, which `lock` waits for.
    func save(wanted: [UInt64], lock: BuildLock) {
        // No feed rendered: every feed is as the last build left it, and so are the stories in them.
        guard let cache, kept.withLock({ $0 != nil }) else { return }
        let made = made.withLock { $0 }
        let kept = withKept { $0 }
        let keys = Array(Set(wanted)).sorted()
        if made.isEmpty && keys.count == kept.places.count && keys.allSatisfy({ kept.places[$0] != nil }) { return }
        let path = Self.path(site: cache.site)
        lock.writeInBackground { BuildCache.save(Self.encode(keys, made: made, kept: kept), to: path) }
    }

    private static func encode(_ keys: [UInt64], made: [UInt64: FeedBodyText], kept: Kept) -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(kept.bytes.count + made.values.reduce(64) { $0 + $1.summary.utf8.count + ($1.html?.utf8.count ?? 0) + 40 })
        writer.u64(magic)
        writer.u64(BuildCache.executableIdentity)
        let present = keys.filter { made[$0] != nil || kept.places[$0] != nil }
        writer.int(present.count)
        for key in present {
            writer.u64(key)
            if let text = made[key] {
                writer.string(text.summary)
                writer.optionalString(text.html)
            } else if let range = kept.places[key] {
                writer.bytes += kept.bytes[range]
            }
        }
        return writer.bytes
    }

    /// The texts as `encode` wrote them, for a test.
    static func encode(_ texts: [UInt64: FeedBodyText]) -> [UInt8] {
        encode(texts.keys.sorted(), made: texts, kept: Kept())
    }

    private static func decode(_ bytes: [UInt8], _ range: Range<Int>) -> FeedBodyText? {
        var reader = ByteReader(bytes, range: range)
        guard let summary = reader.string(), let html = reader.optionalString() else { return nil }
        return FeedBodyText(summary: summary, html: html)
    }

    /// Where the kept texts are, or none when the file is missing, damaged or from another binary. Only lengths are
    /// read here; the texts are decoded when used.
    private static func load(site: String) -> Kept {
        guard let bytes = BuildCache.read(path(site: site)) else { return Kept() }
        var reader = ByteReader(bytes)
        guard reader.u64() == magic, reader.u64() == BuildCache.executableIdentity, let count = reader.count() else { return Kept() }
        var places: [UInt64: Range<Int>] = [:]
        places.reserveCapacity(count)
        for _ in 0..<count {
            guard let key = reader.u64() else { return Kept() }
            let start = reader.offset
            guard let summaryLength = reader.count() else { return Kept() }
            reader.offset += summaryLength
            guard let hasHTML = reader.bool() else { return Kept() }
            if hasHTML {
                guard let htmlLength = reader.count() else { return Kept() }
                reader.offset += htmlLength
            }
            guard reader.offset <= bytes.count else { return Kept() }
            places[key] = start..<reader.offset
        }
        return reader.atEnd ? Kept(bytes: bytes, places: places) : Kept()
    }

    /// Every kept text, decoded (for a test).
    static func loadAll(site: String) -> [UInt64: FeedBodyText] {
        let kept = load(site: site)
        return kept.places.compactMapValues { decode(kept.bytes, $0) }
    }

    func entry(_ storyID: String, _ language: Language,
               make: () throws(FileSystem.Failure) -> FeedEntry) throws(FileSystem.Failure) -> FeedEntry {
        let key = storyID + "\u{0}" + language.code
        if let entry = entries.withLock({ $0[key] }) { return entry }
        let entry = try make()   // outside the lock: two workers may both make it, with the same result
        entries.withLock { $0[key] = entry }
        return entry
    }
}
