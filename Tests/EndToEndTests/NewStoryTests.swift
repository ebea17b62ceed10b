import Foundation
import Testing
import TestSupport

/// `newsgen new` as the editor runs it: the built binary in the site folder.
@Suite struct NewStoryTests {
    /// The machine's own zone is another one: `published` is in the site's (Europe/Paris).
    static let machineZone = ["TZ": "America/New_York"]
    /// 2026-11-29T15:00:00Z, winter in Paris.
    static let winter = BuildFixtures.now.merging(machineZone) { a, _ in a }
    /// 2026-07-14T10:00:00Z, summer in Paris.
    static let summer = ["SOURCE_DATE_EPOCH": "1784023200"].merging(machineZone) { a, _ in a }

    static func draft(published: String, breaking: Bool, title: String?) -> String {
        """
        ---
        category: World
        published: \(published)
        \(breaking ? "breaking: true\n" : "")draft: true
        title:
          en:\(title.map { " \"\($0)\"" } ?? "")
          # fr:
          # zh-Hans:
        ---
        <!-- lang: en -->

        <!-- lang: fr -->

        <!-- lang: zh-Hans -->

        """
    }

    @Test(arguments: [(winter, "2026-11-29T16:00:00+01:00"), (summer, "2026-07-14T12:00:00+02:00")])
    func writesTheDraftInTheSitesTimeZoneWithItsOffset(_ environment: [String: String], _ published: String) throws {
        let site = try BuildFixtures.site()
        try site.remove("content/world")
        let result = try newsgen(["new", "ferry-strike", "--category", "World", "--breaking", "--title", "Ferry strike"],
                                 in: site, environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty)
        #expect(result.standardOutput == "content/world/ferry-strike.md\n")
        let bytes = try Data(contentsOf: site.url.appendingPathComponent("content/world/ferry-strike.md"))
        #expect(bytes == Data(Self.draft(published: published, breaking: true, title: "Ferry strike").utf8))
    }

    @Test func refusalsExitWithOneAndTheirMessageAndUsageErrorsWith64() throws {
        let site = try BuildFixtures.site()
        let before = site.snapshot("content")
        let cases: [([String], Int32, String)] = [
            (["new", "ferry", "--category", "Wrld"], 1,
             "--category: error: unknown category \"Wrld\" (known: World, Sports; did you mean \"World\"?)\n1 error; nothing was written\n"),
            (["new", "Ferry_Strike!", "--category", "World"], 1,
             "content/world/Ferry_Strike!.md: error: the slug \"Ferry_Strike!\" is not a clean URL segment; use lowercase letters, digits and - (e.g. ferry-strike)\n1 error; nothing was written\n"),
            (["new", "english-only", "--category", "Sports"], 1,
             "content/sports/english-only.md: error: duplicate slug \"english-only\" (also used by content/world/2026-11-28-english-only.md); rename one of the files\ncontent/sports/english-only.md: error: duplicate story id \"english-only\" (also used by content/world/2026-11-28-english-only.md); ids must be unique\n2 errors; nothing was written\n"),
            (["new", "quake-off-coast", "--category", "World"], 1,
             "content/world/quake-off-coast.md: error: duplicate story id \"quake-off-coast\" (also used by content/world/quake.md); ids must be unique\n1 error; nothing was written\n"),
            (["new", "ferry"], 64,
             "error: new needs --category <name>\n\nUSAGE: newsgen new <slug> --category <name> [--breaking] [--title <text>] [--site <dir>]\n  See '--help' for the options.\n"),
        ]
        for (arguments, status, message) in cases {
            let result = try newsgen(arguments, in: site, environment: Self.winter)
            #expect(result.status == status, "\(arguments)")
            #expect(result.standardError == message, "\(arguments)")
            #expect(result.standardOutput.isEmpty, "\(arguments)")
        }
        #expect(site.snapshot("content") == before)
    }

