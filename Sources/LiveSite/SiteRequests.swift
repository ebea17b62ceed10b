import HTTPServer
import News
import Site
#if canImport(Glibc)
import Glibc
#endif

/// What `serve` answers: the files of its output folder under `base_url`'s path, with the live script (and a
/// story's banners) added to each HTML page, the site's `404.html` for anything else, and its own pages under
/// `/_newsgen/`. Only `GET` and `HEAD`; a target that could lead out of the output folder is refused.
struct SiteRequests: Sendable {
    /// The folder the site is built into.
    let output: String
    let live: LiveReload
    /// The site as last built: base path and the notes of its story pages.
    let served: @Sendable () -> ServedSite
    /// The phone preview page, made when asked for.
    let pushPage: @Sendable () -> [UInt8]

    static let pushPath = "/_newsgen/push/"

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return Self.text(405, "only GET and HEAD are served\n", extra: [("Allow", "GET, HEAD")])
        }
        guard let path = Self.decodedPath(request.target) else {
            return Self.text(400, "bad request path\n")
        }
        let site = served()
        switch path {
        case LiveScript.eventsPath:
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream; charset=utf-8"),
                                                       ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no")],
                                body: .events(live.connect()))
        case LiveScript.path:
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/javascript; charset=utf-8"), ("Cache-Control", "no-store")],
                                body: .bytes(Array(LiveScript.source.utf8)))
        case Self.pushPath:
            return page(200, pushPage(), site: site, notes: nil)
        case "/_newsgen/push":
            return Self.redirect(Self.pushPath)
        default:
            break
        }
        guard path.hasPrefix(site.basePath) else {
            if path == "/" || path + "/" == site.basePath { return Self.redirect(site.basePath) }
            return notFound(site)
        }
        let relative = String(path.dropFirst(site.basePath.count))
        // Hidden names are the build's own (its lock, cache and staging folder): never served.
        if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { return notFound(site) }
        var file = output + "/" + relative
        if relative.isEmpty || relative.hasSuffix("/") {
            file += "index.html"
        } else if Self.isFolder(file) {
            return Self.redirect(path + "/")
        }
        guard let bytes = try? FileSystem.readInput(file) else { return notFound(site) }
        let type = Self.contentType(file)
        guard type.hasPrefix("text/html") else {
            return HTTPResponse(status: 200, headers: [("Content-Type", type), ("Cache-Control", "no-cache")], body: .bytes(bytes))
        }
        return page(200, bytes, site: site, notes: site.pages[path])
    }

    private func notFound(_ site: ServedSite) -> HTTPResponse {
        let bytes = (try? FileSystem.readInput(output + "/404.html")) ?? Array("<!DOCTYPE html><title>Not found</title><body><h1>Not found</h1></body>".utf8)
        return page(404, bytes, site: site, notes: nil)
    }

    /// An HTML page with what only `serve` shows: its banner and phone-preview link after `<body>`, the live script
    /// before `</body>`.
    private func page(_ status: Int, _ bytes: [UInt8], site: ServedSite, notes: PageNotes?) -> HTTPResponse {
        var html = bytes
        if let notes, let top = notes.html {
            html.insert(contentsOf: top.utf8, at: Self.afterBodyTag(html))
        }
        html.insert(contentsOf: LiveScript.tag(build: live.build).utf8, at: Self.closingBodyTag(html))
        return HTTPResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache")],
                            body: .bytes(html))
    }

    /// Where the first `<body …>` tag ends (the start when there is none).
    static func afterBodyTag(_ html: [UInt8]) -> Int {
        guard let start = html.firstIndex(ofBytes: Array("<body".utf8)),
              let end = html[start...].firstIndex(of: UInt8(ascii: ">")) else { return 0 }
        return end + 1
    }

    /// Where the last `</body>` starts (the end when there is none).
    static func closingBodyTag(_ html: [UInt8]) -> Int {
        let tag = Array("</body>".utf8)
        var found: Int?
        var from = 0
        while let at = html.firstIndex(ofBytes: tag, from: from) {
            found = at
            from = at + 1
        }
        return found ?? html.count
    }

    /// The request target percent-decoded, or nil when it is not a clean absolute path: a `.` or `..` segment
    /// (encoded or not), an encoded `/` or `\`, a NUL, a backslash, or bytes that are not UTF-8.
    static func decodedPath(_ target: String) -> String? {
        guard target.hasPrefix("/") else { return nil }
        var bytes: [UInt8] = []
        var input = Array(target.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard input.count >= 2, let high = hexValue(input.removeFirst()), let low = hexValue(input.removeFirst()) else { return nil }
            let decoded = high << 4 | low
            if decoded == UInt8(ascii: "/") { return nil }
            bytes.append(decoded)
        }
        if bytes.contains(0) || bytes.contains(UInt8(ascii: "\\")) { return nil }
        guard let path = String(validating: bytes, as: UTF8.self) else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if segments.contains(where: { $0 == "." || $0 == ".." }) { return nil }
        return path
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "json": "application/json", "xml": "application/xml", "rss": "application/rss+xml", "atom": "application/atom+xml",
        "txt": "text/plain; charset=utf-8", "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg",
        "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "avif": "image/avif", "ico": "image/x-icon",
        "woff": "font/woff", "woff2": "font/woff2", "pdf": "application/pdf", "webmanifest": "application/manifest+json",
    ]

    static func contentType(_ file: String) -> String {
        let name = file.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        return contentTypes[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    static func text(_ status: Int, _ body: String, extra: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + extra, body: .bytes(Array(body.utf8)))
    }

    static func redirect(_ location: String) -> HTTPResponse {
        HTTPResponse(status: 302, headers: [("Location", location), ("Content-Type", "text/plain; charset=utf-8")],
                     body: .bytes(Array("see \(location)\n".utf8)))
    }
}

/// The site as `serve` last built it, as the request handler needs it.
struct ServedSite: Sendable {
    /// `base_url`'s path (`/` or `/news/`).
    var basePath: String
    /// What `serve` adds to story pages, by served path (`/news/en/world/2026/11/29/quake/`).
    var pages: [String: PageNotes]
}

/// The banners of one story page: what `build` output never shows.
struct PageNotes: Sendable, Hashable {
    /// "Draft", "Scheduled for 29 November 2026, 14:05 CET".
    var banners: [String] = []
    /// The story is breaking: the page links to the phone preview (at the story's card).
    var pushStoryID: String?

    var html: String? {
        guard !banners.isEmpty || pushStoryID != nil else { return nil }
        var parts = banners.map { "<strong class=\"newsgen-banner-text\">\(XMLWriter.escapeText($0))</strong>" }
        if let id = pushStoryID {
            parts.append("<a href=\"\(SiteRequests.pushPath)#story-\(XMLWriter.escapeAttribute(id))\" style=\"color:inherit\">Phone preview</a>")
        }
        return "<div class=\"newsgen-banner\" style=\"position:sticky;top:0;z-index:2147483646;display:flex;gap:1.5rem;"
            + "padding:.6rem 1rem;background:#ffd54a;color:#111;font:600 15px/1.4 system-ui,sans-serif;border-bottom:2px solid #111\">"
            + parts.joined(separator: " ") + "</div>"
    }
}
