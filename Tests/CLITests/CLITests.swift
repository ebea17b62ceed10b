import CLI
import Foundation
import Testing
import TestSupport

/// Runs the CLI in-process, as the executable would, and returns what it printed.
struct Run {
    var status: Int32
    var out: String
    var err: String

    init(_ arguments: [String], environment: [String: String] = [:]) async {
        let console = RecordingConsole()
        status = await CLI.run(arguments, environment: environment, console: console)
        out = console.standardOutput
        err = console.standardError
    }
}

/// A small site for in-process builds: three languages, two categories, a published story, a story without a
/// French body, a draft and a future story.
enum CLIFixture {
    static let files: [String: String] = [
        "newsgen.yml": FixtureConfig.threeLanguages(title: "{ en: CLI News, fr: Les Nouvelles CLI, zh-Hans: 命令行新闻 }"),
        "content/world/quake.md": """
        ---
        category: World
        published: 2026-11-29T14:05:00Z
        breaking: true
        title: { en: Quake, fr: Séisme, zh-Hans: 地震 }
        ---
        <!-- lang: en -->
        The quake.
        <!-- lang: fr -->
        Le séisme.
        <!-- lang: zh-Hans -->
        地震。
        """,
        "content/sports/2026-11-28-final.md": """
        ---
        category: Sports
        published: 2026-11-28T21:00:00+01:00
        title: The final
        ---
        An English-only report.
        """,
        "content/sports/draft.md": "---\ncategory: Sports\npublished: 2026-11-27T09:00:00Z\ndraft: true\ntitle: Draft\n---\nDraft.\n",
        "content/sports/future.md": "---\ncategory: Sports\npublished: 2027-01-15T09:00:00Z\ntitle: Future\n---\nFuture.\n",
    ]

    /// 2026-11-29T15:00:00Z
    static let now = ["SOURCE_DATE_EPOCH": "1795964400"]

    static func site() throws -> TemporarySite { try TemporarySite(files: files) }
}

@Suite struct UsageErrorTests {
    static let buildUsage = """
        USAGE: newsgen build [--drafts] [--future] [--clean] [--output <dir>] [--base-url <url>] [--site <dir>] [--quiet]
          See '--help' for the options.
        """
    static let checkUsage = """
        USAGE: newsgen check [--drafts] [--future] [--site <dir>] [--base-url <url>]
          See '--help' for the options.
        """
    static let generalUsage = """
        USAGE: newsgen <subcommand> [options]
          See 'newsgen --help'.
        """

