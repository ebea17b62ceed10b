import Foundation
import Testing
import TestSupport

/// Photos of the media folder, end to end: the published variants, the pages, feeds and structured data that
/// show them, the errors for bad photos, and the media cache.
@Suite struct PhotoTests {
    /// The sample site's photo stored on its side (EXIF orientation 6, 960×1440 as stored) with a GPS position and
    /// an EXIF copyright.
    static let turnedPhoto = Repository.root.appendingPathComponent("media/quake-coast.jpg")
    static let flatPhoto = Repository.root.appendingPathComponent("media/aurora-lapland.jpg")

    static let story = """
    ---
    id: quake-off-coast
    category: World
    published: 2026-11-29T14:05:00Z
    breaking: true
    title:
      en: Magnitude 7.1 earthquake strikes off the coast
      fr: Un séisme de magnitude 7,1 frappe au large des côtes
    image:
      src: /media/2026/coast.jpg
      alt: { en: The coast at dawn, fr: La côte à l'aube }
      credit: Ana Ruiz / Example News
    ---
    <!-- lang: en -->
    The quake struck at dawn.

    ![Aurora over the hills](/media/aurora.jpg)

    The [ruling](/media/ruling.pdf) is online.

    <!-- lang: fr -->
    Le séisme a frappé à l'aube.
    """

    static func site(story: String = story) throws -> TemporarySite {
        let site = try TemporarySite(files: ["newsgen.yml": FixtureConfig.threeLanguages(title: "{ en: Test News, fr: Les Nouvelles }"),
                                             "content/world/quake.md": story])
        try site.write("media/2026/coast.jpg", try Data(contentsOf: turnedPhoto))
        try site.write("media/aurora.jpg", try Data(contentsOf: flatPhoto))
        try site.write("media/ruling.pdf", Data("%PDF-1.4 a ruling\n".utf8))
        return site
    }

    /// `vipsheader -a` of a file: every field libvips reads, EXIF included.
    static func fields(_ file: URL) throws -> String {
        let result = try runProgram(URL(fileURLWithPath: "/usr/bin/vipsheader"), ["-a", file.path])
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput
    }

    static func size(_ file: URL) throws -> (width: Int, height: Int) {
        let text = try fields(file)
        func value(_ name: String) -> Int {
            text.split(separator: "\n").first { $0.hasPrefix(name + ": ") }.flatMap { Int($0.dropFirst(name.count + 2)) } ?? -1
        }
        return (value("width"), value("height"))
    }

