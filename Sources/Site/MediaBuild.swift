import News
import Dispatch
import Images
import Incremental
import Synchronization

/// A variant of a photo as published: its file in the output, its size, and the file in the media cache that
/// holds its bytes.
public struct PublishedVariant: Sendable, Hashable {
    /// Relative to the output folder (and the site's URL): `media/quake-800w.webp`.
    public var path: String
    public var width: Int
    public var height: Int
    public var format: ImageFormat
    /// The bytes' size (for feed enclosures).
    public var bytes: Int
}

/// A photo of the media folder with its variants.
public struct PublishedPhoto: Sendable, Hashable {
    /// `media/quake.jpg`: also the URL path of its main variant (the widest in its own format).
    public var path: String
    public var format: ImageFormat
    /// The widest variant in the photo's format, published at `path` too.
    public var main: PublishedVariant
    /// Its file in the cache folder.
    var mainName: String
    /// By width, narrowest first, in the photo's format and in WebP.
    public var widths: [PublishedVariant]
    public var webpWidths: [PublishedVariant]
    /// By crop name (`MediaNames.crops`).
    public var crops: [String: PublishedVariant]
}

/// What the media step hands the build: the photos with their variants, and every file it adds to the output.
public struct PublishedMedia: Sendable {
    /// A hash of the files a story shows or links to (their content and the settings): part of the fingerprint
    /// of every output that shows the story, so that only those are rendered again when one of them changes.
    func key(for story: Story) -> UInt64 {
        let references = story.media
        if references.isEmpty { return 0 }
        var digest = ContentHasher()
        for reference in references { digest.combine(keys[reference.path] ?? 0) }
        return digest.value
    }

    public var photos: [String: PublishedPhoto] = [:]
    /// Output path, the file whose bytes it gets, and a hash of those bytes' origin (its output fingerprint).
    var outputs: [(path: String, source: String, fingerprint: UInt64)] = []
    /// A hash of each file's content and of the settings, by path (`media/quake.jpg`).
    var keys: [String: UInt64] = [:]
    /// The photos whose variants were made by this build (the others came from the cache).
    public var made: [String] = []

    public init() {}
}

/// The media step of a build: every file of `media/` is published at the same path; a photo as its variants
/// (`MediaNames`), made with libvips once per content and settings and kept in the site's `.newsgen/media/`
/// cache, so that a rebuild never encodes an unchanged photo again and every language shares them.
///
/// `publish` is the build's one entry point: it runs before anything is written to the output, and its result
/// (outputs and the values pages show) is all the build takes from it.
public enum MediaBuild {
    static let cacheFolder = BuildCache.storyCacheFolder + "/media"
    static let indexFile = "index"
    static let manifestFile = "manifest"

    /// Makes what is missing from the cache, on every core. Any problem of any photo (damaged, not an image,
    /// too large) is an error naming the file, and nothing is written to the output.
    public static func publish(_ edition: Edition, lock: BuildLock) throws(SiteError) -> PublishedMedia {
        precondition(lock.site == edition.directory, "the media cache is written under its own site's lock")
        let root = edition.directory
        let settings = edition.config.media
        let library = edition.media
        let cache = root + "/" + cacheFolder
        var published = PublishedMedia()
        if library.files.isEmpty {
            if FileSystem.isDirectory(cache) { FileSystem.removeTree(cache) }
            return published
        }
        do { try FileSystem.createDirectories(cache) } catch {
            throw SiteError([Diagnostic(path: cacheFolder, message: "cannot write the media cache: \(error.reason)")])
        }
        // Content hashes, read again only for files whose stamp changed.
        let known = readIndex(cache)
        let files = library.files
        let hashes = Mutex<[String: UInt64]>([:])
        let failures = Mutex<[Diagnostic]>([])
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let (path, stamp) = files[index]
            if let entry = known[path], entry.stamp == stamp {
                hashes.withLock { $0[path] = entry.hash }
                return
            }
            switch Result(catching: { () throws(FileSystem.Failure) in try FileSystem.read(root + "/" + path) }) {
            case .success(let bytes):
                let hash = ContentHasher.hash(bytes)
                hashes.withLock { $0[path] = hash }
            case .failure(let error):
                failures.withLock { $0.append(Diagnostic(path: path, message: "cannot read: \(error.reason)")) }
            }
        }
        var problems = failures.withLock { $0 }
        guard problems.isEmpty else { throw SiteError(problems) }
        let hash = hashes.withLock { $0 }
        writeIndex(cache, files.map { ($0.path, $0.stamp, hash[$0.path] ?? 0) }, listedAt: library.listedAt)

