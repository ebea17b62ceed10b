@testable import News
import NewsFixtures
@testable import Site
import Testing

/// The story format's image keys, media references and variant names.
@Suite struct MediaTests {
    static let header = "---\ncategory: World\npublished: 2026-11-29T14:05:00Z\ntitle: { en: Quake, fr: Séisme }\n"

    @Test func imageMappingGivesSourceAltAndCredit() throws {
        let (story, problems) = Fixtures.parseStory(Self.header + """
            image: { src: /media/quake.jpg, alt: { en: The coast, fr: La côte }, credit: "Reuters" }
            ---
            <!-- lang: en -->
            A.
            <!-- lang: fr -->
            B.

            """)
        #expect(problems.isEmpty, "\(problems)")
        let parsed = try #require(story)
        #expect(parsed.image == "/media/quake.jpg")
        #expect(parsed.imageAlt[code: "fr"] == "La côte")
        #expect(parsed.imageCredit == "Reuters")
        #expect(parsed.media == [MediaReference(path: "media/quake.jpg", location: .init(line: 5, column: 15))])
    }

    @Test func aPlainImageIsStillAPathOrURL() throws {
        let (story, problems) = Fixtures.parseStory(Self.header + "image: https://cdn.example.com/a.jpg\n---\nText.\n")
        #expect(problems.isEmpty)
        #expect(story?.image == "https://cdn.example.com/a.jpg")
        #expect(story?.media == [])   // not a file of the media folder: nothing to check
        let (_, bad) = Fixtures.parseStory(Self.header + "image: { alt: x }\n---\nText.\n")
        #expect(bad.map(\.description).contains { $0.contains("image needs src") }, "\(bad)")
        let (_, unknown) = Fixtures.parseStory(Self.header + "image: { src: /media/a.jpg, credt: x }\n---\nText.\n")
        #expect(unknown.map(\.description).contains { $0.contains("unknown key \"credt\"") && $0.contains("did you mean \"credit\"?") }, "\(unknown)")
    }

    @Test func bodyReferencesHaveTheirLineAndColumn() {
        let body = Array("Intro.\n\n![Alt](/media/a.jpg) and [PDF](</media/docs/r.pdf>)\n[ref]: /media/b.png \"T\"\nSee [site](/en/) and ![x](https://e.com/x.jpg).\n".utf8)
        let found = MediaReference.references(inBody: body, firstLine: 10)
        #expect(found == [
            MediaReference(path: "media/a.jpg", location: .init(line: 12, column: 8)),
            MediaReference(path: "media/docs/r.pdf", location: .init(line: 12, column: 33)),
            MediaReference(path: "media/b.png", location: .init(line: 13, column: 8)),
        ])
    }

    @Test func variantNamesAndTheNotificationPicture() {
        #expect(MediaNames.widthVariant(of: "media/2026/q.jpg", width: 800, webp: true) == "media/2026/q-800w.webp")
        #expect(MediaNames.crop(of: "media/q.png", named: "16x9") == "media/q-16x9.png")
        #expect(MediaNames.notificationImage(for: "/media/q.jpg") == "/media/q-1200x630.jpg")
        #expect(MediaNames.notificationImage(for: "/media/ruling.pdf") == "/media/ruling.pdf")
        #expect(MediaNames.notificationImage(for: "https://cdn.example.com/a.jpg") == "https://cdn.example.com/a.jpg")
    }

    @Test func mediaSettingsAreChecked() {
        var diagnostics: [Diagnostic] = []
        let config = SiteConfig.parse(Fixtures.config + "\nmedia: { widths: [1200, 400], quality: 101, missing_alt: titel }\n",
                                      path: "newsgen.yml", diagnostics: &diagnostics)
        #expect(config == nil)
        let text = diagnostics.map(\.description).joined(separator: "\n")
        #expect(text.contains("media.quality"), "\(text)")
        #expect(text.contains("unknown media.missing_alt \"titel\"") && text.contains("did you mean \"title\"?"), "\(text)")
        var none: [Diagnostic] = []
        let good = SiteConfig.parse(Fixtures.config + "\nmedia: { widths: [1200, 400], max_pixels: 1000 }\n", path: "newsgen.yml", diagnostics: &none)
        #expect(good?.media.widths == [400, 1200] && good?.media.maxPixels == 1000, "\(none)")
    }
}
