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

/// The XML sitemap (sitemaps.org 0.9 with `xhtml:link` alternates).
///
/// Everything fits in one file: `sitemap.xml` is a `urlset`. Past `maxURLs` URLs or `maxBytes` bytes it is a
/// `sitemapindex` naming one file per language (`sitemap-en.xml`), each split again (`sitemap-en-2.xml`, …)
/// when one language alone is past a limit.
public enum Sitemap {
    public static let namespace = "http://www.sitemaps.org/schemas/sitemap/0.9"
    public static let xhtmlNamespace = "http://www.w3.org/1999/xhtml"
    public static let indexFile = "sitemap.xml"

    public static func files(_ entries: [SitemapEntry], languages: [Language], links: Permalinks,
                             maxURLs: Int = SitemapSettings.protocolMaxURLs,
                             maxBytes: Int = SitemapSettings.protocolMaxBytes) -> [GeneratedFile] {
        // Every entry's `<url>` element, one after the other in one buffer (a sitemap of 10,000 stories in three
        // languages is about 20 MB: built as bytes, not as 30,000 Strings joined).
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
        func urlset(_ items: [Int]) -> [UInt8] {
            var file = header
            file.reserveCapacity(header.count + footer.count + items.reduce(0) { $0 + fragmentRange($1).count })
            buffer.withUnsafeBufferPointer { all in
                for item in items { file.append(contentsOf: UnsafeBufferPointer(rebasing: all[fragmentRange(item)])) }
            }
            file += footer
            return file
        }
        if entries.count <= maxURLs && header.count + buffer.count + footer.count <= maxBytes {
            var file = header
            file.reserveCapacity(header.count + buffer.count + footer.count)
            file += buffer
            file += footer
            return [GeneratedFile(path: indexFile, utf8: file)]
        }
        var files: [GeneratedFile] = []
        var index: [(loc: String, lastModified: Timestamp?)] = []
        for language in languages {
            let mine = entries.indices.filter { entries[$0].language == language }
            var chunks: [[Int]] = []
            var current: [Int] = []
            var size = header.count + footer.count
            for item in mine {
                let length = fragmentRange(item).count
                if !current.isEmpty && (current.count >= maxURLs || size + length > maxBytes) {
                    chunks.append(current)
                    current = []
                    size = header.count + footer.count
                }
                current.append(item)
                size += length
            }
            if !current.isEmpty { chunks.append(current) }
            for (number, chunk) in chunks.enumerated() {
                let path = "sitemap-\(language.pathSegment)" + (number == 0 ? "" : "-\(number + 1)") + ".xml"
                files.append(GeneratedFile(path: path, utf8: urlset(chunk)))
                index.append((links.absolute(path), chunk.compactMap { entries[$0].lastModified }.max()))
            }
        }
        var xml = XMLWriter()
        xml.open("sitemapindex", [("xmlns", namespace)])
        for (loc, lastModified) in index {
            xml.open("sitemap")
            xml.element("loc", text: loc)
            if let lastModified { xml.element("lastmod", text: lastModified.rfc3339) }
            xml.close()
        }
        return [GeneratedFile(path: indexFile, text: xml.finish())] + files
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