    struct Case: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var message: String
        var usage: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["build", "--draft"], message: "unknown option '--draft' for 'build'; did you mean '--drafts'?", usage: buildUsage),
        Case(arguments: ["build", "--ouput", "out"], message: "unknown option '--ouput' for 'build'; did you mean '--output'?", usage: buildUsage),
        Case(arguments: ["build", "--base_url", "https://x.org/"], message: "unknown option '--base_url' for 'build'; did you mean '--base-url'?", usage: buildUsage),
        Case(arguments: ["check", "--drafs"], message: "unknown option '--drafs' for 'check'; did you mean '--drafts'?", usage: checkUsage),
        // check has no --quiet and no --output: nothing close enough to suggest.
        Case(arguments: ["check", "--quiet"], message: "unknown option '--quiet' for 'check'", usage: checkUsage),
        Case(arguments: ["check", "-q"], message: "unknown option '-q' for 'check'", usage: checkUsage),
        Case(arguments: ["build", "-q=1"], message: "--quiet takes no value", usage: buildUsage),
        Case(arguments: ["check", "--output", "out"], message: "unknown option '--output' for 'check'", usage: checkUsage),
        Case(arguments: ["build", "-x"], message: "unknown option '-x' for 'build'", usage: buildUsage),
        Case(arguments: ["build", "--output"], message: "--output needs a value", usage: buildUsage),
        Case(arguments: ["build", "--drafts", "--site"], message: "--site needs a value", usage: buildUsage),
        Case(arguments: ["check", "--base-url"], message: "--base-url needs a value", usage: checkUsage),
        Case(arguments: ["build", "--drafts=yes"], message: "--drafts takes no value", usage: buildUsage),
        Case(arguments: ["build", "--help=1"], message: "--help takes no value", usage: buildUsage),
        Case(arguments: ["build", "site"], message: "unexpected argument 'site'", usage: buildUsage),
        Case(arguments: ["check", "--", "--drafts"], message: "unexpected argument '--drafts'", usage: checkUsage),
        Case(arguments: ["biuld"], message: "unknown command 'biuld'; did you mean 'build'?", usage: generalUsage),
        Case(arguments: ["chek", "--drafts"], message: "unknown command 'chek'; did you mean 'check'?", usage: generalUsage),
        Case(arguments: ["hlep"], message: "unknown command 'hlep'; did you mean 'help'?", usage: generalUsage),
        Case(arguments: ["deploy"], message: "unknown command 'deploy'", usage: generalUsage),
        Case(arguments: ["help", "biuld"], message: "unknown command 'biuld'; did you mean 'build'?", usage: generalUsage),
        Case(arguments: ["help", "nope"], message: "unknown command 'nope'", usage: generalUsage),
    ]

    @Test(arguments: cases) func printsTheMessageAndTheUsageAndExits64(_ item: Case) async {
        let run = await Run(item.arguments, environment: CLIFixture.now)
        #expect(run.status == 64)
        #expect(run.status == ExitCode.usage)
        #expect(run.err == "error: \(item.message)\n\n\(item.usage)")
        #expect(run.out.isEmpty)
    }

    @Test func noArgumentsPrintsTheOverviewToStandardErrorAndExits64() async {
        let run = await Run([])
        #expect(run.status == 64)
        #expect(run.out.isEmpty)
        let help = await Run(["--help"])
        #expect(run.err == help.out)
    }

    /// A usage error is found before the site is read: no site folder is needed to get it.
    @Test func usageErrorsComeBeforeLoadingTheSite() async {
        let run = await Run(["build", "--site", "/nonexistent/newsgen-site", "--bogus"])
        #expect(run.status == 64)
        #expect(run.err.hasPrefix("error: unknown option '--bogus' for 'build'\n"))
    }
}

@Suite struct HelpTextTests {
    static let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    @Test(arguments: ["new", "serve", "build", "check", "publish", "status", "next-change"]) func commandHelpMatchesItsGoldenFile(_ command: String) async {
        let run = await Run(["help", command])
        #expect(run.status == 0)
        #expect(run.err.isEmpty)
        let problem = GoldenFile.problem(run.out + "\n", golden: Self.goldenFolder.appendingPathComponent("help-\(command).txt"))
        #expect(problem == nil, "\(problem ?? "")")
    }

    @Test(arguments: ["build", "check"]) func everyWayOfAskingGivesTheSameHelp(_ command: String) async {
        let reference = await Run(["help", command])
        for arguments in [[command, "--help"], [command, "-h"], [command, "--drafts", "--help"], [command, "--site", "nowhere", "-h"]] {
            let run = await Run(arguments)
            #expect(run.status == 0, "\(arguments)")
            #expect(run.out == reference.out, "\(arguments)")
            #expect(run.err.isEmpty)
        }
        #expect(reference.out.hasPrefix("OVERVIEW: "))
        #expect(reference.out.contains("\nUSAGE: newsgen \(command) [--drafts] [--future]"))
        #expect(reference.out.contains("\nOPTIONS:\n"))
        #expect(reference.out.contains("\n  -h, --help              Show help information."))
    }

