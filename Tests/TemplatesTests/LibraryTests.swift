import Foundation
import Templates
import Testing

private func render(_ text: String, _ context: TemplateValue, partials: [String: String] = [:]) throws -> String {
    var sources = ["main": TemplateSource(text: text, path: "main.mustache")]
    for (name, partial) in partials { sources[name] = TemplateSource(text: partial, path: "\(name).mustache") }
    return try TemplateLibrary(sources).render("main", context)
}

/// A news page: a layout with inheritance, a header and footer partial, and a list page that loops over stories.
enum PageTemplates {
    static let sources: [String: TemplateSource] = [
        "layout": TemplateSource(text: """
            <!DOCTYPE html>
            <html lang="{{language}}">
            <head>
              <meta charset="utf-8">
              <title>{{$title}}{{site.name}}{{/title}}</title>
            </head>
            <body>
              {{>header}}
              <main>
                {{$content}}
                <p>Nothing here.</p>
                {{/content}}
              </main>
              {{>footer}}
            </body>
            </html>

            """, path: "templates/layout.mustache"),
        "header": TemplateSource(text: """
            <header>
              <a href="/">{{site.name}}</a>
            </header>

            """, path: "templates/header.mustache"),
        "footer": TemplateSource(text: "<footer>© {{year}} {{site.name}}</footer>\n", path: "templates/footer.mustache"),
        "category": TemplateSource(text: """
            {{<layout}}
            {{$title}}{{category}} – {{site.name}}{{/title}}
            {{$content}}
                <h1>{{category}}</h1>
                <ul>
                  {{#stories}}
                  <li><a href="{{url}}">{{title}}</a>{{#breaking}} <b>Breaking</b>{{/breaking}}</li>
                  {{/stories}}
                </ul>
            {{/content}}
            {{/layout}}

            """, path: "templates/category.mustache"),
    ]

    static func context(stories count: Int, seed: Int = 0) -> TemplateValue {
        .object([
            "language": "en",
            "year": 2026,
            "site": ["name": "Daily <News>"],
            "category": .string("World \(seed)"),
            "stories": .list((0..<count).map { index in
                [
                    "url": .string("/world/story-\(seed)-\(index)/"),
                    "title": .string("Story \(index) of \"\(seed)\" & more"),
                    "breaking": .bool(index % 7 == 0),
                ]
            }),
        ])
    }
}

