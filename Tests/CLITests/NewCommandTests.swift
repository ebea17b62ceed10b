import CLI
import Foundation
import Testing
import TestSupport

/// `newsgen new`, in-process: the file it writes, what it refuses (as check would), and the way to a story that
/// passes check.
@Suite struct NewCommandTests {
    /// 2026-11-29T15:00:00Z: winter in Paris (+01:00).
    static let winter = CLIFixture.now
    /// 2026-07-14T10:00:00Z: summer in Paris (+02:00).
    static let summer = ["SOURCE_DATE_EPOCH": "1784023200"]

    /// The fixture site, with a story whose id is not its slug and a file too broken to parse.
    static func site() throws -> TemporarySite {
        let site = try CLIFixture.site()
        try site.write("content/world/storm.md", "---\nid: big-storm\ncategory: World\npublished: 2026-11-20T09:00:00Z\ntitle: Storm\n---\nThe storm.\n")
        return site
    }

    static func new(_ arguments: [String], in site: TemporarySite, environment: [String: String] = winter) async -> Run {
        await Run(["new", "--site", site.path] + arguments, environment: environment)
    }

    @Test func writesTheDraftWithTheTitleBreakingAndTheWinterOffset() async throws {
        let site = try Self.site()
        let run = await Self.new(["quake-off-coast", "--category", "World", "--breaking", "--title", "Quake strikes off the coast"], in: site)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err.isEmpty)
        #expect(run.out == site.path + "/content/world/quake-off-coast.md")
        #expect(try site.read("content/world/quake-off-coast.md") == """
            ---
            category: World
            published: 2026-11-29T16:00:00+01:00
            breaking: true
            draft: true
            title:
              en: "Quake strikes off the coast"
              # fr:
              # zh-Hans:
            ---
            <!-- lang: en -->

            <!-- lang: fr -->

            <!-- lang: zh-Hans -->

            """)
    }

    @Test func withoutBreakingOrTitleInSummerTime() async throws {
        let site = try TemporarySite(files: ["newsgen.yml": CLIFixture.files["newsgen.yml"]!])
        #expect(!site.exists("content/sports"))
        let run = await Self.new(["2026-07-14-final", "--category", "Sports"], in: site, environment: Self.summer)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == site.path + "/content/sports/2026-07-14-final.md")
        #expect(try site.read("content/sports/2026-07-14-final.md") == """
            ---
            category: Sports
            published: 2026-07-14T12:00:00+02:00
            draft: true
            title:
              en:
              # fr:
              # zh-Hans:
            ---
            <!-- lang: en -->

            <!-- lang: fr -->

            <!-- lang: zh-Hans -->

            """)
    }

    /// The languages as the config lists them (the first is the default, which gets the title); a site in UTC
    /// writes `Z`; a category name YAML would not read plain is quoted.
    @Test func followsTheConfigsLanguagesTimeZoneAndCategoryNames() async throws {
        let config = """
            title: Le Journal
            base_url: https://journal.example.org/
            languages:
              - code: fr
                name: French
              - code: ar
                name: Arabic
            categories:
              - name: "#Monde"
                slug: monde
            """
        let site = try TemporarySite(files: ["newsgen.yml": config])
        let run = await Self.new(["seisme", "--category", "#Monde", "--title", "Séisme"], in: site)
        #expect(run.status == 0, "\(run.err)")
        #expect(try site.read("content/monde/seisme.md") == """
            ---
            category: "#Monde"
            published: 2026-11-29T15:00:00Z
            draft: true
            title:
              fr: "Séisme"
              # ar:
            ---
            <!-- lang: fr -->

            <!-- lang: ar -->

