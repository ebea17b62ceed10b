import Foundation
import Testing
@testable import News
import NewsFixtures

@Suite struct StoryParserTests {
    @Test func parsesEveryField() throws {
        let (story, problems) = Fixtures.parseStory(Fixtures.story)
        #expect(problems.isEmpty)
        let s = try #require(story)
        #expect(s.id == "quake-off-coast")
        #expect(s.slug == "quake")
        #expect(s.categories.map(\.name) == ["World"])
        #expect(s.published.rfc3339 == "2026-11-29T14:05:00Z")
        #expect(s.updated?.rfc3339 == "2026-11-29T15:40:00+01:00")
        #expect(s.breaking && !s.draft)
        #expect(s.authors == ["Ana Ruiz"])
        #expect(s.titles[code: "zh-Hans"] == "近海发生7.1级地震")
        #expect(s.summaries[code: "zh-Hans"] == nil)
        #expect(s.push.revision == 2)
        #expect(s.push.text[code: "fr"] == "Séisme : alerte levée")
        #expect(s.bodies.keys.sorted() == ["en", "fr", "zh-Hans"])
        #expect(s.bodies["fr"]?.markdown == "**TOKYO —** Le séisme a frappé à l’aube.\n\n")
        #expect(s.bodies["en"]?.firstLine == 18)
    }

    @Test func markerInsideAFencedCodeBlockIsText() throws {
        let text = """
        ---
        category: World
        published: 2026-11-29T14:05:00Z
        title: Snippets
        ---
        <!-- lang: en -->
        Write markers like this:

        ```markdown
        <!-- lang: fr -->
        ```

        ~~~~
        <!-- lang: zh-Hans -->
        ~~~
        still code
        ~~~~
        <!-- lang: fr -->
        Le texte.
        """
        let (story, problems) = Fixtures.parseStory(text)
        #expect(problems.isEmpty)
        let s = try #require(story)
        #expect(s.bodies.keys.sorted() == ["en", "fr"])
        #expect(s.bodies["en"]?.markdown.contains("<!-- lang: fr -->") == true)
        #expect(s.bodies["en"]?.markdown.contains("<!-- lang: zh-Hans -->") == true)
        #expect(s.bodies["fr"]?.markdown == "Le texte.\n")
    }

    @Test func noMarkerMeansOneBodyInTheDefaultLanguage() throws {
        let (story, _) = Fixtures.parseStory("---\ncategory: [World, Politics]\npublished: 2026-11-29T14:05:00Z\ntitle: Hi\n---\nJust text.\n")
        let s = try #require(story)
        #expect(s.bodies.keys.sorted() == ["en"])
        #expect(s.categories.map(\.name) == ["World", "Politics"])
        #expect(s.titles[code: "en"] == "Hi")
    }

    @Test func datedFileNamesLoseTheirDateInTheSlug() {
        #expect(StoryParser.slug(fromFileName: "2026-11-20-budget-vote.md") == "budget-vote")
        #expect(StoryParser.slug(fromFileName: "2026-11-20.md") == "2026-11-20")
        #expect(StoryParser.slug(fromFileName: "quake.md") == "quake")
    }

    func messages(_ text: String, fileName: String = "quake.md") -> [String] {
        Fixtures.parseStory(text, fileName: fileName).1.map(\.description)
    }

