import Testing

@testable import Markdown

@Suite struct HeadingIDTests {
    @Test func simpleHeading() {
        let out = Markdown.render("# Breaking news\n\nText.\n\nSub title\n---------\n")
        #expect(
            out.html
                == "<h1 id=\"breaking-news\">Breaking news</h1>\n<p>Text.</p>\n<h2 id=\"sub-title\">Sub title</h2>\n")
        #expect(
            out.headings == [
                MarkdownHeading(level: 1, text: "Breaking news", id: "breaking-news"),
                MarkdownHeading(level: 2, text: "Sub title", id: "sub-title"),
            ])
    }

    @Test func allLevels() {
        let out = Markdown.render("# a\n## b\n### c\n#### d\n##### e\n###### f\n")
        #expect(
            out.html
                == "<h1 id=\"a\">a</h1>\n<h2 id=\"b\">b</h2>\n<h3 id=\"c\">c</h3>\n<h4 id=\"d\">d</h4>\n<h5 id=\"e\">e</h5>\n<h6 id=\"f\">f</h6>\n"
        )
        #expect(out.headings.map(\.level) == [1, 2, 3, 4, 5, 6])
    }

    @Test func frenchAccents() {
        let out = Markdown.render("## Élections à Paris : l'été\n")
        #expect(out.html == "<h2 id=\"élections-à-paris-l-été\">Élections à Paris : l’été</h2>\n")
        #expect(out.headings.first?.text == "Élections à Paris : l’été")
        #expect(Markdown.headingID(for: "Élections à Paris") == "élections-à-paris")
        // Decomposed accents (e + U+0301) stay with their letter instead of splitting the word.
        #expect(Markdown.headingID(for: "E\u{301}te\u{301}") == "e\u{301}te\u{301}")
    }

    @Test func cjk() {
        let out = Markdown.render("# 地震 最新\n\n## 東京・大阪で停電\n\n## 서울 뉴스\n")
        #expect(
            out.html
                == "<h1 id=\"地震-最新\">地震 最新</h1>\n<h2 id=\"東京-大阪で停電\">東京・大阪で停電</h2>\n<h2 id=\"서울-뉴스\">서울 뉴스</h2>\n"
        )
    }

    @Test func punctuationAndDigits() {
        #expect(Markdown.headingID(for: "  --Hello,   World!!--  ") == "hello-world")
        #expect(Markdown.headingID(for: "COVID-19: 2024 update") == "covid-19-2024-update")
        #expect(Markdown.headingID(for: "snake_case & more") == "snake-case-more")
        #expect(Markdown.headingID(for: "Ελλάδα ΣΕΙΣΜΟΣ") == "ελλάδα-σεισμοσ")
        #expect(Markdown.headingID(for: "🔥 Live 🔥") == "live")
        #expect(Markdown.headingID(for: "") == "section")
        // Scripts whose words need marks or joiners: vowel signs (Hindi), ZWNJ (Persian).
        #expect(Markdown.headingID(for: "भारत समाचार") == "भारत-समाचार")
        #expect(Markdown.headingID(for: "می\u{200C}خواهم، خبر") == "می\u{200C}خواهم-خبر")
        #expect(Markdown.headingID(for: "İstanbul ½ Ⅻ") == "i\u{307}stanbul-½-ⅻ")
        #expect(Markdown.headingID(for: "\u{301}x \u{200D}y") == "x-y")  // no mark or joiner starts a word
    }

    @Test func punctuationOnlyHeadingIsSection() {
        let out = Markdown.render("## ?!\n\n## ★ ★\n\n#\n", options: .init(smartPunctuation: false))
        #expect(out.html == "<h2 id=\"section\">?!</h2>\n<h2 id=\"section-1\">★ ★</h2>\n<h1 id=\"section-2\"></h1>\n")
    }

    @Test func duplicates() {
        let out = Markdown.render("## News\n\n## news\n\n## NEWS!\n")
        #expect(out.html == "<h2 id=\"news\">News</h2>\n<h2 id=\"news-1\">news</h2>\n<h2 id=\"news-2\">NEWS!</h2>\n")
        #expect(out.headings.map(\.id) == ["news", "news-1", "news-2"])
    }

    @Test func suffixNeverCollidesWithAnotherHeadingsNaturalID() {
        // "X 1" has natural id "x-1", so the second "X" must skip it, whatever the order.
        #expect(Markdown.render("## X\n## X\n## X 1\n").headings.map(\.id) == ["x", "x-2", "x-1"])
        #expect(Markdown.render("## X 1\n## X\n## X\n").headings.map(\.id) == ["x-1", "x", "x-2"])
        #expect(Markdown.render("## X\n## X 1\n## X 1\n## X\n").headings.map(\.id) == ["x", "x-1", "x-1-1", "x-2"])
        #expect(
            Markdown.render("## X\n## X\n## X 1\n").html
                == "<h2 id=\"x\">X</h2>\n<h2 id=\"x-2\">X</h2>\n<h2 id=\"x-1\">X 1</h2>\n")
    }

    @Test func idsAreUniqueInLargeDocuments() {
        let names = ["A", "a", "A 1", "a-2", "A", "a 1", "A", "B", "b-1", "B"]
        let source = (0..<50).map { "## \(names[$0 % names.count])\n" }.joined()
        let ids = Markdown.render(source).headings.map(\.id)
        #expect(ids.count == 50)
        #expect(Set(ids).count == 50)
        #expect(ids == Markdown.render(source).headings.map(\.id))  // stable
    }

    @Test func headingsWithInlineMarkup() {
        let out = Markdown.render("## The *big* `quake` in [Tokyo](https://example.com/t) ![map](m.png)\n")
        #expect(
            out.html
                == "<h2 id=\"the-big-quake-in-tokyo\">The <em>big</em> <code>quake</code> in <a href=\"https://example.com/t\">Tokyo</a> <img src=\"m.png\" alt=\"map\" /></h2>\n"
        )
        #expect(
            out.headings == [MarkdownHeading(level: 2, text: "The big quake in Tokyo", id: "the-big-quake-in-tokyo")])
    }

    @Test func headingsInsideContainers() {
        let out = Markdown.render("> ## Quoted\n\n- ### In a list\n")
        #expect(
            out.html
                == "<blockquote>\n<h2 id=\"quoted\">Quoted</h2>\n</blockquote>\n<ul>\n<li>\n<h3 id=\"in-a-list\">In a list</h3>\n</li>\n</ul>\n"
        )
    }

    @Test func multiLineSetextHeadingText() {
        let out = Markdown.render("Two\nlines\n===\n")
        #expect(out.html == "<h1 id=\"two-lines\">Two\nlines</h1>\n")
        #expect(out.headings.first?.text == "Two lines")
    }

    @Test func idNeverContainsMarkupCharacters() {
        // U+0D4E is a "prepended" letter: it forms one grapheme with the quote that follows it.
        let plain = Markdown.render("## \u{0D4E}\"><script>x</script>\n", options: .init(smartPunctuation: false))
        #expect(
            plain.html
                == "<h2 id=\"\u{0D4E}-x\">\u{0D4E}&quot;&gt;<!-- raw HTML omitted -->x<!-- raw HTML omitted --></h2>\n")
        // The same with a curly quote: not a letter, so not in the id either.
        let smart = Markdown.render("## \u{0D4E}\"><script>x</script>\n")
        #expect(
            smart.html
                == "<h2 id=\"\u{0D4E}-x\">\u{0D4E}”&gt;<!-- raw HTML omitted -->x<!-- raw HTML omitted --></h2>\n")
        #expect(Markdown.headingID(for: "\u{0D4E}'&<a b=c>#?/") == "\u{0D4E}-a-b-c")
    }
}