            """)
        try fill("content/monde/seisme.md", in: site, bodies: ["fr": "Le séisme.", "ar": "الزلزال."], titles: ["ar": "زلزال"])
        let check = await Run(["check", "--site", site.path], environment: Self.winter)
        #expect(check.status == 0, "\(check.err)")
    }

    /// What an editor does: write the titles and the bodies, remove `draft: true`. Nothing else is touched.
    func fill(_ path: String, in site: TemporarySite, bodies: [String: String], titles: [String: String] = [:],
              defaultTitle: String? = nil) throws {
        var lines = try site.read(path).components(separatedBy: "\n")
        lines.removeAll { $0 == "draft: true" }
        for (index, line) in lines.enumerated() {
            for (code, title) in titles where line == "  # \(code):" { lines[index] = "  \(code): \(title)" }
            if let defaultTitle, line.hasSuffix(":"), line.hasPrefix("  "), !line.hasPrefix("  #") { lines[index] = line + " " + defaultTitle }
        }
        var filled: [String] = []
        for line in lines {
            filled.append(line)
            if line.hasPrefix("<!-- lang: "), let code = line.split(separator: " ").dropFirst(2).first, let body = bodies[String(code)] {
                filled.append(body)
            }
        }
        try site.write(path, filled.joined(separator: "\n"))
    }

    /// As written, the draft stops check (drafts are checked too) with an error at each thing to fill in, so it can
    /// never be built or published half-written; once filled in and undrafted it passes and is built.
    @Test func theDraftPointsAtWhatToFillInAndPassesCheckOnceFilled() async throws {
        let site = try Self.site()
        #expect(await Self.new(["rhine-ferry", "--category", "World"], in: site).status == 0)
        let draft = await Run(["check", "--site", site.path], environment: Self.winter)
        #expect(draft.status == 1)
        #expect(draft.err == """
            content/world/rhine-ferry.md:6:6: error: title.en is empty
            content/world/rhine-ferry.md:10:1: error: the en body is empty
            content/world/rhine-ferry.md:12:1: error: the fr body is empty
            content/world/rhine-ferry.md:14:1: error: the zh-Hans body is empty
            4 errors; nothing was written
            """)
        // A second story can be started while the first is unfinished.
        #expect(await Self.new(["rhine-bridge", "--category", "World"], in: site).status == 0)
        try site.remove("content/world/rhine-bridge.md")

        try fill("content/world/rhine-ferry.md", in: site, bodies: ["en": "The ferry.", "fr": "Le bac.", "zh-Hans": "渡轮。"],
                 titles: ["fr": "Le bac du Rhin"], defaultTitle: "The Rhine ferry")
        let check = await Run(["check", "--site", site.path], environment: Self.winter)
        #expect(check.status == 0, "\(check.err)")
        #expect(check.out == "checked 6 stories (4 would be published), 3 languages: no problems")
        let build = await Run(["build", "--site", site.path, "--quiet"], environment: Self.winter)
        #expect(build.status == 0, "\(build.err)")
        #expect(try site.read("site/fr/2026/11/29/rhine-ferry/index.html").contains("Le bac du Rhin"))
        // The language whose title was left commented out falls back to the default language's.
        #expect(try site.read("site/zh-hans/2026/11/29/rhine-ferry/index.html").contains("The Rhine ferry"))
    }

    /// A title YAML would read otherwise if it were written plain comes back exactly as given.
    @Test(arguments: ["Breaking: quake", "\"Quoted\" and \\ backslash", "# not a comment", "yes", "null", "[1, 2]",
                      "Tabs\tand\nnew lines", "Line\u{2028}separator", "近海发生7.1级地震", "- dash", "trailing space "])
    func anyTitleComesBackAsGiven(_ title: String) async throws {
        let site = try Self.site()
        let run = await Self.new(["tricky", "--category", "World", "--title", title], in: site)
        #expect(run.status == 0, "\(run.err)")
        try fill("content/world/tricky.md", in: site, bodies: ["en": "Text.", "fr": "Texte.", "zh-Hans": "文字。"])
        let build = await Run(["build", "--site", site.path, "--quiet"], environment: Self.winter)
        #expect(build.status == 0, "\(build.err)")
        let feed = try site.read("site/en/feed.json")
        let items = try #require((try JSONSerialization.jsonObject(with: Data(feed.utf8)) as? [String: Any])?["items"] as? [[String: Any]])
        #expect(items.contains { $0["title"] as? String == title }, "\(items.map { $0["title"] ?? "" })")
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let refusals: [Refusal] = [
        Refusal(arguments: ["quake2", "--category", "Wrld"],
                message: "--category: error: unknown category \"Wrld\" (known: World, Sports; did you mean \"World\"?)"),
        Refusal(arguments: ["quake2", "--category", "world"],
                message: "--category: error: unknown category \"world\" (known: World, Sports; did you mean \"World\"?)"),
        Refusal(arguments: ["Quake Off_Coast", "--category", "World"],
                message: "content/world/Quake Off_Coast.md: error: the slug \"Quake Off_Coast\" is not a clean URL segment; use lowercase letters, digits and - (e.g. quake-off-coast)"),
        Refusal(arguments: ["2026-11-29-Séisme", "--category", "World"],
                message: "content/world/2026-11-29-Séisme.md: error: the slug \"Séisme\" is not a clean URL segment; use lowercase letters, digits and - (e.g. 2026-11-29-s-isme)"),
        Refusal(arguments: ["../escape", "--category", "World"],
                message: "content/world/../escape.md: error: the slug \"../escape\" is not a clean URL segment; use lowercase letters, digits and - (e.g. escape)"),
        Refusal(arguments: ["sports/final", "--category", "Sports"],
                message: "content/sports/sports/final.md: error: the slug \"sports/final\" is not a clean URL segment; use lowercase letters, digits and - (e.g. sports-final)"),
        // Both problems at once, as check lists every problem (in check's order).
        Refusal(arguments: ["Big Quake", "--category", "Wrld"],
                message: "--category: error: unknown category \"Wrld\" (known: World, Sports; did you mean \"World\"?)\ncontent/Big Quake.md: error: the slug \"Big Quake\" is not a clean URL segment; use lowercase letters, digits and - (e.g. big-quake)"),
        // The same file.
        Refusal(arguments: ["quake", "--category", "World"],
                message: "content/world/quake.md: error: duplicate slug \"quake\" (also used by content/world/quake.md); rename one of the files\ncontent/world/quake.md: error: duplicate story id \"quake\" (also used by content/world/quake.md); ids must be unique"),
        // The slug of a story in another category's folder, and through a date prefix.
        Refusal(arguments: ["quake", "--category", "Sports"],
                message: "content/sports/quake.md: error: duplicate slug \"quake\" (also used by content/world/quake.md); rename one of the files\ncontent/sports/quake.md: error: duplicate story id \"quake\" (also used by content/world/quake.md); ids must be unique"),
        Refusal(arguments: ["2026-12-01-final", "--category", "Sports"],
                message: "content/sports/2026-12-01-final.md: error: duplicate slug \"final\" (also used by content/sports/2026-11-28-final.md); rename one of the files\ncontent/sports/2026-12-01-final.md: error: duplicate story id \"final\" (also used by content/sports/2026-11-28-final.md); ids must be unique"),
        // Another story's id (its slug is storm).
        Refusal(arguments: ["big-storm", "--category", "World"],
                message: "content/world/big-storm.md: error: duplicate story id \"big-storm\" (also used by content/world/storm.md); ids must be unique"),
        // A draft's slug.
        Refusal(arguments: ["draft", "--category", "World"],
                message: "content/world/draft.md: error: duplicate slug \"draft\" (also used by content/sports/draft.md); rename one of the files\ncontent/world/draft.md: error: duplicate story id \"draft\" (also used by content/sports/draft.md); ids must be unique"),
        Refusal(arguments: ["late", "--category", "World", "--title", "Bell\u{7}"],
                message: "--title: error: the title contains the control character U+0007, which pages, feeds and phones cannot show; remove it"),
        Refusal(arguments: ["late", "--category", "World", "--title", " \n "],
                message: "--title: error: the title is blank"),
    ]

    @Test(arguments: refusals) func refusesAsCheckWouldAndWritesNothing(_ refusal: Refusal) async throws {
        let site = try Self.site()
        let before = site.snapshot("content")
        let run = await Self.new(refusal.arguments, in: site)
        #expect(run.status == 1)
        let count = refusal.message.split(separator: "\n").count
        #expect(run.err == refusal.message + "\n\(count == 1 ? "1 error" : "\(count) errors"); nothing was written")
        #expect(run.out.isEmpty)
        #expect(site.snapshot("content") == before)
    }

    /// The slug a file holds is taken even when the file has other problems: check would refuse both.
    @Test func aBrokenStoryFileStillHoldsItsSlugAndID() async throws {
        let site = try Self.site()
        try site.write("content/sports/broken.md", "no front matter\n")
        try site.write("content/sports/odd.md", "---\nid: odd-one\ncategory: Nowhere\n---\n")
        let broken = await Self.new(["broken", "--category", "World"], in: site)
        #expect(broken.status == 1)
        #expect(broken.err.contains("duplicate slug \"broken\" (also used by content/sports/broken.md)"))
        let odd = await Self.new(["odd-one", "--category", "World"], in: site)
        #expect(odd.status == 1)
        #expect(odd.err == "content/world/odd-one.md: error: duplicate story id \"odd-one\" (also used by content/sports/odd.md); ids must be unique\n1 error; nothing was written")
    }

    /// A file that appears at the path between the check and the write (here a link to nowhere, which is no story
    /// file, so no slug is taken) is never written through or replaced.
    @Test func neverWritesOverOrThroughWhatIsThere() async throws {
        let site = try Self.site()
        try FileManager.default.createSymbolicLink(atPath: site.path + "/content/world/ghost.md", withDestinationPath: "../elsewhere.md")
        let run = await Self.new(["ghost", "--category", "World"], in: site)
        #expect(run.status == 1)
        #expect(run.err == "content/world/ghost.md: error: cannot write: File exists\n1 error; nothing was written")
        #expect(!site.exists("content/elsewhere.md"))
    }

    @Test func aSiteWithoutConfigOrWithABadClockIsRefused() async throws {
        let empty = try TemporarySite(copyingTemplatesFromRepository: false)
        let run = await Self.new(["quake", "--category", "World"], in: empty)
        #expect(run.status == 1)
        #expect(run.err.hasPrefix("newsgen.yml: error: no newsgen.yml here"))
        let site = try Self.site()
        let clock = await Self.new(["late", "--category", "World"], in: site, environment: ["SOURCE_DATE_EPOCH": "soon"])
        #expect(clock.status == 1)
        #expect(clock.err.hasPrefix("SOURCE_DATE_EPOCH: error: must be a whole number of seconds"))
        #expect(!site.exists("content/world/late.md"))
    }

    static let usage = """
        USAGE: newsgen new <slug> --category <name> [--breaking] [--title <text>] [--site <dir>]
          See '--help' for the options.
        """

    @Test(arguments: [
        (["new"], "new needs the story's slug, e.g. 'newsgen new quake-off-coast --category World'"),
        (["new", "", "--category", "World"], "new needs the story's slug, e.g. 'newsgen new quake-off-coast --category World'"),
        (["new", "quake"], "new needs --category <name>"),
        (["new", "quake", "storm", "--category", "World"], "unexpected argument 'storm'"),
        (["new", "quake", "--categroy", "World"], "unknown option '--categroy' for 'new'; did you mean '--category'?"),
        (["new", "quake", "--category"], "--category needs a value"),
        (["new", "quake", "--category", "World", "--breaking=yes"], "--breaking takes no value"),
        (["new", "quake", "--category", "World", "--draft"], "unknown option '--draft' for 'new'"),
    ]) func usageErrorsExit64BeforeAnythingIsRead(_ arguments: [String], _ message: String) async throws {
        let site = try Self.site()
        let before = site.snapshot("content")
        let run = await Run([arguments[0], "--site", site.path] + arguments.dropFirst(), environment: Self.winter)
        #expect(run.status == 64)
        #expect(run.err == "error: \(message)\n\n\(Self.usage)")
        #expect(site.snapshot("content") == before)
    }

    @Test func helpAnswersEveryWay() async {
        let reference = await Run(["help", "new"])
        #expect(reference.status == 0)
        for arguments in [["new", "--help"], ["new", "-h"], ["new", "quake", "--category", "Nowhere", "--help"]] {
            let run = await Run(arguments)
            #expect(run.status == 0, "\(arguments)")
            #expect(run.out == reference.out, "\(arguments)")
        }
        #expect(await Run(["nwe"]).err.hasPrefix("error: unknown command 'nwe'; did you mean 'new'?"))
    }
}