    static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let range = tag.range(of: " \(name)=\"") else { return nil }
        let rest = tag[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    static func tags(_ name: String, in html: String) -> [Substring] {
        var found: [Substring] = []
        var rest = Substring(html)
        while let start = rest.range(of: "<\(name) ") {
            let tail = rest[start.lowerBound...]
            guard let end = tail.firstIndex(of: ">") else { break }
            found.append(tail[...end])
            rest = tail[tail.index(after: end)...]
        }
        return found
    }

    /// libvips and the hundred libraries it needs are opened when a photo is first processed, not by every command
    /// at start. The dynamic loader's own account (LD_DEBUG) says which files it loaded.
    @Test func libvipsIsLoadedOnlyToProcessPhotos() throws {
        func loadsLibvips(_ arguments: [String], in site: TemporarySite) throws -> Bool {
            let result = try newsgen(arguments, in: site, environment: ["SOURCE_DATE_EPOCH": "1796000000", "LD_DEBUG": "files"])
            #expect(result.status == 0, "\(arguments): \(result.standardError.suffix(2000))")
            return result.standardError.contains("file=libvips.so")
        }
        let withPhotos = try Self.site()
        let withoutPhotos = try TemporarySite(files: ["newsgen.yml": FixtureConfig.threeLanguages(title: "{ en: Test News }"),
                                                      "content/world/quake.md": Self.story.replacingOccurrences(of: "/media/", with: "https://images.example.com/")])
        #expect(try !loadsLibvips(["help"], in: withPhotos))
        #expect(try !loadsLibvips(["build"], in: withoutPhotos))
        #expect(try loadsLibvips(["check"], in: withPhotos), "check reads each photo's header")
        #expect(try loadsLibvips(["build"], in: withPhotos), "the first build makes the variants")
        #expect(try !loadsLibvips(["build"], in: withPhotos), "the variants are kept: no photo to process")
    }

    @Test func pagesShowEveryVariantAtItsStatedSize() async throws {
        let site = try Self.site()
        let result = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("2 photos processed (0 from the media cache)"), "\(result.standardOutput)")
        let output = site.url.appendingPathComponent("site")
        let page = try site.read("site/en/2026/11/29/quake/index.html")

        // Every srcset file exists and is as wide as srcset says; none is wider than its photo.
        let images = Self.tags("img", in: page)
        #expect(images.count == 2)
        var sources = Self.tags("source", in: page)
        #expect(sources.count == 2)
        for tag in images + sources {
            let srcset = try #require(Self.attribute("srcset", in: tag))
            #expect(Self.attribute("sizes", in: tag) != nil)
            for item in srcset.split(separator: ",") {
                let parts = item.split(separator: " ")
                let file = output.appendingPathComponent(String(parts[0].dropFirst()))
                let (width, _) = try Self.size(file)
                #expect("\(width)w" == parts[1], "\(parts[0])")
                #expect(width <= 1440, "\(parts[0]) is wider than its photo")
            }
        }
        sources.removeAll()
        // The lead image: upright (the stored photo is portrait, shown landscape), sized, alt, credit, loaded first.
        let lead = images[0]
        #expect(Self.attribute("src", in: lead) == "/media/2026/coast.jpg")
        #expect(Self.attribute("width", in: lead) == "1200" && Self.attribute("height", in: lead) == "800")
        #expect(try Self.size(output.appendingPathComponent("media/2026/coast.jpg")) == (1200, 800))
        #expect(Self.attribute("alt", in: lead) == "The coast at dawn")
        #expect(Self.attribute("fetchpriority", in: lead) == "high" && Self.attribute("loading", in: lead) == nil)
        #expect(page.contains("<figcaption class=\"credit\">Ana Ruiz / Example News</figcaption>"))
        // The body image: its own alt, lazy.
        #expect(Self.attribute("alt", in: images[1]) == "Aurora over the hills")
        #expect(Self.attribute("loading", in: images[1]) == "lazy")
        #expect(Self.attribute("width", in: images[1]) == "1200" && Self.attribute("height", in: images[1]) == "800")
        // The French page: the French alt text, the same files.
        let french = try site.read("site/fr/2026/11/29/quake/index.html")
        #expect(french.contains("alt=\"La côte à l&#39;aube\"") || french.contains("alt=\"La côte à l'aube\""), "\(french)")
        #expect(french.contains("srcset=\"/media/2026/coast-400w.jpg 400w, /media/2026/coast-800w.jpg 800w, /media/2026/coast-1200w.jpg 1200w\""))
        // The PDF the body links to is published as it is.
        #expect(try Data(contentsOf: output.appendingPathComponent("media/ruling.pdf")) == Data("%PDF-1.4 a ruling\n".utf8))
        // The front page's card: lazy.
        let front = try site.read("site/en/index.html")
        let card = try #require(Self.tags("img", in: front).first)
        #expect(Self.attribute("loading", in: card) == "lazy" && Self.attribute("fetchpriority", in: card) == nil)
    }

