import Incremental
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

    /// Everything that changes a variant's bytes: part of every variant's cache key.
    var variantKey: UInt64 {
        var digest = ContentHasher()
        digest.combine("media-v1")
        for width in widths { digest.combine(width) }
        digest.combine(quality)
        return digest.value
    }

    static func parse(_ node: YAMLNode, fields: inout Fields) -> MediaSettings {
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
}

/// The site's media folder: `media/` beside `content/`, published as it is laid out at `/media/…`. Photos
/// (JPEG, PNG, WebP) are published as their variants (`MediaNames`), every other file as it is.
public struct MediaLibrary: Sendable {
    public static let folder = "media"
    public static let photoExtensions: Set<String> = ["jpg", "jpeg", "png", "webp"]

    /// Every file, relative to the site folder (`media/2026/quake.jpg`), sorted, with its stamp.
    private(set) var files: [(path: String, stamp: FileStamp)] = []
    /// Problems of the listing (unreadable folders, links out of the folder).
    var problems: [Diagnostic] = []
    private var known: Set<String> = []

    public init() {}

    /// The media folder of the site in `root` (absolute); empty when there is none.
    static func list(root: String, settings: MediaSettings) -> MediaLibrary {
        var library = MediaLibrary()
        let directory = root + "/" + folder
        guard FileSystem.isDirectory(directory) else { return library }
        let listing = FileSystem.sources(under: directory, includeHiddenFiles: false)
        library.files = listing.files.map { (folder + "/" + $0.path, $0.stamp) }
        library.known = Set(library.files.map(\.path))
        library.problems = Edition.diagnostics(listing.problems, in: folder)
        // A file that a photo's variant would replace is refused, rather than one of them silently lost.
        var variants: [String: String] = [:]
        for (path, _) in library.files where isPhoto(path) {
            for name in MediaNames.variantPaths(of: path, widths: settings.widths) where name != path { variants[name] = path }
        }
        for (path, _) in library.files {
            if let photo = variants[path] {
                library.problems.append(Diagnostic(path: path, message: "has the name of a variant of \(photo) (newsgen publishes \(photo) at that URL too); rename it"))
            }
        }
        return library
    }

    static func isPhoto(_ path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return photoExtensions.contains(path[path.index(after: dot)...].lowercased())
    }

    var photos: [(path: String, stamp: FileStamp)] { files.filter { Self.isPhoto($0.path) } }
    var otherFiles: [(path: String, stamp: FileStamp)] { files.filter { !Self.isPhoto($0.path) } }

    func contains(_ path: String) -> Bool { known.contains(path) }

    /// `listingDigest` of the media folder of the site in `root`, as it is now.
    static func listingDigest(root: String) -> UInt64 { list(root: root, settings: MediaSettings()).listingDigest }

    /// A hash of the listing (paths and stamps): part of the inputs a build can be skipped on.
    var listingDigest: UInt64 {
        var digest = ContentHasher()
        digest.combine("media")
        digest.combine(files.count)
        for (path, stamp) in files {
            digest.combine(path)
            digest.combine(stamp.size)
            digest.combine(UInt64(bitPattern: stamp.modified))
            digest.combine(stamp.inode)
        }
        for problem in problems { digest.combine(problem.description) }
        return digest.value
    }

    /// Every story's references that name no file of the folder, with the closest name there is.
    func check(_ stories: [Story]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for story in stories {
            for reference in story.media where !contains(reference.path) {
                var message = "no file \(reference.path) in the media folder"
                if let close = Suggestion.closest(to: reference.path, in: files.map(\.path)) {
                    message += " (did you mean \"/\(close)\"?)"
                } else if files.isEmpty {
                    message += " (put the file in \(Self.folder)/ beside content/; it is published at /\(reference.path))"
                }
                diagnostics.append(Diagnostic(path: story.sourcePath, location: reference.location, message: message))
            }
        }
        return diagnostics
    }

    /// The media file a link names (`/media/x.jpg` → `media/x.jpg`), or nil for any other link.
    static func path(ofLink link: String) -> String? {
        guard link.hasPrefix("/" + folder + "/") else { return nil }
        var path = Substring(link.dropFirst())
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        return String(path)
    }

    /// The media files a body links to or shows: `![alt](/media/x.jpg)`, `[ruling](/media/ruling.pdf "title")`
    /// and reference definitions `[label]: /media/x.jpg`, with the line and column of each (the body's first line
    /// is `firstLine` of the file).
    static func references(inBody text: [UInt8], firstLine: Int) -> [MediaReference] {
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

/// Where a photo's variants are published, from its path alone (`media/quake.jpg`):
/// `media/quake.jpg` (the widest variant in the photo's format, its stable URL), `media/quake-800w.jpg` and
/// `media/quake-800w.webp` per width, and the crops `media/quake-16x9.jpg`, `-4x3.jpg`, `-1x1.jpg` (structured
/// data) and `-1200x630.jpg` (Open Graph cards, and the picture of rich notifications).
public enum MediaNames {
    /// The crops, by name: width and height at most (a smaller photo gives a smaller crop of the same shape).
    public static let crops: [(name: String, width: Int, height: Int)] = [
        ("16x9", 1200, 675), ("4x3", 1200, 900), ("1x1", 1200, 1200), ("1200x630", 1200, 630),
    ]
    /// The crop that Open Graph cards and notifications show.
    public static let cardCrop = "1200x630"

    static func split(_ path: String) -> (stem: Substring, ext: Substring) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return (Substring(path), "") }
        return (path[..<dot], path[path.index(after: dot)...])
    }

    public static func widthVariant(of path: String, width: Int, webp: Bool) -> String {
        let (stem, ext) = split(path)
        return "\(stem)-\(width)w.\(webp ? "webp" : ext)"
    }

    public static func crop(of path: String, named name: String) -> String {
        let (stem, ext) = split(path)
        return "\(stem)-\(name).\(ext)"
    }

    /// Every name a variant of the photo at `path` can have: names no other file of the folder may have.
    static func variantPaths(of path: String, widths: [Int]) -> [String] {
        crops.map { crop(of: path, named: $0.name) }
            + widths.flatMap { [widthVariant(of: path, width: $0, webp: false), widthVariant(of: path, width: $0, webp: true)] }
    }

    /// The URL path of the picture a notification shows for a story's image (a site path of the media folder),
    /// or the image itself when it is anything else.
    public static func notificationImage(for image: String) -> String {
        guard let path = MediaLibrary.path(ofLink: image), MediaLibrary.isPhoto(path) else { return image }
        return "/" + crop(of: path, named: cardCrop)
    }
}