        // Photos whose variants are not in the cache yet are made, one per core.
        let photos = library.photos.map(\.path)
        let key = settings.variantKey
        @Sendable func folder(_ path: String) -> String { cache + "/" + hex(hash[path] ?? 0) + "-" + hex(key) }
        var manifests: [String: [Manifest.Line]] = [:]
        var missing: [String] = []
        var sameContent: [(path: String, as: String)] = []   // copies of a photo being made: made once
        var firstWithContent: [UInt64: String] = [:]
        for path in photos {
            guard let found = Manifest.read(folder(path)) else {
                if let first = firstWithContent[hash[path] ?? 0] {
                    sameContent.append((path, first))
                } else {
                    firstWithContent[hash[path] ?? 0] = path
                    missing.append(path)
                }
                continue
            }
            manifests[path] = found.lines
            do { try checkSize(found.width, found.height, displayPath: path, settings: settings) } catch {
                failures.withLock { $0.append(Diagnostic(path: error.path, message: error.message)) }
            }
        }
        let toMake = missing
        let made = Mutex<[String: [Manifest.Line]]>([:])
        DispatchQueue.concurrentPerform(iterations: toMake.count) { index in
            let path = toMake[index]
            switch Result(catching: { () throws(ImageError) in
                try make(root + "/" + path, displayPath: path, into: folder(path), settings: settings)
            }) {
            case .success(let lines): made.withLock { $0[path] = lines }
            case .failure(let error): failures.withLock { $0.append(Diagnostic(path: error.path, message: error.message)) }
            }
        }
        problems = failures.withLock { $0 }
        guard problems.isEmpty else { throw SiteError(problems.sorted()) }
        manifests.merge(made.withLock { $0 }) { $1 }
        for (path, first) in sameContent { manifests[path] = manifests[first] }
        published.made = toMake