    @Test func reportsEveryProblemWithItsPlace() {
        let text = """
        ---
        category: Wrld
        published: 2026-11-29
        breaking: yes
        titel: Oops
        title: { en: Hello, de: Hallo }
        ---
        <!-- lang: en -->
        Body.
        <!-- lang: es -->
        Cuerpo.
        <!-- lang: en -->
        Again.
        <!-- lang: fr -->

        """
        #expect(messages(text).sorted() == [
            "content/world/quake.md:2:11: error: unknown category \"Wrld\" (known: World, Politics, Sports; did you mean \"World\"?)",
            "content/world/quake.md:3:12: error: invalid published date: \"2026-11-29\" has no time; write e.g. 2026-11-29T09:00:00Z (with an offset)",
            "content/world/quake.md:4:11: error: breaking must be true or false, found \"yes\"",
            "content/world/quake.md:5:1: error: unknown key \"titel\" (known: id, category, published, updated, breaking, draft, author, image, title, summary, correction, push; did you mean \"title\"?) in the front matter",
            "content/world/quake.md:6:21: error: unknown language \"de\" (known: en, fr, zh-Hans) in title",
            "content/world/quake.md:10:1: error: unknown language \"es\" (known: en, fr, zh-Hans; did you mean \"en\"?) in a body marker",
            "content/world/quake.md:12:1: error: a second body for en (the first starts at line 8)",
            "content/world/quake.md:14:1: error: the fr body is empty",
        ].sorted())
    }

    @Test func frontMatterShapeErrors() {
        #expect(messages("no front matter") == ["content/world/quake.md:1:1: error: a story starts with front matter: a line \"---\", the YAML fields, and another \"---\""])
        #expect(messages("---\ntitle: x\n") == ["content/world/quake.md:1:1: error: the front matter is not closed: add a line \"---\" after the last field"])
        #expect(messages("---\ncategory: World\npublished: 2026-11-29T14:05:00Z\ntitle: x\n---\n\n  \n") ==
                ["content/world/quake.md:5:1: error: the story has no body: write the text after the front matter"])
        #expect(messages("---\ncategory: World\npublished: 2026-11-29T14:05:00Z\ntitle: x\n---\nintro\n<!-- lang: en -->\nBody\n") ==
                ["content/world/quake.md:6:1: error: text before the first language marker; start the body with a line such as <!-- lang: en -->"])
        #expect(messages("---\ntitle: [unclosed\n---\nx\n").first?.hasPrefix("content/world/quake.md:3:") == true)
        #expect(messages("---\ncategory: World\npublished: 2026-11-29T14:05:00Z\ntitle: { fr: Bonjour }\n---\nx\n") ==
                ["content/world/quake.md:4:8: error: title needs the default language (en)"])
    }

    @Test func slugsThatWouldLeaveTheirFolderOrMakeBadURLsAreRefused() {
        let good = "---\ncategory: World\npublished: 2026-11-29T14:05:00Z\ntitle: x\n---\nx\n"
        #expect(messages(good, fileName: "..md").first?.contains("is not a clean URL segment") == true)
        #expect(messages(good, fileName: "Big News.md") ==
                ["content/world/Big News.md:1:1: error: the file name gives the slug \"Big News\", which is not a clean URL segment; rename the file using lowercase letters, digits and - (e.g. big-news.md)"])
        #expect(messages("---\nid: ../etc\ncategory: World\npublished: 2026-11-29T14:05:00Z\ntitle: x\n---\nx\n").first?.contains("id \"../etc\" may only use") == true)
    }

    @Test func invalidUTF8IsReportedWhereItIs() {
        var bytes = Array("---\ncategory: World\npublished: 2026-11-29T14:05:00Z\ntitle: caf".utf8)
        bytes += [0xE9, 0x0A]
        bytes += Array("---\nx\n".utf8)
        let (_, problems) = StoryParser(config: Fixtures.siteConfig()).parse(bytes: bytes, path: "content/a.md", fileName: "a.md")
        #expect(problems.map(\.description) == ["content/a.md:4:11: error: the file is not valid UTF-8 (byte 0xE9); save it as UTF-8"])
    }

    @Test func updatedBeforePublishedAndCorrectionWithoutUpdate() {
        let text = "---\ncategory: World\npublished: 2026-11-29T14:05:00Z\nupdated: 2026-11-28T14:05:00Z\ntitle: x\n---\nx\n"
        #expect(messages(text) == ["content/world/quake.md:4:10: error: updated (2026-11-28T14:05:00Z) is earlier than published (2026-11-29T14:05:00Z)"])
        let correction = "---\ncategory: World\npublished: 2026-11-29T14:05:00Z\ncorrection: Fixed a name.\ntitle: x\n---\nx\n"
        #expect(messages(correction) == ["content/world/quake.md:4:13: error: a correction needs an updated date saying when it was made"])
    }
}

@Suite struct LineEndingTests {
    @Test func windowsLineEndingsParseLikeUnixOnes() throws {
        let crlf = Fixtures.story.replacingOccurrences(of: "\n", with: "\r\n")
        let (story, problems) = Fixtures.parseStory(crlf)
        #expect(problems.isEmpty, "\(problems)")
        let s = try #require(story)
        #expect(s.bodies.keys.sorted() == ["en", "fr", "zh-Hans"])
        #expect(s.bodies["fr"]?.markdown == "**TOKYO —** Le séisme a frappé à l’aube.\n\n")
        #expect(s.titles[code: "fr"] == "Un séisme de magnitude 7,1 frappe au large des côtes")
    }