    @Test(arguments: ["publish", "status", "next-change"]) func theAlertCommandsAnswerHelpTheSameWay(_ command: String) async {
        let reference = await Run(["help", command])
        for arguments in [[command, "--help"], [command, "-h"], [command, "--json", "--help"]] {
            let run = await Run(arguments)
            #expect(run.status == 0, "\(arguments)")
            #expect(run.out == reference.out, "\(arguments)")
        }
        #expect(reference.out.contains("\nUSAGE: newsgen \(command) "))
        #expect(await Run(["help"]).out.contains("\n  \(command) "))
        let typo = await Run([command, "--jsn"])
        #expect(typo.status == 64)
        #expect(typo.err.contains("unknown option '--jsn' for '\(command)'; did you mean '--json'?"))
    }

    @Test func overviewMatchesItsGoldenFile() async {
        let run = await Run(["help"])
        #expect(run.status == 0)
        let problem = GoldenFile.problem(run.out + "\n", golden: Self.goldenFolder.appendingPathComponent("help.txt"))
        #expect(problem == nil, "\(problem ?? "")")
    }

    @Test func overviewListsTheSubcommands() async {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let run = await Run(arguments)
            #expect(run.status == 0, "\(arguments)")
            #expect(run.err.isEmpty)
            #expect(run.out.hasPrefix("OVERVIEW: newsgen builds a multilingual breaking-news site"), "\(arguments)")
            #expect(run.out.contains("\nUSAGE: newsgen <subcommand> [options]\n"))
            #expect(run.out.contains("\nOPTIONS:\n  --version               Show the version.\n  -h, --help              Show help information.\n"))
            #expect(run.out.contains("\nSUBCOMMANDS:\n  new                     Start a story: write its file in content/ as a draft to fill in.\n  serve                   Serve the site locally, rebuilt and reloaded after every change.\n  build                   Render the site into site/.\n  check                   Run every validation of build and write nothing.\n"))
            #expect(run.out.contains("\n  help <subcommand>       Show help for a subcommand.\n"))
        }
    }

    @Test func helpOfHelp() async {
        let run = await Run(["help", "help"])
        #expect(run.status == 0)
        #expect(run.out == "OVERVIEW: Show help for a subcommand.\n\nUSAGE: newsgen help [<subcommand>]")
    }

    @Test func version() async {
        for arguments in [["--version"], ["version"]] {
            let run = await Run(arguments)
            #expect(run.status == 0)
            #expect(run.out == "newsgen \(CLI.version)")
            #expect(run.err.isEmpty)
        }
        let parts = CLI.version.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) })
    }
}

@Suite struct InProcessBuildTests {
    /// "built 3 stories into <path>: 24 files, 24 written, 0 unchanged, 0 removed in 12 ms" as numbers.
    struct Summary: Equatable {
        var stories: Int, output: String, files: Int, written: Int, unchanged: Int, removed: Int

        init?(_ line: String) {
            guard line.hasPrefix("built "), let into = line.range(of: " stories into "),
                  let colon = line.range(of: ": ", range: into.upperBound..<line.endIndex),
                  let stories = Int(line[line.index(line.startIndex, offsetBy: 6)..<into.lowerBound]) else { return nil }
            self.stories = stories
            output = String(line[into.upperBound..<colon.lowerBound])
            let rest = line[colon.upperBound...].split(separator: " ")
            // ["24", "files,", "24", "written,", "0", "unchanged,", "0", "removed", "in", "12", "ms"]
            guard rest.count == 11, rest[1] == "files,", rest[3] == "written,", rest[5] == "unchanged,", rest[7] == "removed",
                  rest[8] == "in", rest[10] == "ms" || rest[10] == "s", Int(rest[9]) != nil,
                  let files = Int(rest[0]), let written = Int(rest[2]), let unchanged = Int(rest[4]), let removed = Int(rest[6])
            else { return nil }
            (self.files, self.written, self.unchanged, self.removed) = (files, written, unchanged, removed)
        }
    }

