import Testing

@testable import Markdown

/// Plain CommonMark constructs: the output must be exactly cmark's.
@Suite struct BasicRenderingTests {
    @Test func paragraphsAndEmphasis() {
        let out = Markdown.render("Hello *world* and **everyone**.\n\nSecond paragraph\ncontinues here.")
        #expect(
            out.html
                == "<p>Hello <em>world</em> and <strong>everyone</strong>.</p>\n<p>Second paragraph\ncontinues here.</p>\n"
        )
        #expect(out.headings.isEmpty)
    }

    @Test func lists() {
        #expect(Markdown.render("- one\n- two\n").html == "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n")
        #expect(Markdown.render("1. one\n2. two\n").html == "<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n")
        #expect(
            Markdown.render("- one\n\n- two\n").html
                == "<ul>\n<li>\n<p>one</p>\n</li>\n<li>\n<p>two</p>\n</li>\n</ul>\n")
    }

    @Test func blockquote() {
        #expect(
            Markdown.render("> Quoted *text*\n> more").html
                == "<blockquote>\n<p>Quoted <em>text</em>\nmore</p>\n</blockquote>\n")
    }

    @Test func codeSpansAndFencedCode() {
        #expect(Markdown.render("Use `a < b && c`.").html == "<p>Use <code>a &lt; b &amp;&amp; c</code>.</p>\n")
        #expect(
            Markdown.render("```swift\nlet x = \"<y>\" -- z...\n```\n").html
                == "<pre><code class=\"language-swift\">let x = &quot;&lt;y&gt;&quot; -- z...\n</code></pre>\n")
        #expect(Markdown.render("    indented\n").html == "<pre><code>indented\n</code></pre>\n")
    }

    @Test func linksAndImages() {
        #expect(
            Markdown.render("[site](https://example.com/a?b=1&c=2 \"Title\") ![pic](/img/q.jpg)").html
                == "<p><a href=\"https://example.com/a?b=1&amp;c=2\" title=\"Title\">site</a> <img src=\"/img/q.jpg\" alt=\"pic\" /></p>\n"
        )
    }

    @Test func emptyInput() {
        let out = Markdown.render("")
        #expect(out.html == "")
        #expect(out.headings.isEmpty)
        #expect(Markdown.plainText("") == "")
    }

    @Test func cjkParagraphsRoundTrip() {
        let source = "東京で震度５強の地震が発生しました。\n\n気象庁によると、津波の心配はありません。\n\n서울에서도 흔들림이 감지되었습니다."
        #expect(
            Markdown.render(source).html
                == "<p>東京で震度５強の地震が発生しました。</p>\n<p>気象庁によると、津波の心配はありません。</p>\n<p>서울에서도 흔들림이 감지되었습니다.</p>\n"
        )
    }

    @Test func nulBytesBecomeReplacementCharacter() {
        let out = Markdown.render("a\u{0}b\n\n## x\u{0}y")
        // U+FFFD is a symbol, not a letter: it separates words in the id.
        #expect(out.html == "<p>a\u{FFFD}b</p>\n<h2 id=\"x-y\">x\u{FFFD}y</h2>\n")
    }
}

@Suite struct SmartPunctuationTests {
    let source = "\"Quotes\" and 'single' -- it's 1990--2000 --- and so on..."

    @Test func onByDefault() {
        #expect(
            Markdown.render(source).html
                == "<p>“Quotes” and ‘single’ – it’s 1990–2000 — and so on…</p>\n")
    }

    @Test func off() {
        #expect(
            Markdown.render(source, options: .init(smartPunctuation: false)).html
                == "<p>&quot;Quotes&quot; and 'single' -- it's 1990--2000 --- and so on...</p>\n")
    }

    @Test func optionsDefaults() {
        let options = MarkdownOptions()
        #expect(options.smartPunctuation == true)
        #expect(options.allowRawHTML == false)
    }
}