    /// Bodies are read again later from their byte ranges (`Edition.withBodies`), not parsed again: the range
    /// must give the same Markdown as parsing, whatever the line endings.
    @Test(arguments: [
        ("LF", "---\ncategory: World\npublished: 2026-11-29T14:05:00Z\ntitle: T\n---\n<!-- lang: en -->\nOne\n\nTwo\n<!-- lang: fr -->\nUn\n"),
        ("CRLF, no final newline", "---\r\ncategory: World\r\npublished: 2026-11-29T14:05:00Z\r\ntitle: T\r\n---\r\n<!-- lang: en -->\r\nOne\r\n\r\nTwo\r\n<!-- lang: fr -->\r\nUn"),
        ("BOM, lone and doubled CR", "\u{FEFF}---\ncategory: World\npublished: 2026-11-29T14:05:00Z\ntitle: T\n---\n<!-- lang: en -->\nOne\rstill one\r\r\n\nTwo\r\n<!-- lang: fr -->\nUn\r"),
        ("no markers, fence", "---\ncategory: World\npublished: 2026-11-29T14:05:00Z\ntitle: T\n---\nOne\n```\n<!-- lang: fr -->\n```\n"),
    ])
    func bodyRangesGiveTheParsedMarkdown(_ name: String, _ text: String) throws {
        let (story, problems) = Fixtures.parseStory(text)
        #expect(problems.isEmpty, "\(name): \(problems)")
        let s = try #require(story)
        let bytes = Array(text.utf8)
        for (code, body) in s.bodies {
            #expect(StoryBody.text(in: bytes, body.sourceRange) == body.text, "\(name), \(code)")
        }
        // The expected text, written out: each line of the section ends with \n; a CR before a line feed goes.
        switch name {
        case "LF": #expect(s.bodies["en"]?.markdown == "One\n\nTwo\n")
        case "CRLF, no final newline": #expect(s.bodies["fr"]?.markdown == "Un\n")
        case "BOM, lone and doubled CR":
            #expect(s.bodies["en"]?.markdown == "One\rstill one\r\n\nTwo\n")
            #expect(s.bodies["fr"]?.markdown == "Un\n")
        default: #expect(s.bodies["en"]?.markdown == "One\n```\n<!-- lang: fr -->\n```\n")
        }
    }