        for (path, _) in files {
            var digest = ContentHasher()
            digest.combine(key)
            digest.combine(path)
            digest.combine(hash[path] ?? 0)
            let fingerprint = digest.value
            published.keys[path] = fingerprint
            guard let lines = manifests[path] else {   // any other file: as it is
                published.outputs.append((path, root + "/" + path, fingerprint))
                continue
            }
            let photo = photoValue(path, lines: lines)
            published.photos[path] = photo
            for line in lines {
                let variant = folder(path) + "/" + line.name
                published.outputs.append((line.outputPath(of: path), variant, fingerprint))
                if line.name == photo.mainName { published.outputs.append((path, variant, fingerprint)) }
            }
        }
        published.outputs.sort { $0.path < $1.path }
        // Cache folders of contents or settings no longer used go.
        let wanted = Set(photos.map { hex(hash[$0] ?? 0) + "-" + hex(key) })
        for entry in FileSystem.entries(of: cache) where entry != indexFile && !wanted.contains(entry) {
            FileSystem.removeTree(cache + "/" + entry)
        }
        return published
    }

    /// What `check` can tell of the photos without making them, from their headers, on every core: a file that is
    /// not an image, a format newsgen does not publish, a photo over `media.max_pixels`. A file damaged past its
    /// header is found by the build, which decodes it. Returns how many photos were looked at.
    public static func check(_ edition: Edition) throws(SiteError) -> Int {
        let photos = edition.media.photos.map(\.path)
        let failures = Mutex<[Diagnostic]>([])
        DispatchQueue.concurrentPerform(iterations: photos.count) { index in
            let path = photos[index]
            do throws(ImageError) { _ = try header(edition.directory + "/" + path, displayPath: path, settings: edition.config.media) } catch {
                failures.withLock { $0.append(Diagnostic(path: error.path, message: error.message)) }
            }
        }
        let problems = failures.withLock { $0 }
        guard problems.isEmpty else { throw SiteError(problems.sorted()) }
        return photos.count
    }

    /// A photo's upright header, refused when it is not a photo newsgen publishes or has too many pixels.
    static func header(_ source: String, displayPath: String, settings: MediaSettings) throws(ImageError) -> ImageHeader {
        let header = try Images.header(of: source, displayPath: displayPath)
        try checkSize(header.width, header.height, displayPath: displayPath, settings: settings)
        return header
    }

    /// The variants one photo gets, made into a new folder that is renamed into place when complete: a build
    /// killed meanwhile leaves no half-made folder that a later build would take as done.
    static func make(_ source: String, displayPath: String, into folder: String, settings: MediaSettings) throws(ImageError) -> [Manifest.Line] {
        let header = try header(source, displayPath: displayPath, settings: settings)
        var widths = settings.widths.filter { $0 <= header.width }
        if widths.isEmpty { widths = [header.width] }
        var requests: [VariantRequest] = []
        var names: [String] = []
        let staging = folder + ".part"
        FileSystem.removeTree(staging)
        do { try FileSystem.createDirectories(staging) } catch {
            throw ImageError(path: displayPath, message: "cannot write the media cache: \(error.reason)")
        }
        for width in widths {
            for format in [header.format, .webp] where !(format == .webp && names.contains("w\(width).webp")) {
                let name = "w\(width).\(format.fileExtension)"
                names.append(name)
                requests.append(VariantRequest(file: staging + "/" + name, width: width, height: 0, crop: false,
                                               format: format, quality: settings.quality))
            }
        }
        for crop in MediaNames.crops {
            // The largest box of the crop's shape inside the photo, at most the crop's size.
            let box = min(Double(header.width), Double(header.height) * Double(crop.width) / Double(crop.height))
            let scale = min(1, box / Double(crop.width))
            let width = max(1, Int((Double(crop.width) * scale).rounded(.down)))
            let height = max(1, Int((Double(crop.height) * scale).rounded(.down)))
            let name = "\(crop.name).\(header.format.fileExtension)"
            names.append(name)
            requests.append(VariantRequest(file: staging + "/" + name, width: width, height: height, crop: true,
                                           format: header.format, quality: settings.quality))
        }
        let sizes: [(width: Int, height: Int)]
        do {
            sizes = try Images.make(requests, from: source, displayPath: displayPath, header: header)
        } catch {
            FileSystem.removeTree(staging)
            throw error
        }
        var lines: [Manifest.Line] = []
        for (name, size) in zip(names, sizes) {
            let bytes = FileStamp.of(staging + "/" + name)?.size ?? 0
            lines.append(Manifest.Line(name: name, width: size.width, height: size.height, bytes: bytes))
        }
        do {
            _ = try FileSystem.write(Array(Manifest.text(lines, source: header).utf8), to: staging + "/" + manifestFile)
            FileSystem.removeTree(folder)
            try FileSystem.rename(staging, folder)
        } catch {
            FileSystem.removeTree(staging)
            throw ImageError(path: displayPath, message: "cannot write the media cache: \(error.reason)")
        }
        return lines
    }

    /// A photo of more pixels than `media.max_pixels` is refused, before it is decoded and whenever it is
    /// published from the cache (the limit may have been lowered since).
    static func checkSize(_ width: Int, _ height: Int, displayPath: String, settings: MediaSettings) throws(ImageError) {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard overflow || pixels > settings.maxPixels else { return }
        throw ImageError(path: displayPath, message: "\(width)×\(height) pixels, more than the limit of \(settings.maxPixels) pixels (media.max_pixels in newsgen.yml)")
    }

    static func photoValue(_ path: String, lines: [Manifest.Line]) -> PublishedPhoto {
        let format = ImageFormat.allCases.first { lines.first?.name.hasSuffix("." + $0.fileExtension) == true } ?? .jpeg
        func variant(_ line: Manifest.Line) -> PublishedVariant {
            let ext = String(line.name.split(separator: ".").last ?? "")
            return PublishedVariant(path: line.outputPath(of: path), width: line.width, height: line.height,
                                    format: ImageFormat.allCases.first { $0.fileExtension == ext } ?? format, bytes: line.bytes)
        }
        let widths = lines.filter { $0.name.hasPrefix("w") && !$0.name.hasSuffix(".webp") }.map(variant)
        let webp = lines.filter { $0.name.hasPrefix("w") && $0.name.hasSuffix(".webp") }.map(variant)
        var crops: [String: PublishedVariant] = [:]
        for line in lines where !line.name.hasPrefix("w") {
            crops[String(line.name.split(separator: ".")[0])] = variant(line)
        }
        let mainLine = lines.last { $0.name.hasPrefix("w") && !$0.name.hasSuffix(".webp") } ?? lines[0]
        var main = variant(mainLine)
        main.path = path
        return PublishedPhoto(path: path, format: format, main: main, mainName: mainLine.name, widths: widths,
                              webpWidths: webp, crops: crops)
    }

    /// A cache folder's list of variants: one line per file, `name width height bytes`.
    enum Manifest {
        struct Line: Hashable {
            var name: String
            var width: Int
            var height: Int
            var bytes: Int

            /// `w800.webp` of `media/quake.jpg` → `media/quake-800w.webp`; `16x9.jpg` → `media/quake-16x9.jpg`.
            func outputPath(of photo: String) -> String {
                let stem = name.split(separator: ".")[0]
                let ext = name.split(separator: ".").last.map(String.init) ?? ""
                if stem.hasPrefix("w"), let width = Int(stem.dropFirst()) {
                    return MediaNames.widthVariant(of: photo, width: width, webp: ext == "webp")
                }
                return MediaNames.crop(of: photo, named: String(stem))
            }
        }

        /// The first line gives the photo's own (upright) size.
        static func text(_ lines: [Line], source: ImageHeader) -> String {
            "source \(source.width) \(source.height) 0\n" + lines.map { "\($0.name) \($0.width) \($0.height) \($0.bytes)\n" }.joined()
        }

        /// The photo's size and the lines of a complete cache folder (its manifest is written last), or nil.
        static func read(_ folder: String) -> (width: Int, height: Int, lines: [Line])? {
            guard let text = try? FileSystem.readText(folder + "/" + manifestFile) else { return nil }
            let rows = text.split(separator: "\n")
            guard let first = rows.first?.split(separator: " "), first.count == 4, first[0] == "source",
                  let width = Int(first[1]), let height = Int(first[2]) else { return nil }
            var lines: [Line] = []
            for row in rows.dropFirst() {
                let parts = row.split(separator: " ")
                guard parts.count == 4, let width = Int(parts[1]), let height = Int(parts[2]), let bytes = Int(parts[3]),
                      FileStamp.of(folder + "/" + parts[0])?.size == bytes else { return nil }
                lines.append(Line(name: String(parts[0]), width: width, height: height, bytes: bytes))
            }
            return lines.isEmpty ? nil : (width, height, lines)
        }
    }

    /// `path size modified inode hash` per file: the content hash of every file as last read.
    static func readIndex(_ cache: String) -> [String: (stamp: FileStamp, hash: UInt64)] {
        guard let text = try? FileSystem.readText(cache + "/" + indexFile) else { return [:] }
        var entries: [String: (stamp: FileStamp, hash: UInt64)] = [:]
        for row in text.split(separator: "\n") {
            let parts = row.split(separator: "\t")
            guard parts.count == 5, let size = Int(parts[1]), let modified = Int64(parts[2]), let inode = UInt64(parts[3]),
                  let hash = UInt64(parts[4], radix: 16) else { continue }
            entries[String(parts[0])] = (FileStamp(size: size, modified: modified, inode: inode), hash)
        }
        return entries
    }

    /// `listedAt`: when the stamps were taken. A stamp from within two seconds of that may not change when the file
    /// is written again: such a file is read again next time (the same rule as the story files').
    static func writeIndex(_ cache: String, _ entries: [(String, FileStamp, UInt64)], listedAt: Int64) {
        let trustedBefore = FileStamp.settled(before: listedAt)
        let text = entries.filter { $0.1.modified < trustedBefore }
            .map { "\($0.0)\t\($0.1.size)\t\($0.1.modified)\t\($0.1.inode)\t\(hex($0.2))\n" }.joined()
        _ = try? FileSystem.write(Array(text.utf8), to: cache + "/" + indexFile + ".new")
        try? FileSystem.rename(cache + "/" + indexFile + ".new", cache + "/" + indexFile)
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
