import YAML

/// The `media:` section of newsgen.yml: how photos are published.
public struct MediaSettings: Sendable, Hashable {
    /// The widths of a photo's responsive variants; a photo narrower than one gets none at that width (never
    /// enlarged), and one narrower than all of them one at its own width.
    public var widths: [Int] = [400, 800, 1200, 1600]
    /// A photo of more pixels than this is refused before it is decoded (decompression bombs).
    public var maxPixels = 40_000_000
    /// JPEG and WebP quality.
    public var quality = 80
    /// What a story whose image mapping lacks the alt text of a language it has a page in gets: an error, or the
    /// story's title in that language as the alt text.
    public var missingAlt = MissingAlt.error

    public enum MissingAlt: String, Sendable, Hashable, CaseIterable {
        case error, title
    }

    public init() {}

    package static func parse(_ node: YAMLNode, fields: inout Fields) -> MediaSettings {
        var media = MediaSettings()
        let map = fields.mapping(node, known: ["widths", "max_pixels", "quality", "missing_alt"], what: "media")
        if let n = map["widths"] {
            if let items = n.sequence, !items.isEmpty {
                var widths: [Int] = []
                for item in items {
                    if let width = fields.positiveInt(item, "media.widths", max: 8000), !widths.contains(width) { widths.append(width) }
                }
                media.widths = widths.sorted()
            } else {
                fields.sink.error("media.widths must be a non-empty list of widths in pixels, e.g. [400, 800, 1200]", at: n.location)
            }
        }
        if let n = map["max_pixels"], let v = fields.positiveInt(n, "media.max_pixels", max: 1_000_000_000) { media.maxPixels = v }
        if let n = map["quality"], let v = fields.positiveInt(n, "media.quality", max: 100) { media.quality = v }
        if let n = map["missing_alt"], let text = fields.string(n, "media.missing_alt") {
            if let v = MissingAlt(rawValue: text) { media.missingAlt = v } else {
                fields.sink.error(Suggestion.unknown("media.missing_alt", text, known: MissingAlt.allCases.map(\.rawValue)), at: n.location)
            }
        }
        return media
    }
}

/// A story's lead image as the front matter gives it: `image: /media/x.jpg`, or
/// `image: { src: /media/x.jpg, alt: { en: …, fr: … }, credit: "…" }`.
public struct StoryImage: Sendable, Hashable {
    /// A site path (`/media/x.jpg`) or an http(s) URL.
    public var src: String
    public var alt: LocalizedText
    public var credit: String?
}

/// A file of `media/` that a story names (its lead image, or a link or image in a body), with where it does so.
public struct MediaReference: Sendable, Hashable {
    /// Relative to the site folder: `media/quake.jpg`.
    public var path: String
    public var location: SourceLocation

    package init(path: String, location: SourceLocation) {
        self.path = path
        self.location = location
    }
}

extension MediaReference {
    /// The site's media folder, beside `content/`, published at `/media/…`.
    public static let folder = "media"

    /// The media file a link names (`/media/x.jpg` → `media/x.jpg`), or nil for any other link.
    package static func path(ofLink link: String) -> String? {
        guard link.hasPrefix("/" + folder + "/") else { return nil }
        var path = Substring(link.dropFirst())
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        return String(path)
    }

    /// The media files a body links to or shows: `![alt](/media/x.jpg)`, `[ruling](/media/ruling.pdf "title")`
    /// and reference definitions `[label]: /media/x.jpg`, with the line and column of each (the body's first line
    /// is `firstLine` of the file).
    package static func references(inBody text: [UInt8], firstLine: Int) -> [MediaReference] {
        let needle = Array("/\(folder)/".utf8)
        var found: [MediaReference] = []
        var line = firstLine
        var lineStart = 0
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte == 10 {
                line += 1
                lineStart = index + 1
                index += 1
                continue
            }
            // A link destination starts after "](" or "<" of "](<", or after "]: " of a reference definition.
            var start: Int?
            if byte == 40, index > 0, text[index - 1] == 93 {   // "]("
                start = index + 1
                if start! < text.count, text[start!] == 60 { start! += 1 }   // "](<…>"
            } else if byte == 58, index > 0, text[index - 1] == 93 {   // "]:"
                var s = index + 1
                while s < text.count, text[s] == 32 || text[s] == 9 { s += 1 }
                start = s
            }
            if let start, start + needle.count <= text.count, Array(text[start..<start + needle.count]) == needle {
                var end = start
                while end < text.count, ![32, 9, 10, 13, 41, 62].contains(text[end]) { end += 1 }
                let link = String(decoding: text[start..<end], as: UTF8.self)
                if let path = path(ofLink: link) {
                    let column = String(decoding: text[lineStart..<start], as: UTF8.self).count + 1
                    found.append(MediaReference(path: path, location: SourceLocation(line: line, column: column)))
                }
                index = end
                continue
            }
            index += 1
        }
        return found
    }
}
