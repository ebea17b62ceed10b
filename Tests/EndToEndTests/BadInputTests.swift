import Foundation
import Testing
import TestSupport

/// One fixture per kind of bad input: each must print its message, exit 1, and leave the previous site untouched.
@Suite struct BadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var file: String
        var content: String
        var expected: [String]
        var testDescription: String { name }
    }

    static let header = "---\ncategory: World\npublished: 2026-11-29T10:00:00Z\ntitle: Fine\n---\n"

    static let cases: [Case] = [
        Case(name: "YAML syntax", file: "content/world/bad.md", content: "---\ntitle: [oops\ncategory: World\n---\nx\n",
             expected: ["content/world/bad.md:3:9: error: expected ',' or ']' in the flow list '[' opened at 2:8"]),
        Case(name: "missing key", file: "content/world/bad.md", content: "---\ncategory: World\ntitle: x\n---\nx\n",
             expected: ["content/world/bad.md:2:1: error: missing required field \"published\""]),
        Case(name: "unknown key", file: "content/world/bad.md", content: "---\ncategory: World\npublished: 2026-11-29T10:00:00Z\ntitle: x\nbreakng: true\n---\nx\n",
             expected: ["content/world/bad.md:5:1: error: unknown key \"breakng\"", "did you mean \"breaking\"?"]),
        Case(name: "unknown category", file: "content/world/bad.md", content: "---\ncategory: Wrld\npublished: 2026-11-29T10:00:00Z\ntitle: x\n---\nx\n",
             expected: ["content/world/bad.md:2:11: error: unknown category \"Wrld\" (known: World, Sports; did you mean \"World\"?)"]),
        Case(name: "unknown language", file: "content/world/bad.md", content: header + "<!-- lang: de -->\nHallo\n",
             expected: ["content/world/bad.md:6:1: error: unknown language \"de\" (known: en, fr, zh-Hans) in a body marker"]),
        Case(name: "language twice", file: "content/world/bad.md", content: header + "<!-- lang: en -->\nA\n<!-- lang: en -->\nB\n",
             expected: ["content/world/bad.md:8:1: error: a second body for en (the first starts at line 6)"]),
        Case(name: "invalid date", file: "content/world/bad.md", content: "---\ncategory: World\npublished: 2026-13-01T10:00:00Z\ntitle: x\n---\nx\n",
             expected: ["content/world/bad.md:3:12: error: invalid published date: \"2026-13-01T10:00:00Z\" is not a calendar date"]),
        Case(name: "duplicate id", file: "content/world/bad.md", content: "---\nid: quake-off-coast\ncategory: World\npublished: 2026-11-29T10:00:00Z\ntitle: x\n---\nx\n",
             expected: ["error: duplicate story id \"quake-off-coast\""]),
        Case(name: "duplicate slug", file: "content/sports/quake.md", content: header + "x\n",
             expected: ["error: duplicate slug \"quake\""]),
        Case(name: "slug leaving the output", file: "content/world/..md", content: header + "x\n",
             expected: ["content/world/..md:1:1: error: the file name gives the slug \".\", which is not a clean URL segment"]),
        Case(name: "invalid UTF-8", file: "content/world/bad.md", content: "",
             expected: ["content/world/bad.md:4:9: error: the file is not valid UTF-8 (byte 0xFF); save it as UTF-8"]),
        Case(name: "control character", file: "content/world/bad.md",
             content: "---\ncategory: World\npublished: 2026-11-29T10:00:00Z\ntitle: \"Breaking\\x1b[2J\"\n---\nx\n",
             expected: ["content/world/bad.md:4:8: error: title contains the control character U+001B, which pages, feeds and phones cannot show; remove it"]),
        Case(name: "date past 9999 in the site's zone", file: "content/world/bad.md",
             content: "---\ncategory: World\npublished: 9999-12-31T23:59:59Z\ntitle: x\n---\nx\n",
             expected: ["content/world/bad.md:3:12: error: invalid published date: \"9999-12-31T23:59:59Z\" is in the year 10000 in the site's time zone (Europe/Paris); dates must be in the years 1900 to 9999"]),
        Case(name: "empty body", file: "content/world/bad.md", content: header + "<!-- lang: en -->\n\n<!-- lang: fr -->\nTexte\n",
             expected: ["content/world/bad.md:6:1: error: the en body is empty"]),
        Case(name: "template error", file: "templates/story.mustache", content: "{{<layout}}\n{{$main}}\n{{#story}}{{title}}\n{{/main}}\n{{/layout}}\n",
             expected: ["templates/story.mustache:"]),
        Case(name: "missing partial", file: "templates/front.mustache", content: "{{>partials/nope}}\n",
             expected: ["templates/front.mustache:1:1:", "partials/nope"]),
        Case(name: "config error", file: "newsgen.yml", content: BuildFixtures.config.replacingOccurrences(of: "timezone: Europe/Paris", with: "timezone: Mars/Olympus"),
             expected: ["newsgen.yml:3:11: error: unknown time zone \"Mars/Olympus\""]),
    ]

    @Test(arguments: cases) func reportsAndLeavesThePreviousSiteUntouched(_ item: Case) throws {
        let site = try BuildFixtures.site()
        let first = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(first.status == 0, "\(first.standardError)")
        let before = site.snapshot()
        if item.name == "invalid UTF-8" {
            var bytes = Data("---\ncategory: World\npublished: 2026-11-29T10:00:00Z\ntitle: x".utf8)
            bytes.append(contentsOf: [0xFF, 0x0A])
            bytes.append(Data("---\nx\n".utf8))
            try site.write(item.file, bytes)
        } else {
            try site.write(item.file, item.content)
        }
        let result = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 1)
        for text in item.expected { #expect(result.standardError.contains(text), "stderr: \(result.standardError)") }
        #expect(result.standardError.contains("nothing was written"))
        #expect(site.snapshot() == before)
        #expect(!site.exists("site/.newsgen-staging"))
        // check reports the same problem.
        let check = try newsgen(["check"], in: site, environment: BuildFixtures.now)
        #expect(check.status == 1)
        #expect(check.standardError == result.standardError)
    }

    @Test func everyErrorIsReportedNotJustTheFirst() throws {
        let site = try BuildFixtures.site()
        try site.write("content/world/a.md", "---\ncategory: Wrld\npublished: 2026-11-29T10:00:00Z\ntitle: x\n---\nx\n")
        try site.write("content/world/b.md", "---\ncategory: World\npublished: yesterday\ntitle: x\n---\nx\n")
        let result = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 1)
        #expect(result.standardError.contains("content/world/a.md:2:11"))
        #expect(result.standardError.contains("content/world/b.md:3:12"))
        #expect(result.standardError.contains("2 errors; nothing was written"))
    }
}