    @Test func noVariantKeepsTheGPSPositionAndEveryOneIsUpright() async throws {
        let site = try Self.site()
        let source = try Self.fields(Self.turnedPhoto)
        #expect(source.contains("exif-ifd3-GPSLatitude"), "the fixture must carry GPS for this test to mean anything")
        #expect(source.contains("orientation: 6"))
        let result = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(result.status == 0, "\(result.standardError)")
        let media = site.url.appendingPathComponent("site/media/2026")
        let files = try FileManager.default.contentsOfDirectory(atPath: media.path).sorted()
        #expect(files.count == 11, "\(files)")   // 3 widths × 2 formats, 4 crops, the main file
        for name in files {
            let text = try Self.fields(media.appendingPathComponent(name))
            #expect(!text.contains("GPS"), "\(name) keeps GPS data")
            #expect(!text.contains("orientation: 6"), "\(name) is not upright")
            #expect(text.contains("(c) 2026 Example News"), "\(name) lost its copyright")
            let (width, height) = try Self.size(media.appendingPathComponent(name))
            #expect(width >= height || name.contains("1x1"), "\(name) is \(width)×\(height): the orientation was not applied")
        }
        #expect(try Self.size(media.appendingPathComponent("coast-16x9.jpg")) == (1200, 675))
        #expect(try Self.size(media.appendingPathComponent("coast-4x3.jpg")) == (1200, 900))
        #expect(try Self.size(media.appendingPathComponent("coast-1x1.jpg")) == (960, 960))   // never enlarged
        #expect(try Self.size(media.appendingPathComponent("coast-1200x630.jpg")) == (1200, 630))
        #expect(!files.contains("coast-1600w.jpg"))   // wider than the photo
    }

