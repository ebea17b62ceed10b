import News
/// One page in the XML sitemap with the same page in its other languages.
public struct SitemapEntry: Sendable {
    public var language: Language
    /// Absolute URL.
    public var loc: String
    /// When the page's content last changed (from story dates, never the build time); nil when unknown.
    public var lastModified: Timestamp?
    /// Every language version including this one, plus `x-default`: (hreflang, absolute URL).
    public var alternates: [(hreflang: String, href: String)]

    public init(language: Language, loc: String, lastModified: Timestamp?, alternates: [(hreflang: String, href: String)]) {
        self.language = language
        self.loc = loc
        self.lastModified = lastModified
        self.alternates = alternates
    }
}

/// A file of the site written in full by a generator (sitemaps, robots.txt).
public struct GeneratedFile: Sendable, Hashable {
    /// Site-relative path (`sitemap.xml`).
    public var path: String
    /// The file's bytes (UTF-8 text).
    public var utf8: [UInt8]

    public var text: String { String(decoding: utf8, as: UTF8.self) }

    public init(path: String, text: String) {
        self.init(path: path, utf8: Array(text.utf8))
    }

    public init(path: String, utf8: [UInt8]) {
        self.path = path
        self.utf8 = utf8
    }
}

/// A sitemap file as `sitemap.xml` names it: its path and the newest `lastmod` of its URLs (nil when none has one).
public struct SitemapFile: Sendable, Hashable {
    public var path: String
    public var lastModified: Timestamp?

    public init(path: String, lastModified: Timestamp?) {
        self.path = path
        self.lastModified = lastModified
    }
}

/// The XML sitemap (sitemaps.org 0.9 with `xhtml:link` alternates).
///
/// `sitemap.xml` is always a `sitemapindex`. It names `sitemap-pages.xml` (front and category pages), then one
/// file per month of the story URLs' dates, newest month first (`sitemap-2026-11.xml`: the story pages of the
/// stories first published that month), so that a new story changes only its month's file, the pages file and
/// the index. A file past `maxURLs` URLs or `maxBytes` bytes is split again: `sitemap-2026-11-2.xml`, …
public enum Sitemap {
    public static let namespace = "http://www.sitemaps.org/schemas/sitemap/0.9"
    public static let xhtmlNamespace = "http://www.w3.org/1999/xhtml"
    public static let indexFile = "sitemap.xml"
    /// The name (without `.xml`) of the file of front and category pages.
    public static let pagesName = "sitemap-pages"

    /// The name (without `.xml`) of the file of the stories whose URL date is in `month` of `year`.
    public static func monthName(year: Int, month: Int) -> String {
        "sitemap-\(pad(year, 4))-\(pad(month))"
    }

