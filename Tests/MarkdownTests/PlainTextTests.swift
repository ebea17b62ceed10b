import Testing

@testable import Markdown

@Suite struct PlainTextTests {
    @Test func stripsMarkup() {
        let source = """
            # Quake hits *Tokyo*

            Hello **world**,   this is `code`.
            Next line\\
            hard break.

            - one
            - two

            > quoted

            <div>raw block</div>

            ![photo of the damage](x.png) "End"...

            ```
            let  x
            ```
            """
        #expect(
            Markdown.plainText(source)
                == "Quake hits Tokyo Hello world, this is code. Next line hard break. one two quoted “End”… let x")
    }

    @Test func collapsesUnicodeWhitespace() {
        #expect(Markdown.plainText("a\u{00A0}\u{3000} b\t\tc\n\n\n d  ") == "a b c d")
        #expect(Markdown.plainText("  \n\n  ") == "")
    }

    @Test func limitLatin() {
        let text = "The quick brown fox jumps over the lazy dog"
        #expect(Markdown.plainText(text, limit: 12) == "The quick…")
        #expect(Markdown.plainText(text, limit: 16) == "The quick brown…")  // cut falls exactly on a space
        #expect(Markdown.plainText(text, limit: 43) == text)  // exactly the limit: not cut
        #expect(Markdown.plainText(text, limit: 42) == "The quick brown fox jumps over the lazy…")
        #expect(Markdown.plainText(text, limit: 1000) == text)
        #expect(Markdown.plainText("*Élections* à Paris, dimanche soir", limit: 21) == "Élections à Paris…")
        #expect(Markdown.plainText("Supercalifragilistic", limit: 8) == "Superca…")
        #expect(Markdown.plainText(text, limit: 1) == "…")
        #expect(Markdown.plainText(text, limit: 0) == "")
        #expect(Markdown.plainText(text, limit: -5) == "")
        #expect(Markdown.plainText("", limit: 5) == "")
    }

    @Test func limitNeverExceeded() {
        let text = "Un séisme de magnitude 7,1 a frappé le centre du Japon, selon l'agence météorologique."
        for limit in 1...90 {
            let cut = Markdown.plainText(text, limit: limit)
            #expect(cut.count <= limit, "limit \(limit): \(cut)")
        }
    }

    @Test func limitCJK() {
        let text = "東京で震度５強の地震が発生しました。津波の心配はありません。"
        #expect(Markdown.plainText(text, limit: 10) == "東京で震度５強の地…")
        #expect(Markdown.plainText(text, limit: 30) == text)
        // Mixed: the CJK edge is a boundary, so the Latin word is not split.
        #expect(Markdown.plainText("地震 Magnitude 7", limit: 8) == "地震…")
        #expect(Markdown.plainText("東京Tokyo大阪Osaka", limit: 9) == "東京Tokyo大…")
    }

    @Test func limitTrimsTrailingPunctuation() {
        #expect(Markdown.plainText("Tokyo, Japan is big", limit: 8) == "Tokyo…")
        #expect(Markdown.plainText("地震、津波、停電", limit: 4) == "地震…")
    }

    @Test func graphemesAreNotSplit() {
        #expect(Markdown.plainText("e\u{301}e\u{301}e\u{301}e\u{301}", limit: 3) == "e\u{301}e\u{301}…")
        #expect(Markdown.plainText("👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧", limit: 2) == "👨‍👩‍👧…")
    }
}