@Suite struct UsageTests {
    @Test func usageErrorsExit64WithUsage() throws {
        let site = try BuildFixtures.site()
        let result = try newsgen(["build", "--draft"], in: site)
        #expect(result.status == 64)
        #expect(result.standardError.contains("error: unknown option '--draft' for 'build'; did you mean '--drafts'?"))
        #expect(result.standardError.contains("USAGE: newsgen build"))
        let unknown = try newsgen(["biuld"], in: site)
        #expect(unknown.status == 64)
        #expect(unknown.standardError.contains("unknown command 'biuld'; did you mean 'build'?"))
        #expect(try newsgen([], in: site).status == 64)
        #expect(try newsgen(["build", "--output"], in: site).standardError.contains("--output needs a value"))
    }

    @Test func helpAndVersion() throws {
        let site = try BuildFixtures.site()
        let help = try newsgen(["--help"], in: site)
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("SUBCOMMANDS:"))
        let buildHelp = try newsgen(["build", "--help"], in: site)
        #expect(buildHelp.status == 0)
        #expect(buildHelp.standardOutput.contains("USAGE: newsgen build [--drafts] [--future]"))
        #expect(try newsgen(["help", "check"], in: site).standardOutput.contains("OVERVIEW: Validate the site"))
        #expect(try newsgen(["--version"], in: site).standardOutput.hasPrefix("newsgen "))
    }
}
