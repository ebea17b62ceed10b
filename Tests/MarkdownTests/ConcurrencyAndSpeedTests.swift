import Testing

@testable import Markdown

enum Fixtures {
    /// A story body of 600 words: headings (some duplicated), emphasis, links, a list, a quote, code.
    static let body600: String = {
        let words = [
            "the", "quake", "struck", "early", "on", "Monday", "near", "Tokyo", "officials", "said", "trains",
            "stopped", "and", "power", "was", "cut", "in", "several", "districts", "while", "rescue", "teams",
        ]
        var parts: [String] = []
        var count = 0
        var paragraph = 0
        while count < 600 {
            if paragraph % 4 == 0 { parts.append("## Update \(paragraph / 8) -- \"latest\"\n") }
            var sentence: [String] = []
            for index in 0..<40 where count < 600 {
                var word = words[(index * 7 + paragraph) % words.count]
                if index == 5 { word = "*\(word)*" }
                if index == 12 { word = "[\(word)](https://example.com/\(paragraph))" }
                if index == 20 { word = "`\(word)`" }
                sentence.append(word)
                count += 1
            }
            parts.append(sentence.joined(separator: " ") + "...\n")
            if paragraph == 3 { parts.append("- first item\n- second item\n") }
            if paragraph == 6 { parts.append("> A quoted official said it's \"fine\".\n") }
            paragraph += 1
        }
        return parts.joined(separator: "\n")
    }()
}

@Suite struct ConcurrencyTests {
    @Test func manyTasksRenderIdentically() async {
        let source = Fixtures.body600 + "\n\n# 地震 最新\n\n## Élections à Paris\n\n<b>raw</b> [x](javascript:y)\n"
        let expected = Markdown.render(source)
        let expectedUnsafe = Markdown.render(source, options: .init(allowRawHTML: true))
        #expect(expected.headings.count > 5)
        let results = await withTaskGroup(of: (RenderedMarkdown, RenderedMarkdown, String).self) { group in
            for _ in 0..<200 {
                group.addTask {
                    (
                        Markdown.render(source), Markdown.render(source, options: .init(allowRawHTML: true)),
                        Markdown.plainText(source, limit: 160)
                    )
                }
            }
            var all: [(RenderedMarkdown, RenderedMarkdown, String)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 200)
        let expectedPlain = Markdown.plainText(source, limit: 160)
        for (safe, unsafe, plain) in results {
            #expect(safe == expected)
            #expect(unsafe == expectedUnsafe)
            #expect(plain == expectedPlain)
        }
    }
}

@Suite struct SpeedReport {
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Prints, does not assert: time for 10,000 renders of a 600-word body, against plain
    /// `cmark_markdown_to_html` (+ the same conversion to a Swift String) on the same input. The two run in
    /// alternating batches of 500 so that load from other processes hits both alike; the best batch of each
    /// is the least disturbed estimate.
    @Test func renderTimeAgainstPlainCmark() {
        let source = Fixtures.body600
        let words = source.split(whereSeparator: { $0 == " " || $0 == "\n" }).count
        let headings = Markdown.render(source).headings.count
        let batches = 20
        let batchSize = 500
        let clock = ContinuousClock()
        var sink = 0
        var totalCmark = 0.0
        var totalOurs = 0.0
        var bestCmark = Double.infinity
        var bestOurs = Double.infinity
        for _ in 0..<batches {
            let cmark = Self.seconds(
                clock.measure { for _ in 0..<batchSize { sink &+= Markdown.cmarkOnlyHTML(source).utf8.count } })
            let ours = Self.seconds(
                clock.measure { for _ in 0..<batchSize { sink &+= Markdown.render(source).html.utf8.count } })
            totalCmark += cmark
            totalOurs += ours
            bestCmark = min(bestCmark, cmark / Double(batchSize))
            bestOurs = min(bestOurs, ours / Double(batchSize))
        }
        func micro(_ seconds: Double) -> String { "\((seconds * 10_000_000).rounded() / 10) µs" }
        func percent(_ ratio: Double) -> String { "\(((ratio - 1) * 1000).rounded() / 10)%" }
        #if DEBUG
            let build = "debug build"
        #else
            let build = "release build"
        #endif
        print(
            """
            [Markdown speed, \(build)] \(words) words, \(source.utf8.count) bytes, \(headings) headings, \
            \(batches * batchSize) renders each:
              cmark_markdown_to_html: total \((totalCmark * 1000).rounded()) ms, best batch \(micro(bestCmark)) per body
              Markdown.render:        total \((totalOurs * 1000).rounded()) ms, best batch \(micro(bestOurs)) per body
              overhead of ids etc.:   \(percent(totalOurs / totalCmark)) on totals, \(percent(bestOurs / bestCmark)) on best batches
            """)
        #expect(sink > 0)
    }
}
