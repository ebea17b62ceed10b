import Incremental
import News
import YAML

/// The site's media folder: `media/` beside `content/`, published as it is laid out at `/media/…`. Photos
/// (JPEG, PNG, WebP) are published as their variants (`MediaNames`), every other file as it is.
public struct MediaLibrary: Sendable {
    public static let photoExtensions: Set<String> = ["jpg", "jpeg", "png", "webp"]

    /// Every file, relative to the site folder (`media/2026/quake.jpg`), sorted, with its stamp.
    private(set) var files: [(path: String, stamp: FileStamp)] = []
    /// When the files were listed (nanoseconds since 1970, taken before the look): see `FileStamp.settled`.
    private(set) var listedAt: Int64 = 0
    /// Problems of the listing (unreadable folders, links out of the folder).
    var problems: [Diagnostic] = []
    private var known: Set<String> = []

    public init() {}

    /// The media folder of the site in `root` (absolute); empty when there is none.
    static func list(root: String, settings: MediaSettings) -> MediaLibrary {
        var library = MediaLibrary()
        let directory = root + "/" + MediaReference.folder
        guard FileSystem.isDirectory(directory) else { return library }
        library.listedAt = BuildCache.nowNanoseconds()
        let listing = FileSystem.sources(under: directory, includeHiddenFiles: false)
        library.files = listing.files.map { (MediaReference.folder + "/" + $0.path, $0.stamp) }
        library.known = Set(library.files.map(\.path))
        library.problems = Edition.diagnostics(listing.problems, in: MediaReference.folder)
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
        for place in stories.indices {   // by place, not `for story in stories`, which copies each (see PageContext.init)
            for reference in stories[place].media where !contains(reference.path) {
                var message = "no file \(reference.path) in the media folder"
                if let close = Suggestion.closest(to: reference.path, in: files.map(\.path)) {
                    message += " (did you mean \"/\(close)\"?)"
                } else if files.isEmpty {
                    message += " (put the file in \(MediaReference.folder)/ beside content/; it is published at /\(reference.path))"
                }
                diagnostics.append(Diagnostic(path: stories[place].sourcePath, location: reference.location, message: message))
            }
        }
        return diagnostics
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
        guard let path = MediaReference.path(ofLink: image), MediaLibrary.isPhoto(path) else { return image }
        return "/" + crop(of: path, named: cardCrop)
    }
}

extension MediaSettings {
    /// Everything that changes a variant's bytes: part of every variant's cache key.
    var variantKey: UInt64 {
        var digest = ContentHasher()
        digest.combine("media-v1")
        for width in widths { digest.combine(width) }
        digest.combine(quality)
        return digest.value
    }
}
