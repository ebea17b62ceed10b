import CVipsShim

/// The formats newsgen makes variants in; a photo in any of them gets variants in its own format and in WebP.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg, png, webp

    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
    public var mediaType: String { "image/" + rawValue }

    /// The loader libvips chose for a file (its class name, `VipsForeignLoadJpegFile`), as a format (nil: libvips
    /// reads it, but newsgen does not publish it as a photo).
    init?(loader: String) {
        switch loader {
        case "VipsForeignLoadJpegFile": self = .jpeg
        case "VipsForeignLoadPngFile", "VipsForeignLoadSpngFile": self = .png
        case "VipsForeignLoadWebpFile": self = .webp
        default: return nil
        }
    }

    /// "Gif" of `VipsForeignLoadNsgifFile`-style loader names, for messages.
    static func kind(ofLoader loader: String) -> String {
        var name = Substring(loader)
        if name.hasPrefix("VipsForeignLoad") { name = name.dropFirst(15) }
        if name.hasSuffix("File") { name = name.dropLast(4) }
        if name.hasPrefix("Ns") { name = name.dropFirst(2) }
        return name.uppercased()
    }

    var code: Int32 {
        switch self {
        case .jpeg: 0
        case .png: 1
        case .webp: 2
        }
    }
}

/// Why an image could not be read or made, for people: `path` is the file as the editor knows it.
public struct ImageError: Error, Sendable, Hashable {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}

/// What a photo's header says, upright (EXIF orientation applied to the width and height).
public struct ImageHeader: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var format: ImageFormat
}

/// One file to make from a photo: `width` wide (the height follows the photo), or with `crop`, exactly
/// `width` × `height` from the region libvips' attention strategy picks.
public struct VariantRequest: Sendable, Hashable {
    public var file: String
    public var width: Int
    public var height: Int
    public var crop: Bool
    public var format: ImageFormat
    public var quality: Int

    public init(file: String, width: Int, height: Int, crop: Bool, format: ImageFormat, quality: Int) {
        self.file = file
        self.width = width
        self.height = height
        self.crop = crop
        self.format = format
        self.quality = quality
    }
}

/// libvips behind plain Swift values: no pointer of it leaves this module.
public enum Images {
    /// libvips starts once per process. One worker thread per photo: photos are made in parallel, one per core,
    /// which keeps every core busy without libvips' threads competing with each other.
    private static let started: Bool = newsgen_vips_start(1) == 0

    /// The header of the photo at `path`, read without decoding a pixel (so that a decompression bomb can be
    /// refused on its size first). A file libvips cannot read and one in a format newsgen does not publish as a
    /// photo are errors naming `displayPath`.
    public static func header(of path: String, displayPath: String) throws(ImageError) -> ImageHeader {
        try start(displayPath)
        guard let loader = newsgen_vips_loader(path).map({ String(cString: $0) }) else {
            throw failure(displayPath, "not an image libvips can read (JPEG, PNG or WebP)")
        }
        guard let format = ImageFormat(loader: loader) else {
            throw ImageError(path: displayPath, message: "an image newsgen does not publish as a photo (\(ImageFormat.kind(ofLoader: loader))); use JPEG, PNG or WebP")
        }
        guard let image = newsgen_vips_open(path) else { throw failure(displayPath, "cannot be read") }
        defer { newsgen_vips_release(image) }
        let (width, height) = (Int(newsgen_vips_width(image)), Int(newsgen_vips_height(image)))
        guard width > 0, height > 0 else { throw ImageError(path: displayPath, message: "an image without pixels") }
        let turned = newsgen_vips_orientation(image) >= 5   // orientations 5-8 turn the picture a quarter
        return ImageHeader(width: turned ? height : width, height: turned ? width : height, format: format)
    }

    /// Makes every requested file from the photo at `path` (whose upright header is `header`), decoding it once.
    /// Returns the width and height each file was made at, in the order of `requests`.
    public static func make(_ requests: [VariantRequest], from path: String, displayPath: String,
                            header: ImageHeader) throws(ImageError) -> [(width: Int, height: Int)] {
        try start(displayPath)
        guard !requests.isEmpty else { return [] }
        // Decoded once at the smallest size every file can be made from (a JPEG shrinks while it is decoded).
        var scale = 0.0
        for request in requests {
            let needed = request.crop
                ? max(Double(request.width) / Double(header.width), Double(request.height) / Double(header.height))
                : Double(request.width) / Double(header.width)
            scale = max(scale, needed)
        }
        scale = min(1, scale)
        let baseWidth = min(header.width, Int((Double(header.width) * scale).rounded(.up)) + 2)
        let baseHeight = min(header.height, Int((Double(header.height) * scale).rounded(.up)) + 2)
        guard let base = newsgen_vips_decode(path, Int32(baseWidth), Int32(baseHeight)) else {
            throw failure(displayPath, "damaged or truncated")
        }
        defer { newsgen_vips_release(base) }
        guard let metadata = newsgen_vips_open(path) else { throw failure(displayPath, "cannot be read") }
        defer { newsgen_vips_release(metadata) }
        var made: [(width: Int, height: Int)] = []
        for request in requests {
            guard let variant = newsgen_vips_resize(base, Int32(request.width), Int32(request.crop ? request.height : 10_000_000),
                                                    request.crop ? 1 : 0) else {
                throw failure(displayPath, "cannot be resized to \(request.width)×\(request.height)")
            }
            defer { newsgen_vips_release(variant) }
            // Pixels are computed here, while writing: a damaged file can still fail at this point.
            guard newsgen_vips_save(variant, metadata, request.file, request.format.code, Int32(request.quality)) == 0 else {
                throw failure(displayPath, "cannot be made into \(request.format.rawValue) \(request.width)×\(request.height)")
            }
            made.append((Int(newsgen_vips_width(variant)), Int(newsgen_vips_height(variant))))
        }
        return made
    }

    private static func start(_ displayPath: String) throws(ImageError) {
        guard started else {
            throw ImageError(path: displayPath, message: "cannot be processed: libvips did not start (\(String(cString: newsgen_vips_load_error())); on Debian: apt-get install libvips42)")
        }
    }

    /// An error with libvips' own reason, its text taken in one step.
    private static func failure(_ path: String, _ what: String) -> ImageError {
        var reason = ""
        if let text = newsgen_vips_take_error() {
            reason = String(cString: text)
            newsgen_vips_free(text)
        }
        let lines = reason.split(separator: "\n").map { $0.trimmingCharacters() }.filter { !$0.isEmpty }
        var unique: [String] = []
        for line in lines where !unique.contains(line) { unique.append(line) }
        return ImageError(path: path, message: unique.isEmpty ? what : what + " (libvips: " + unique.joined(separator: "; ") + ")")
    }
}

private extension Substring {
    func trimmingCharacters() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