    /// The `urlset` files of `entries`, in order: `name.xml`, and past a limit `name-2.xml`, `name-3.xml`, …, each
    /// with the newest `lastmod` of its entries. Always one file, empty when there is no entry.
    public static func urlsets(_ entries: [SitemapEntry], name: String,
                               maxURLs: Int = SitemapSettings.protocolMaxURLs,
                               maxBytes: Int = SitemapSettings.protocolMaxBytes) -> [(file: GeneratedFile, lastModified: Timestamp?)] {
        // Every entry's `<url>` element, one after the other in one buffer (a month of a big site is megabytes:
        // built as bytes, not as thousands of Strings joined).
        var buffer: [UInt8] = []
        buffer.reserveCapacity(entries.count * 600)
        var ends: [Int] = []
        ends.reserveCapacity(entries.count)
        for entry in entries {
            appendFragment(entry, to: &buffer)
            ends.append(buffer.count)
        }
        func fragmentRange(_ item: Int) -> Range<Int> { (item == 0 ? 0 : ends[item - 1])..<ends[item] }
        let header = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"\(namespace)\" xmlns:xhtml=\"\(xhtmlNamespace)\">\n".utf8)
        let footer = Array("</urlset>\n".utf8)
        // Consecutive runs of entries, each within both limits (an entry alone past `maxBytes` still gets a file).
        var chunks: [Range<Int>] = []
        var start = 0
        var size = header.count + footer.count
        for item in entries.indices {
            let length = fragmentRange(item).count
            if item > start && (item - start >= maxURLs || size + length > maxBytes) {
                chunks.append(start..<item)
                start = item
                size = header.count + footer.count
            }
            size += length
        }
        chunks.append(start..<entries.count)
        return chunks.enumerated().map { number, chunk in
            let bytes = chunk.isEmpty ? 0..<0 : fragmentRange(chunk.lowerBound).lowerBound..<fragmentRange(chunk.upperBound - 1).upperBound
            var file = header
            file.reserveCapacity(header.count + bytes.count + footer.count)
            file += buffer[bytes]
            file += footer
            let path = name + (number == 0 ? "" : "-\(number + 1)") + ".xml"
            return (GeneratedFile(path: path, utf8: file), entries[chunk].compactMap(\.lastModified).max())
        }
    }

    /// `sitemap.xml`: a `sitemapindex` naming `files` in their order, each with its `lastmod` when it has one.
    public static func index(_ files: [SitemapFile], links: Permalinks) -> GeneratedFile {
        var xml = XMLWriter()
        xml.open("sitemapindex", [("xmlns", namespace)])
        for file in files {
            xml.open("sitemap")
            xml.element("loc", text: links.absolute(file.path))
            if let lastModified = file.lastModified { xml.element("lastmod", text: lastModified.rfc3339) }
            xml.close()
        }
        return GeneratedFile(path: indexFile, text: xml.finish())
    }

    /// One `<url>` element, indented for its place inside `<urlset>`.
    /// Written directly rather than through `XMLWriter` (a sitemap has one per page, so this is the hot path of
    /// a rebuild); the escaping is `XMLWriter`'s and the bytes are what `XMLWriter(fragmentAtDepth: 1)` writes.
    public static func fragment(_ entry: SitemapEntry) -> String {
        var out: [UInt8] = []
        appendFragment(entry, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func appendFragment(_ entry: SitemapEntry, to out: inout [UInt8]) {
        func literal(_ text: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        literal("  <url>\n    <loc>")
        XMLWriter.appendEscaped(entry.loc, quote: false, to: &out)
        literal("</loc>\n")
        if let lastModified = entry.lastModified {
            literal("    <lastmod>")
            XMLWriter.appendEscaped(lastModified.rfc3339, quote: false, to: &out)
            literal("</lastmod>\n")
        }
        for alternate in entry.alternates {
            literal("    <xhtml:link rel=\"alternate\" hreflang=\"")
            XMLWriter.appendEscaped(alternate.hreflang, quote: true, to: &out)
            literal("\" href=\"")
            XMLWriter.appendEscaped(alternate.href, quote: true, to: &out)
            literal("\"/>\n")
        }
        literal("  </url>\n")
    }
}

/// One story page in the Google News sitemap.
public struct NewsSitemapEntry: Sendable, Hashable {
    public var loc: String
    /// `news:publication/news:name`: the publication's name in the page's language.
    public var publicationName: String
    /// `news:language` from the language table (`zh-cn` for zh-Hans).
    public var language: String
    /// First publication, never `updated`.
    public var published: Timestamp
    public var title: String

    public init(loc: String, publicationName: String, language: String, published: Timestamp, title: String) {
        self.loc = loc
        self.publicationName = publicationName
        self.language = language
        self.published = published
        self.title = title
    }
}

/// The Google News sitemap: story pages first published in the 48 hours before "now", newest first, at
/// most 1000 per file (`news-sitemap.xml`, then `news-sitemap-2.xml`, …). The first file is always written,
/// empty when no story is recent, so that robots.txt can name it.
public enum NewsSitemap {
    public static let namespace = "http://www.google.com/schemas/sitemap-news/0.9"
    public static let window: Double = 48 * 3600
    public static let maxPerFile = 1000
    public static let firstFile = "news-sitemap.xml"

    /// True when a story first published at `published` belongs in the sitemap built at `now`:
    /// `now - 48 h <= published <= now`.
    public static func isRecent(_ published: Timestamp, now: Timestamp) -> Bool {
        published.secondsSinceEpoch <= now.secondsSinceEpoch
            && published.secondsSinceEpoch >= now.secondsSinceEpoch - window
    }

    public static func files(_ entries: [NewsSitemapEntry], now: Timestamp, maxPerFile: Int = maxPerFile) -> [GeneratedFile] {
        let recent = entries.filter { isRecent($0.published, now: now) }
            .sorted { a, b in
                a.published.secondsSinceEpoch != b.published.secondsSinceEpoch
                    ? a.published.secondsSinceEpoch > b.published.secondsSinceEpoch : a.loc < b.loc
            }
        let size = max(1, maxPerFile)
        var files: [GeneratedFile] = []
        var start = 0
        repeat {
            let chunk = recent[start..<min(start + size, recent.count)]
            var xml = XMLWriter()
            xml.open("urlset", [("xmlns", Sitemap.namespace), ("xmlns:news", namespace)])
            for entry in chunk {
                xml.open("url")
                xml.element("loc", text: entry.loc)
                xml.open("news:news")
                xml.open("news:publication")
                xml.element("news:name", text: entry.publicationName)
                xml.element("news:language", text: entry.language)
                xml.close()
                xml.element("news:publication_date", text: entry.published.rfc3339)
                xml.element("news:title", text: entry.title)
                xml.close()
                xml.close()
            }
            let path = files.isEmpty ? firstFile : "news-sitemap-\(files.count + 1).xml"
            files.append(GeneratedFile(path: path, text: xml.finish()))
            start += size
        } while start < recent.count
        return files
    }
}

/// `robots.txt`: allows everything and names every sitemap file a crawler should start from.
public enum Robots {
    public static func file(sitemaps: [String], links: Permalinks) -> GeneratedFile {
        var text = "# Written by newsgen.\nUser-agent: *\nDisallow:\n\n"
        for path in sitemaps { text += "Sitemap: " + links.absolute(path) + "\n" }
        return GeneratedFile(path: "robots.txt", text: text)
    }
}