@Suite("Rendering")
struct RenderingTests {
    @Test func pageWithLayoutPartialsAndLoop() throws {
        let library = try TemplateLibrary(PageTemplates.sources)
        let output = try library.render("category", PageTemplates.context(stories: 2))
        #expect(output == """
            <!DOCTYPE html>
            <html lang="en">
            <head>
              <meta charset="utf-8">
              <title>World 0 – Daily &lt;News&gt;</title>
            </head>
            <body>
              <header>
                <a href="/">Daily &lt;News&gt;</a>
              </header>
              <main>
                <h1>World 0</h1>
                <ul>
                  <li><a href="/world/story-0-0/">Story 0 of &quot;0&quot; &amp; more</a> <b>Breaking</b></li>
                  <li><a href="/world/story-0-1/">Story 1 of &quot;0&quot; &amp; more</a></li>
                </ul>
              </main>
              <footer>© 2026 Daily &lt;News&gt;</footer>
            </body>
            </html>

            """)
        // The layout alone renders its block defaults.
        let layout = try library.render("layout", PageTemplates.context(stories: 0))
        print(layout)
        #expect(layout.contains("""
              <main>
                <p>Nothing here.</p>
              </main>
            """))
    }

    @Test func truthiness() throws {
        let template = "{{#v}}yes{{/v}}{{^v}}no{{/v}}"
        let cases: [(TemplateValue, String)] = [
            (.null, "no"), (false, "no"), (true, "yes"), ("", "no"), ("x", "yes"), (0, "yes"), (1.5, "yes"),
            ([], "no"), ([1], "yes"), ([:], "yes"),
        ]
        for (value, expected) in cases {
            #expect(try render(template, ["v": value]) == expected, "\(value)")
        }
        #expect(try render(template, [:]) == "no")
    }

    @Test func interpolationOfEveryKindOfValue() throws {
        let context: TemplateValue = [
            "int": 85, "negative": -3, "decimal": 1.21, "whole": 1.0, "big": 1e20, "flag": true, "off": false,
            "list": [1, "a", 2.5], "object": ["k": "v"], "nothing": nil, "quote": "it's <b>\"x\"</b> & co",
        ]
        #expect(try render("{{int}} {{negative}} {{decimal}} {{whole}} {{big}} {{flag}} {{off}} [{{list}}] [{{object}}] [{{nothing}}]", context)
            == "85 -3 1.21 1 1e+20 true false [1,a,2.5] [] []")
        #expect(try render("{{quote}}|{{{quote}}}|{{&quote}}", context)
            == "it&#39;s &lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; co|it's <b>\"x\"</b> & co|it's <b>\"x\"</b> & co")
        #expect(try render("{{.}}", "naïve 👍🏽 <ok>") == "naïve 👍🏽 &lt;ok&gt;")
    }

    /// Text handed over as UTF-8 bytes (rendered Markdown) renders exactly as the same text as a String: escaped,
    /// raw, indented by a standalone partial, truthy only when not empty, and in lists.
    @Test func utf8TextRendersLikeAString() throws {
        let text = "naïve 地震 <b>\"x\"</b> & it's\nline two"
        let template = "{{t}}|{{{t}}}|{{&t}}|{{#t}}yes{{/t}}{{^t}}no{{/t}}|{{#e}}yes{{/e}}{{^e}}no{{/e}}|{{l}}\n  {{>p}}\n"
        let partials = ["p": "[{{{t}}}]\n"]
        let asString = try render(template, ["t": .string(text), "e": .string(""), "l": .list([.string("a"), .string(text)])],
                                  partials: partials)
        let asBytes = try render(template, ["t": .utf8(Array(text.utf8)), "e": .utf8([]), "l": .list([.utf8([0x61]), .utf8(Array(text.utf8))])],
                                 partials: partials)
        #expect(asBytes == asString)
        #expect(asBytes.hasPrefix("naïve 地震 &lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; it&#39;s\nline two|naïve 地震 <b>"))
        #expect(TemplateValue.utf8(Array(text.utf8)).interpolatedText == text)
    }

    @Test func literals() {
        let value: TemplateValue = ["a": [1, 2.5, "s", true, nil], "a2": ["b": "c"]]
        #expect(value == .object([
            "a": .list([.number(1), .number(2.5), .string("s"), .bool(true), .null]),
            "a2": .object(["b": .string("c")]),
        ]))
    }

    @Test func standalonePartialIndentsEveryLineOfEveryIteration() throws {
        let output = try render("<ul>\n  {{#items}}\n  {{>item}}\n  {{/items}}\n</ul>\n", ["items": ["a", "b"]],
                                partials: ["item": "<li>\n  {{.}}\n</li>\n"])
        #expect(output == "<ul>\n  <li>\n    a\n  </li>\n  <li>\n    b\n  </li>\n</ul>\n")
    }

    @Test func indentationSkipsEmptyLinesAndInterpolatedNewlines() throws {
        let output = try render("<div>\n    {{>p}}\n</div>\n", ["body": "x\ny"], partials: ["p": "<p>\n\n{{body}}\n</p>\n"])
        #expect(output == "<div>\n    <p>\n\n    x\ny\n    </p>\n</div>\n")
    }

    @Test func nestedParentsAndBlocksAcrossLevels() throws {
        let sources: [String: String] = [
            "base": "<t>{{$title}}Base{{/title}}</t>\n<b>{{$body}}{{/body}}</b>\n",
            "article": "{{<base}}{{$body}}<h1>{{$title}}Article{{/title}}</h1>{{$text}}{{/text}}{{/body}}{{/base}}",
            "story": "{{<article}}{{$title}}Quake{{/title}}{{$text}}<p>{{lead}}</p>{{/text}}{{/article}}",
        ]
        let library = try TemplateLibrary(sources.mapValues { TemplateSource(text: $0, path: "") })
        #expect(try library.render("story", ["lead": "It shook."]) == "<t>Quake</t>\n<b><h1>Quake</h1><p>It shook.</p></b>\n")
        // Rendered alone, "article" overrides only `body`: the `title` inside it is a block of its own.
        #expect(try library.render("article", [:]) == "<t>Base</t>\n<b><h1>Article</h1></b>\n")
        #expect(library.names == ["article", "base", "story"])
        #expect(library.contains("story") && !library.contains("stories"))
    }

    @Test func missingPartialRendersEmpty() throws {
        #expect(try render("[{{>nope}}][{{<gone}}{{$a}}x{{/a}}{{/gone}}]", [:]) == "[][]")
    }

    @Test func contextStackAndDottedNames() throws {
        let context: TemplateValue = [
            "site": ["name": "Site", "url": "https://example.org"],
            "stories": [["title": "A", "site": ["name": "Override"]], ["title": "B"]],
        ]
        #expect(try render("{{#stories}}{{title}}@{{site.name}},{{site.url}};{{/stories}}", context)
            == "A@Override,;B@Site,https://example.org;")
    }
}

@Suite("Unresolved references")
struct UnresolvedReferenceTests {
    @Test func listsMissingPartialsAndParentsWithLocations() throws {
        let library = try TemplateLibrary([
            "layout": TemplateSource(text: "{{>header}}\n{{$content}}{{/content}}\n", path: "templates/layout.mustache"),
            "header": TemplateSource(text: "<h1>{{>logo}}</h1>", path: "templates/header.mustache"),
            "story": TemplateSource(
                text: "{{<layot}}\n{{$content}}\n  {{#related}}\n  {{>teaser}}\n  {{/related}}\n{{/content}}\n{{/layot}}\n",
                path: "templates/story.mustache"),
        ])
        #expect(library.unresolvedReferences().map(\.description) == [
            #"templates/header.mustache:1:5: error: partial "logo" in {{>logo}} is not a template in the library"#,
            #"templates/story.mustache:1:1: error: parent template "layot" in {{<layot}} is not a template in the library (did you mean "layout"?)"#,
            #"templates/story.mustache:4:3: error: partial "teaser" in {{>teaser}} is not a template in the library"#,
        ])
    }

    @Test func completeLibraryHasNone() throws {
        let library = try TemplateLibrary(PageTemplates.sources)
        #expect(library.unresolvedReferences() == [])
    }
}

@Suite("Concurrency and speed")
struct ConcurrencyTests {
    @Test func rendersFromManyTasksAtOnce() async throws {
        let library = try TemplateLibrary(PageTemplates.sources)
        let expected = try (0..<16).map { seed in
            try library.render("category", PageTemplates.context(stories: 30, seed: seed))
        }
        #expect(Set(expected).count == 16)
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<50 {
                        let seed = (task + round) % 16
                        let output = try? library.render("category", PageTemplates.context(stories: 30, seed: seed))
                        if output != expected[seed] { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func timeToRenderAPage10000Times() throws {
        let library = try TemplateLibrary(PageTemplates.sources)
        let context = PageTemplates.context(stories: 30)
        var bytes = 0
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            for _ in 0..<10_000 {
                bytes += try library.render("category", context).utf8.count
            }
        }
        print("Templates: rendered a layout + 30-item page 10,000 times in \(elapsed) (\(bytes / 10_000) bytes per page)")
        #expect(bytes > 0)
    }
}
