import Testing
import TestSupport

@testable import Markdown

@Suite struct RawHTMLTests {
    let unsafe = MarkdownOptions(allowRawHTML: true)

    @Test func blockOmittedByDefault() {
        let source = "<div class=\"box\">\n<b>hi</b>\n</div>\n\nAfter."
        #expect(Markdown.render(source).html == "<!-- raw HTML omitted -->\n<p>After.</p>\n")
        #expect(
            Markdown.render(source, options: unsafe).html == "<div class=\"box\">\n<b>hi</b>\n</div>\n<p>After.</p>\n")
    }

    @Test func inlineOmittedByDefault() {
        let source = "a <span class=\"x\">b</span> <!-- c --> d"
        #expect(
            Markdown.render(source).html
                == "<p>a <!-- raw HTML omitted -->b<!-- raw HTML omitted --> <!-- raw HTML omitted --> d</p>\n")
        #expect(Markdown.render(source, options: unsafe).html == "<p>a <span class=\"x\">b</span> <!-- c --> d</p>\n")
    }

    @Test func scriptBlock() {
        let source = "<script>alert(1)</script>\n\ntext"
        #expect(Markdown.render(source).html == "<!-- raw HTML omitted -->\n<p>text</p>\n")
        #expect(Markdown.render(source, options: unsafe).html == "<script>alert(1)</script>\n<p>text</p>\n")
    }

    @Test func rawHTMLInsideHeading() {
        let source = "## Hi <span>there</span>\n"
        #expect(
            Markdown.render(source).html
                == "<h2 id=\"hi-there\">Hi <!-- raw HTML omitted -->there<!-- raw HTML omitted --></h2>\n")
        #expect(Markdown.render(source, options: unsafe).html == "<h2 id=\"hi-there\">Hi <span>there</span></h2>\n")
        #expect(Markdown.render(source, options: unsafe).headings.map(\.text) == ["Hi there"])
    }

    @Test func rawHeadingTagsAreNotMistakenForHeadings() {
        let source = "<h2>raw</h2>\n\n## Real\n\ntext <h3>inline</h3>"
        #expect(
            Markdown.render(source, options: unsafe).html
                == "<h2>raw</h2>\n<h2 id=\"real\">Real</h2>\n<p>text <h3>inline</h3></p>\n")
        #expect(Markdown.render(source, options: unsafe).headings.map(\.id) == ["real"])
    }

    @Test func rawHTMLIsTheOnlyDifferenceBetweenModes() {
        // Without raw HTML in the input the two modes render identically.
        let source = "# T\n\n*a* [b](https://x.org) `<c>` &amp; &lt;d&gt;\n\n    <e>\n"
        #expect(Markdown.render(source).html == Markdown.render(source, options: unsafe).html)
        #expect(
            Markdown.render(source).html
                == "<h1 id=\"t\">T</h1>\n<p><em>a</em> <a href=\"https://x.org\">b</a> <code>&lt;c&gt;</code> &amp; &lt;d&gt;</p>\n<pre><code>&lt;e&gt;\n</code></pre>\n"
        )
    }
}

@Suite struct DangerousURLTests {
    static let dangerous = [
        "javascript:alert(1)", "JavaScript:alert(1)", "JAVASCRIPT:x", "java&#115;cript:alert(1)",
        "vbscript:msgbox(1)", "VBScript:x", "file:///etc/passwd", "FILE:x", "data:text/html;base64,PHNjcmlwdD4=",
        "DATA:text/html,x", "data:image/svg+xml,%3Csvg%20onload=alert(1)%3E", "data:",
    ]
    static let harmless = [
        "https://example.com/a", "http://x.org", "mailto:desk@example.com", "/relative/path", "#section",
        "data:image/png;base64,iVBO", "data:image/gif;base64,R0lG", "data:image/jpeg;base64,/9j/",
        "data:image/webp;base64,UklG", "DATA:IMAGE/PNG;base64,iVBO", "javascript", "my-javascript:x",
    ]