    @Test func structuredDataOpenGraphAndFeedsCarryTheImageWithItsSize() async throws {
        let site = try Self.site()
        let result = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(result.status == 0, "\(result.standardError)")
        let page = try site.read("site/en/2026/11/29/quake/index.html")
        #expect(page.contains("<meta property=\"og:image\" content=\"https://news.example.com/media/2026/coast-1200x630.jpg\">"))
        #expect(page.contains("<meta property=\"og:image:width\" content=\"1200\">"))
        #expect(page.contains("<meta property=\"og:image:height\" content=\"630\">"))
        #expect(page.contains("<meta property=\"og:image:alt\" content=\"The coast at dawn\">"))
        #expect(page.contains("<meta name=\"twitter:card\" content=\"summary_large_image\">"))
        #expect(page.contains("<meta name=\"robots\" content=\"max-image-preview:large\">"))
        let script = try #require(page.range(of: "<script type=\"application/ld+json\">\n").map { page[$0.upperBound...] })
        let json = String(script[..<script.range(of: "</script>")!.lowerBound])
        let data = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let images = try #require(data["image"] as? [[String: Any]])
        let sizes = images.map { "\($0["url"] as? String ?? ""):\($0["width"] as? Int ?? 0)x\($0["height"] as? Int ?? 0)" }
        #expect(sizes == ["https://news.example.com/media/2026/coast-16x9.jpg:1200x675",
                          "https://news.example.com/media/2026/coast-4x3.jpg:1200x900",
                          "https://news.example.com/media/2026/coast-1x1.jpg:960x960",
                          "https://news.example.com/media/2026/coast-1200x630.jpg:1200x630"])
        #expect(images.allSatisfy { $0["@type"] as? String == "ImageObject" })
        let main = site.url.appendingPathComponent("site/media/2026/coast.jpg")
        let length = try #require(try FileManager.default.attributesOfItem(atPath: main.path)[.size] as? Int)
        let rss = try site.read("site/en/feed.xml")
        #expect(rss.contains("<enclosure url=\"https://news.example.com/media/2026/coast.jpg\" length=\"\(length)\" type=\"image/jpeg\"/>"), "\(rss)")
        let atom = try site.read("site/en/atom.xml")
        #expect(atom.contains("<link rel=\"enclosure\" type=\"image/jpeg\" length=\"\(length)\" href=\"https://news.example.com/media/2026/coast.jpg\"/>"), "\(atom)")
        let feed = try #require(try JSONSerialization.jsonObject(with: Data(try site.read("site/en/feed.json").utf8)) as? [String: Any])
        let item = try #require((feed["items"] as? [[String: Any]])?.first)
        #expect(item["image"] as? String == "https://news.example.com/media/2026/coast.jpg")
    }

    @Test func aRebuildNeverEncodesAnUnchangedPhotoAgain() async throws {
        let site = try Self.site()
        let first = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(first.status == 0, "\(first.standardError)")
        func stamps() throws -> [String: String] {
            var result: [String: String] = [:]
            for folder in ["site/media", ".newsgen/media"] {
                let base = site.url.appendingPathComponent(folder)
                let enumerator = FileManager.default.enumerator(atPath: base.path)
                while let name = enumerator?.nextObject() as? String {
                    guard name.hasSuffix(".jpg") || name.hasSuffix(".webp") else { continue }
                    let info = try FileManager.default.attributesOfItem(atPath: base.appendingPathComponent(name).path)
                    result[folder + "/" + name] = "\(info[.systemFileNumber] ?? 0) \((info[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
                }
            }
            return result
        }
        let before = try stamps()
        #expect(before.count > 40)
        // An edit of the story's text renders its pages again, but encodes no photo.
        try site.write("content/world/quake.md", Self.story.replacingOccurrences(of: "struck at dawn", with: "struck before dawn"))
        let again = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(again.status == 0, "\(again.standardError)")
        #expect(!again.standardOutput.contains("processed"), "\(again.standardOutput)")
        #expect(try stamps() == before)
        // One new photo: only it is made.
        try site.write("media/new.jpg", try Data(contentsOf: Self.flatPhoto) + Data([0]))
        let added = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput.contains("1 photo processed (2 from the media cache)"), "\(added.standardOutput)")
        let after = try stamps()
        for (file, stamp) in before { #expect(after[file] == stamp, "\(file) was written again") }
        #expect(site.exists("site/media/new-800w.webp"))
        // Two new copies of one photo: made once, published under both names.
        try site.write("media/copy-a.jpg", try Data(contentsOf: Self.turnedPhoto) + Data([1]))
        try site.write("media/copy-b.jpg", try Data(contentsOf: Self.turnedPhoto) + Data([1]))
        let copies = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(copies.status == 0, "\(copies.standardError)")
        #expect(copies.standardOutput.contains("1 photo processed (4 from the media cache)"), "\(copies.standardOutput)")
        #expect(site.exists("site/media/copy-a-400w.webp") && site.exists("site/media/copy-b-400w.webp"))
    }

    struct BadPhoto: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: @Sendable () throws -> Data
        var config: String = ""
        var expected: String
        /// `check` reads headers only: a file damaged past its header is found by the build.
        var foundByCheck = true
        var testDescription: String { name }
    }

    static let badPhotos: [BadPhoto] = [
        BadPhoto(name: "truncated", bytes: { try Data(contentsOf: PhotoTests.flatPhoto).prefix(20_000) },
                 expected: "media/aurora.jpg: error: damaged or truncated", foundByCheck: false),
        BadPhoto(name: "corrupt", bytes: {
            var data = try Data(contentsOf: PhotoTests.flatPhoto)
            data.replaceSubrange(600..<data.count, with: Data(repeating: 0x5A, count: data.count - 600))
            return data
        }, expected: "media/aurora.jpg: error: damaged or truncated", foundByCheck: false),
        BadPhoto(name: "not an image", bytes: { Data("just some text, not a JPEG\n".utf8) },
                 expected: "media/aurora.jpg: error: not an image libvips can read (JPEG, PNG or WebP)"),
        BadPhoto(name: "oversized", bytes: { try Data(contentsOf: PhotoTests.flatPhoto) }, config: "media: { max_pixels: 1000000 }",
                 expected: "media/aurora.jpg: error: 1440×960 pixels, more than the limit of 1000000 pixels (media.max_pixels in newsgen.yml)"),
    ]

    @Test(arguments: badPhotos) func aBadPhotoIsAnErrorAndLeavesThePreviousSite(_ item: BadPhoto) async throws {
        let site = try Self.site()
        let first = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(first.status == 0, "\(first.standardError)")
        let before = site.snapshot()
        try site.write("media/aurora.jpg", try item.bytes())
        if !item.config.isEmpty {
            try site.write("newsgen.yml", FixtureConfig.threeLanguages(title: "{ en: Test News, fr: Les Nouvelles }", extra: item.config))
        }
        let result = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(result.status == 1)
        #expect(result.standardError.contains(item.expected), "\(result.standardError)")
        #expect(result.standardError.contains("nothing was written"), "\(result.standardError)")
        #expect(site.snapshot() == before)
        let check = try await offThePool { try newsgen(["check"], in: site, environment: BuildFixtures.now) }
        if item.foundByCheck {
            #expect(check.status == 1)
            #expect(check.standardError.contains(item.expected), "\(check.standardError)")
        } else {
            #expect(check.status == 0, "\(check.standardError)")
        }
    }

    /// A build that stops at its photos, before its pages, still keeps the stories its load parsed (the trace), so
    /// the build after the photo is mended does not parse them again.
    @Test func aBuildStoppedByAPhotoKeepsWhatItsLoadParsed() async throws {
        let site = try Self.site()
        try site.write("media/aurora.jpg", try Data(contentsOf: Self.flatPhoto).prefix(20_000))
        let failed = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(failed.status == 1)
        #expect(failed.standardError.contains("media/aurora.jpg: error: damaged or truncated"), "\(failed.standardError)")
        #expect(!site.exists("site"))
        #expect(site.exists(".newsgen/trace"), "the parsed stories were lost with the failed build")
    }

    @Test func aMissingFileIsAnErrorAtItsPlaceWithTheClosestName() async throws {
        let site = try Self.site()
        let first = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(first.status == 0, "\(first.standardError)")
        let before = site.snapshot()
        try site.write("content/world/quake.md", Self.story.replacingOccurrences(of: "/media/aurora.jpg", with: "/media/auroa.jpg")
            .replacingOccurrences(of: "src: /media/2026/coast.jpg", with: "src: /media/2026/cost.jpg"))
        for command in ["build", "check"] {
            let result = try await offThePool { try newsgen([command], in: site, environment: BuildFixtures.now) }
            #expect(result.status == 1)
            #expect(result.standardError.contains("content/world/quake.md:10:8: error: no file media/2026/cost.jpg in the media folder (did you mean \"/media/2026/coast.jpg\"?)"),
                    "\(result.standardError)")
            #expect(result.standardError.contains("content/world/quake.md:17:26: error: no file media/auroa.jpg in the media folder (did you mean \"/media/aurora.jpg\"?)"),
                    "\(result.standardError)")
        }
        #expect(site.snapshot() == before)
    }

    @Test func alternativeTextIsRequiredInEveryLanguageWithABody() async throws {
        let site = try Self.site(story: Self.story.replacingOccurrences(of: ", fr: La côte à l'aube", with: ""))
        let result = try await offThePool { try newsgen(["check"], in: site, environment: BuildFixtures.now) }
        #expect(result.status == 1)
        #expect(result.standardError.contains("content/world/quake.md:10:3: error: image.alt needs a text in fr"), "\(result.standardError)")
        // The switch: the title stands in for the missing text.
        try site.write("newsgen.yml", FixtureConfig.threeLanguages(title: "{ en: Test News, fr: Les Nouvelles }", extra: "media: { missing_alt: title }"))
        let allowed = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(allowed.status == 0, "\(allowed.standardError)")
        #expect(try site.read("site/fr/2026/11/29/quake/index.html").contains("alt=\"Un séisme de magnitude 7,1 frappe au large des côtes\""))
    }

    @Test func aPlainImagePathStaysValid() async throws {
        let site = try Self.site(story: Self.story.replacingOccurrences(of: """
            image:
              src: /media/2026/coast.jpg
              alt: { en: The coast at dawn, fr: La côte à l'aube }
              credit: Ana Ruiz / Example News
            """, with: "image: /media/2026/coast.jpg"))
        let result = try await offThePool { try newsgen(["build"], in: site, environment: BuildFixtures.now) }
        #expect(result.status == 0, "\(result.standardError)")
        let page = try site.read("site/en/2026/11/29/quake/index.html")
        let lead = try #require(Self.tags("img", in: page).first)
        #expect(Self.attribute("alt", in: lead) == "Magnitude 7.1 earthquake strikes off the coast")
        #expect(Self.attribute("srcset", in: lead)?.contains("/media/2026/coast-800w.jpg 800w") == true)
    }
}