    /// The second run, an hour later, is refused and leaves the first file as it was.
    @Test func neverOverwritesAStory() throws {
        let site = try BuildFixtures.site()
        #expect(try newsgen(["new", "ferry", "--category", "World"], in: site, environment: Self.winter).status == 0)
        let written = try site.read("content/world/ferry.md")
        try site.write("content/world/ferry.md", written.replacingOccurrences(of: "<!-- lang: en -->\n", with: "<!-- lang: en -->\nStarted.\n"))
        let edited = try site.read("content/world/ferry.md")
        let later = ["SOURCE_DATE_EPOCH": "1795968000"]
        let again = try newsgen(["new", "ferry", "--category", "World", "--title", "Ferry"], in: site, environment: later)
        #expect(again.status == 1)
        #expect(again.standardError.contains("duplicate slug \"ferry\" (also used by content/world/ferry.md)"))
        #expect(try site.read("content/world/ferry.md") == edited)
    }

    /// As written, the story stops the build (nothing is written, even with --drafts); filled in and without
    /// `draft: true`, nothing else changed, it passes check and is built in every language.
    @Test func theFilledInStoryPassesCheckAndIsBuilt() throws {
        let site = try BuildFixtures.site()
        let made = try newsgen(["new", "ferry-strike", "--category", "World", "--breaking", "--title", "Ferry strike halts Channel crossings"],
                               in: site, environment: Self.winter)
        #expect(made.status == 0, "\(made.standardError)")
        for arguments in [["build"], ["build", "--drafts"]] {
            let build = try newsgen(arguments, in: site, environment: Self.winter)
            #expect(build.status == 1)
            #expect(build.standardError == """
                content/world/ferry-strike.md:11:1: error: the en body is empty
                content/world/ferry-strike.md:13:1: error: the fr body is empty
                content/world/ferry-strike.md:15:1: error: the zh-Hans body is empty
                3 errors; nothing was written

                """)
            #expect(!site.exists("site"))
        }

        let draft = try site.read("content/world/ferry-strike.md")
        let filled = draft
            .replacingOccurrences(of: "draft: true\n", with: "")
            .replacingOccurrences(of: "  # fr:", with: "  fr: Une grève bloque les traversées de la Manche")
            .replacingOccurrences(of: "<!-- lang: en -->\n", with: "<!-- lang: en -->\n**CALAIS —** No ferry has left since dawn.\n")
            .replacingOccurrences(of: "<!-- lang: fr -->\n", with: "<!-- lang: fr -->\n**CALAIS —** Aucun ferry n’est parti depuis l’aube.\n")
            .replacingOccurrences(of: "<!-- lang: zh-Hans -->\n", with: "<!-- lang: zh-Hans -->\n**加来电** 自黎明起没有渡轮出港。\n")
        try site.write("content/world/ferry-strike.md", filled)
        let check = try newsgen(["check"], in: site, environment: Self.winter)
        #expect(check.status == 0, "\(check.standardError)")
        let build = try newsgen(["build"], in: site, environment: Self.winter)
        #expect(build.status == 0, "\(build.standardError)")
        let en = try site.read("site/en/2026/11/29/ferry-strike/index.html")
        #expect(en.contains("Ferry strike halts Channel crossings"))
        #expect(en.contains("No ferry has left since dawn."))
        #expect(en.contains("<time datetime=\"2026-11-29T16:00:00+01:00\">"))
        let fr = try site.read("site/fr/2026/11/29/ferry-strike/index.html")
        #expect(fr.contains("Une grève bloque les traversées de la Manche"))
        #expect(try site.read("site/zh-hans/2026/11/29/ferry-strike/index.html").contains("自黎明起没有渡轮出港。"))
        // It is a breaking story now: publish would announce it.
        let plan = try newsgen(["publish", "--dry-run", "--json"], in: site, environment: Self.winter)
        #expect(plan.status == 0, "\(plan.standardError)")
        let stories = try #require((try JSONSerialization.jsonObject(with: Data(plan.standardOutput.utf8)) as? [String: Any])?["stories"] as? [[String: Any]])
        #expect(stories.first { $0["id"] as? String == "ferry-strike" }?["action"] as? String == "send")
    }
}