    @Test func buildsTheSiteAndPrintsOneSummaryLine() async throws {
        let site = try CLIFixture.site()
        let run = await Run(["build", "--site", site.path, "--quiet"], environment: CLIFixture.now)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err.isEmpty)
        #expect(!run.out.contains("\n"))
        let summary = try #require(Summary(run.out), "\(run.out)")
        // 2 stories × 3 languages + 3 front pages + 2 categories × 3 languages + root + 404 + style.css at least.
        #expect(summary.stories == 2)
        #expect(summary.files >= 6 + 3 + 6 + 3)
        #expect(summary.written == summary.files && summary.unchanged == 0 && summary.removed == 0)
        #expect(summary.output.hasSuffix("/site") || summary.output.hasSuffix("/site/"))
        #expect(site.exists("site/fr/2026/11/28/final/index.html"))
        #expect(try site.read("site/fr/2026/11/28/final/index.html").contains("<div class=\"body\" lang=\"en\" dir=\"ltr\">"))
        #expect(site.exists("site/zh-hans/2026/11/29/quake/index.html"))
        #expect(!site.exists("site/en/2026/11/27/draft/index.html"))
        #expect(!site.exists("site/en/2027/01/15/future/index.html"))

        // Same inputs: nothing is rewritten; -q is --quiet.
        let quiet = await Run(["build", "-q", "--site", site.path], environment: CLIFixture.now)
        #expect(quiet.status == 0, "\(quiet.err)")
        #expect(quiet.err.isEmpty)
        let again = try #require(Summary(await Run(["build", "--site", site.path], environment: CLIFixture.now).out))
        #expect(again.files == summary.files && again.written == 0 && again.unchanged == summary.files && again.removed == 0)