    @Test(arguments: [MarkdownOptions(), MarkdownOptions(allowRawHTML: true)])
    func javascriptLinkNeutralised(options: MarkdownOptions) {
        #expect(
            Markdown.render("[click](javascript:alert(1))", options: options).html == "<p><a href=\"\">click</a></p>\n")
        #expect(
            Markdown.render("![x](javascript:alert(1) \"t\")", options: options).html
                == "<p><img src=\"\" alt=\"x\" title=\"t\" /></p>\n")
        #expect(
            Markdown.render("## [Go](javascript:alert(1))", options: options).html
                == "<h2 id=\"go\"><a href=\"\">Go</a></h2>\n")
        #expect(
            Markdown.render("<javascript:alert(1)>", options: options).html
                == "<p><a href=\"\">javascript:alert(1)</a></p>\n")
        #expect(
            Markdown.render("[r]\n\n[r]: javascript:alert(1)", options: options).html
                == "<p><a href=\"\">r</a></p>\n")
    }

    /// Both modes must empty exactly the URLs cmark's safe mode empties.
    @Test(arguments: dangerous + harmless)
    func sameRuleAsCmarkSafeMode(url: String) {
        let source = "[l](<\(url)>) ![i](<\(url)>)"
        let safe = Markdown.render(source).html
        let raw = Markdown.render(source, options: .init(allowRawHTML: true)).html
        #expect(safe == Markdown.cmarkOnlyHTML(source))
        if Self.dangerous.contains(url) {
            #expect(safe == "<p><a href=\"\">l</a> <img src=\"\" alt=\"i\" /></p>\n")
        } else {
            #expect(!safe.contains("href=\"\""))
        }
        #expect(raw == safe)
    }

    @Test func dangerousURLRule() {
        for url in Self.dangerous where !url.contains("&") {
            #expect(url.withCString { Markdown.isDangerousURL($0) }, "\(url)")
        }
        for url in Self.harmless {
            #expect(!url.withCString { Markdown.isDangerousURL($0) }, "\(url)")
        }
        #expect(!"".withCString { Markdown.isDangerousURL($0) })
    }
}

/// Deterministic pseudo-random input: any input renders without crashing, and apart from the ids the output
/// is exactly cmark's.
@Suite struct GarbageInputTests {
    /// Removes ` id="…"` from heading start tags (in safe mode no other `<hN id="` can appear in the output).
    static func strippingIDs(_ html: String) -> String {
        var bytes = Array(html.utf8)
        var index = 0
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        let marker = Array(" id=\"".utf8)
        while index < bytes.count {
            if index >= 3, bytes[index - 3] == UInt8(ascii: "<"), bytes[index - 2] == UInt8(ascii: "h"),
                (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[index - 1]),
                bytes[index...].starts(with: marker)
            {
                index += marker.count
                while index < bytes.count && bytes[index] != UInt8(ascii: "\"") { index += 1 }
                index += 1
                continue
            }
            output.append(bytes[index])
            index += 1
        }
        bytes = output
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func randomInputs() {
        var random = SplitMix64(seed: 42)
        let alphabet: [String] = [
            "#", "## ", "\n", "\n\n", " ", "*", "_", "`", "```", "[", "]", "(", ")", "<", ">", "!", "-", "=", "\"", "'",
            "&", ";", "\\", "|", "\u{0}", "é", "地震", "\u{301}", "\u{0D4E}", "javascript:", "<div>", "</h2>", "<h2>",
            "a", "word", "1.", "> ", "    ", "\t", "\r", "\u{FEFF}", "\u{200D}", "🔥",
        ]
        for _ in 0..<2_000 {
            let length = Int(random.next() % 60)
            let source = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
            let out = Markdown.render(source)
            #expect(Self.strippingIDs(out.html) == Markdown.cmarkOnlyHTML(source), "\(source.debugDescription)")
            #expect(Set(out.headings.map(\.id)).count == out.headings.count)
            _ = Markdown.render(source, options: .init(smartPunctuation: false, allowRawHTML: true))
            _ = Markdown.plainText(source, limit: Int(random.next() % 20))
        }
    }

    @Test func randomBytes() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<500 {
            let bytes = (0..<Int(random.next() % 200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let source = String(decoding: bytes, as: UTF8.self)
            let out = Markdown.render(source)
            #expect(Self.strippingIDs(out.html) == Markdown.cmarkOnlyHTML(source))
        }
    }
}