@Suite struct DeepAndLargeInputTests {
    @Test func deeplyNestedBlockQuotes() {
        let depth = 20_000
        let out = Markdown.render(String(repeating: ">", count: depth) + " ## Deep\n")
        #expect(out.headings == [MarkdownHeading(level: 2, text: "Deep", id: "deep")])
        #expect(out.html.hasSuffix("<h2 id=\"deep\">Deep</h2>\n" + String(repeating: "</blockquote>\n", count: depth)))
    }

    @Test func deeplyNestedInlines() {
        let source = "## " + String(repeating: "*[", count: 5_000) + "x" + String(repeating: "](u)*", count: 5_000)
        let out = Markdown.render(source, options: .init(allowRawHTML: true))
        #expect(out.headings.count == 1)
        let sameAsCmark = GarbageInputTests.strippingIDs(Markdown.render(source).html) == Markdown.cmarkOnlyHTML(source)
        #expect(sameAsCmark)  // (a Bool: the strings are too long to print)
        let text = Markdown.plainText(source)
        let textLooksRight = text.hasPrefix("[[[[") && text.hasSuffix("](u)](u)") && !text.contains("*")
        #expect(textLooksRight)  // every "*" became emphasis, the brackets stay text
    }

    @Test func manyDuplicateHeadings() {
        let out = Markdown.render(String(repeating: "## Same\n", count: 5_000) + "## Same 1\n")
        let ids = out.headings.map(\.id)
        #expect(ids.count == 5_001)
        #expect(Set(ids).count == 5_001)
        #expect(ids[0] == "same" && ids[1] == "same-2" && ids[2] == "same-3" && ids[5_000] == "same-1")
    }
}