        // Drafts and future stories on request; dropping them again removes their pages.
        let all = try #require(Summary(await Run(["build", "--site", site.path, "--drafts", "--future"], environment: CLIFixture.now).out))
        #expect(all.stories == 4)
        #expect(site.exists("site/en/2026/11/27/draft/index.html"))
        #expect(site.exists("site/fr/2027/01/15/future/index.html"))
        let back = try #require(Summary(await Run(["build", "--site", site.path], environment: CLIFixture.now).out))
        #expect(back.stories == 2 && back.files == summary.files && back.removed > 0)
        #expect(!site.exists("site/en/2026/11/27/draft/index.html"))
    }

    @Test func sourceDateEpochDecidesWhatIsInTheFuture() async throws {
        let site = try CLIFixture.site()
        // 2026-11-28T22:00:00Z: the quake (29th, 14:05Z) is still to come.
        let early = await Run(["check", "--site", site.path], environment: ["SOURCE_DATE_EPOCH": "1795903200"])
        #expect(early.out == "checked 4 stories (1 would be published), 3 languages: no problems")
        let now = await Run(["check", "--site", site.path], environment: CLIFixture.now)
        #expect(now.status == 0)
        #expect(now.out == "checked 4 stories (2 would be published), 3 languages: no problems")
        let flags = await Run(["check", "--site", site.path, "--drafts", "--future"], environment: CLIFixture.now)
        #expect(flags.out == "checked 4 stories (4 would be published), 3 languages: no problems")
        #expect(!site.exists("site"))

        let bad = await Run(["build", "--site", site.path], environment: ["SOURCE_DATE_EPOCH": "tomorrow"])
        #expect(bad.status == 1)
        #expect(bad.err == "SOURCE_DATE_EPOCH: error: must be a whole number of seconds since 1970, found \"tomorrow\"\n1 error; nothing was written")
        // "Now" past the year 9999 would be written into empty feeds as an invalid RFC 3339 date.
        let late = await Run(["build", "--site", site.path], environment: ["SOURCE_DATE_EPOCH": "253402300799"])
        #expect(late.status == 1)
        #expect(late.err == "SOURCE_DATE_EPOCH: error: must be at most 253402214399 (9999-12-30T23:59:59Z), found \"253402300799\"\n1 error; nothing was written")
        #expect(!site.exists("site"))
    }

    @Test func contentErrorsExit1AndWriteNothing() async throws {
        let site = try CLIFixture.site()
        #expect(await Run(["build", "--site", site.path], environment: CLIFixture.now).status == 0)
        let before = site.snapshot()
        try site.write("content/world/bad.md", "---\ncategory: Wrld\npublished: 2026-11-29T10:00:00\ntitle: Bad\n---\nBody.\n")
        for command in ["build", "check"] {
            let run = await Run([command, "--site", site.path], environment: CLIFixture.now)
            #expect(run.status == 1)
            #expect(run.status == ExitCode.failure)
            #expect(run.out.isEmpty)
            #expect(run.err == """
                content/world/bad.md:2:11: error: unknown category "Wrld" (known: World, Sports; did you mean "World"?)
                content/world/bad.md:3:12: error: invalid published date: "2026-11-29T10:00:00" has no offset; add Z for UTC or +hh:mm, e.g. 2026-11-29T10:00:00Z
                2 errors; nothing was written
                """)
        }
        #expect(site.snapshot() == before)
    }

    @Test func optionValuesAreValidated() async throws {
        let site = try CLIFixture.site()
        let url = await Run(["build", "--site", site.path, "--base-url", "news.example.com"], environment: CLIFixture.now)
        #expect(url.status == 1)
        #expect(url.err.hasPrefix("--base-url: error: base_url must be an absolute http(s) URL such as https://news.example.com/, found \"news.example.com\"\n"))

        let missing = await Run(["check", "--site", site.path + "/nowhere"], environment: CLIFixture.now)
        #expect(missing.status == 1)
        #expect(missing.err == "newsgen.yml: error: no newsgen.yml here (\(site.path)/nowhere); run newsgen in a site folder or pass --site DIR\n1 error; nothing was written")

        for output in [site.path, site.path + "/content", site.path + "/templates/static", site.path + "/media"] {
            let run = await Run(["build", "--site", site.path, "--output", output], environment: CLIFixture.now)
            #expect(run.status == 1, "\(output)")
            #expect(run.err.hasPrefix("--output: error: the output folder \(output) would overwrite the site's sources"), "\(run.err)")
        }
        #expect(!site.exists("site"))
        #expect(site.exists("content/world/quake.md"))
    }

    @Test func outputAndBaseURLOptions() async throws {
        let site = try CLIFixture.site()
        let output = site.path + "/preview"
        let run = await Run(["build", "--site", site.path, "--output", output, "--base-url", "https://preview.example.org/news"],
                      environment: CLIFixture.now)
        #expect(run.status == 0, "\(run.err)")
        #expect(Summary(run.out)?.output == output)
        #expect(!site.exists("site"))
        let page = try site.read("preview/en/index.html")
        #expect(page.contains("<link rel=\"canonical\" href=\"https://preview.example.org/news/en/\">"))
        #expect(page.contains("<link rel=\"stylesheet\" href=\"/news/static/style.css\">"))
    }
}

@Suite struct ServeCommandTests {
    @Test func usageErrorsExitWith64AndAFolderWithoutASiteWithOne() async throws {
        for (arguments, message) in [(["serve", "--port", "http"], "--port needs a port number from 0 to 65535, found 'http'"),
                                     (["serve", "--port", "70000"], "--port needs a port number from 0 to 65535, found '70000'"),
                                     (["serve", "extra"], "unexpected argument 'extra'"),
                                     (["serve", "--drafs"], "unknown option '--drafs' for 'serve'; did you mean '--drafts'?")] {
            let run = await Run(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.err.contains("error: \(message)"), "\(run.err)")
            #expect(run.err.contains("USAGE: newsgen serve "), "\(arguments)")
        }
        let empty = try TemporarySite(copyingTemplatesFromRepository: false)
        let run = await Run(["serve", "--port", "0", "--site", empty.path])
        #expect(run.status == 1)
        #expect(run.err.contains("newsgen.yml: error: no newsgen.yml here"), "\(run.err)")
    }
}