    /// YAML escapes can put control characters in any text field; each is reported where its value starts, and
    /// the story is refused (written out, they would corrupt its pages and feeds). Tab and line feed are text.
    @Test func controlCharactersInTextFieldsAreReportedWhereTheValueIs() {
        let (story, problems) = Fixtures.parseStory(#"""
        ---
        category: World
        published: 2026-11-29T14:05:00Z
        author: [Ana Ruiz, "Bell\a"]
        title: { en: "Red\x1b[31m alert", fr: "Tab\tand\nline feed are fine" }
        summary: "NUL\0here"
        correction: { en: "C1\x85 next line" }
        updated: 2026-11-29T15:00:00Z
        push: { text: "DEL\x7f" }
        image: "/a\rb.jpg"
        ---
        Body.
        """#)
        #expect(story == nil)
        #expect(problems.sorted().map(\.description) == [
            "content/world/quake.md:4:20: error: author contains the control character U+0007, which pages, feeds and phones cannot show; remove it",
            "content/world/quake.md:5:14: error: title.en contains the control character U+001B, which pages, feeds and phones cannot show; remove it",
            "content/world/quake.md:6:10: error: summary contains the control character U+0000, which pages, feeds and phones cannot show; remove it",
            "content/world/quake.md:7:19: error: correction.en contains the control character U+0085, which pages, feeds and phones cannot show; remove it",
            "content/world/quake.md:9:15: error: push.text contains the control character U+007F, which pages, feeds and phones cannot show; remove it",
            "content/world/quake.md:10:8: error: image contains the control character U+000D, which pages, feeds and phones cannot show; remove it",
        ])
    }

    /// Dates past the years 1900 to 9999 in the site's time zone (Paris) are refused where they are written: year
    /// 10000 in Paris cannot be in a URL or an RFC 3339 date, and before 1900 the pages' calendar is not the URLs'.
    @Test func datesOutsideTheYears1900To9999AreReported() {
        let (story, problems) = Fixtures.parseStory("""
        ---
        category: World
        published: 1582-10-10T12:00:00Z
        updated: 9999-12-31T23:59:59Z
        title: Out of range
        ---
        Body.
        """)
        #expect(story == nil)
        #expect(problems.map(\.description) == [
            "content/world/quake.md:3:12: error: invalid published date: \"1582-10-10T12:00:00Z\" is in the year 1582; dates must be in the years 1900 to 9999",
            "content/world/quake.md:4:10: error: invalid updated date: \"9999-12-31T23:59:59Z\" is in the year 10000 in the site's time zone (Europe/Paris); dates must be in the years 1900 to 9999",
        ])
    }

    /// Raw control characters (other than tab, line feed and carriage return) anywhere in the file are reported
    /// at their line and column, wherever they are in the word they are read in.
    @Test func rawControlCharactersAreReportedWhereTheyAre() {
        let head = "---\ncategory: World\npublished: 2026-11-29T14:05:00Z\ntitle: x\n---\n"
        for (control, name) in [("\u{1B}", "001B"), ("\u{7F}", "007F"), ("\u{85}", "0085"), ("\u{0C}", "000C"), ("\u{01}", "0001")] {
            for prefix in ["", "é", "abcdefghijklmnopq", "東京電 ab"] {
                let (story, problems) = Fixtures.parseStory(head + "Fine\ttext\r\n" + prefix + control + "[31mred\n")
                #expect(story == nil)
                let column = prefix.unicodeScalars.count + 1
                #expect(problems.map(\.description) == [
                    "content/world/quake.md:7:\(column): error: the file contains the control character U+\(name), which pages, feeds and phones cannot show; remove it",
                ], "\(name) after \(prefix)")
            }
        }
        // Neighbours that are not controls: U+00A0 (C2 A0), U+00C2 (C3 82), tab and CRLF.
        #expect(Fixtures.parseStory(head + "\u{A0}\u{C2}\tok\r\n").0 != nil)
        // The word-at-a-time scan agrees with a byte-by-byte one on every byte at every place in a word.
        for byte in UInt8(0)...UInt8(0x7F) {
            for place in 0..<17 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 17)
                bytes[place] = byte
                let expected = byte < 0x20 && byte != 9 && byte != 10 && byte != 13 || byte == 0x7F ? place : nil
                #expect(bytes.withUnsafeBufferPointer(StoryParser.firstControlCharacter) == expected, "\(byte) at \(place)")
            }
        }
    }

    @Test func aNulByteIsReportedOnItsLine() {
        let (_, problems) = Fixtures.parseStory("---\ncategory: World\ntitle: a\u{0}b\n---\nx\n")
        #expect(problems.map(\.description) == ["content/world/quake.md:3:1: error: the file contains a NUL character"])
    }
}

@Suite struct UTF8CheckTests {
    /// The in-place check agrees with the standard library's decoder on valid text, on every kind of invalid
    /// sequence, and on many random byte strings built from the bytes that matter.
    @Test func agreesWithTheStandardLibrary() {
        func check(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { StoryParser.isValidUTF8($0) } }
        var cases: [[UInt8]] = [
            [], Array("plain ASCII text, longer than eight bytes".utf8), Array("Élections à Paris 地震 😀".utf8),
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0x9F, 0xBF],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF5, 0x80, 0x80, 0x80],
            [0x80], [0xBF], [0xC2], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xFE], [0xFF],
            Array("12345678".utf8) + [0xE2, 0x82, 0xAC] + Array("12345678".utf8),
        ]
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        for _ in 0..<3000 {
            let length = Int.random(in: 0...12, using: &generator)
            cases.append((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
        }
        for bytes in cases {
            #expect(check(bytes) == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }
}

@Suite struct NameRuleTests {
    @Test func slugsAreLowercaseASCIIWithDashesAndUnderscores() {
        #expect(StoryParser.isCleanURLSegment("quake-off-coast_2"))
        #expect(!StoryParser.isCleanURLSegment("-quake"))
        #expect(!StoryParser.isCleanURLSegment(".quake"))
        #expect(!StoryParser.isCleanURLSegment("Quake"))
        #expect(!StoryParser.isCleanURLSegment("séisme"))
        #expect(!StoryParser.isCleanURLSegment("地震"))
        #expect(!StoryParser.isCleanURLSegment("a b"))
        #expect(!StoryParser.isCleanURLSegment(""))
        #expect(StoryParser.isCleanURLSegment(String(repeating: "a", count: 120)))
        #expect(!StoryParser.isCleanURLSegment(String(repeating: "a", count: 121)))
    }

    @Test func idsAreASCIILettersDigitsAndFewMarks() {
        #expect(StoryParser.isValidID("Quake-2026_11.29"))
        #expect(!StoryParser.isValidID(".quake"))
        #expect(!StoryParser.isValidID("-quake"))
        #expect(!StoryParser.isValidID("séisme"))
        #expect(!StoryParser.isValidID("a/b"))
        #expect(!StoryParser.isValidID(""))
        #expect(StoryParser.isValidID(String(repeating: "A", count: 100)))
        #expect(!StoryParser.isValidID(String(repeating: "A", count: 101)))
    }
}
