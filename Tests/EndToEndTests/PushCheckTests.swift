import Foundation
import Testing
import TestSupport

/// `check` and `build` hold every breaking story to the hub's rules, so a story that `publish` would refuse fails
/// before the site is deployed, at its file and line.
@Suite struct PushCheckTests {
    /// World, Sports and T03…T21: 21 categories, one more than the hub's 20 tags in an expression.
    static let categoryNames = ["World", "Sports"] + (3...21).map { "T" + ($0 < 10 ? "0" : "") + String($0) }
    static let config = FixtureConfig.threeLanguages(
        title: "Test News",
        categories: FixtureConfig.worldAndSports + "\n" + categoryNames.dropFirst(2).map { "  - name: \($0)" }.joined(separator: "\n"))

    /// A story whose `category:` value is on line 2, column 11.
    static func story(categories: [String], breaking: Bool = true, published: String = "2026-11-29T14:05:00Z",
                      extra: String = "") -> String {
        """
        ---
        category: [\(categories.joined(separator: ", "))]
        published: \(published)
        breaking: \(breaking)
        title: { en: Quake, fr: Séisme, zh-Hans: 地震 }\(extra)
        ---
        The quake.
        """
    }

    static func site(_ stories: [String: String] = [:], config: String = PushCheckTests.config) throws -> TemporarySite {
        var files = stories
        files["newsgen.yml"] = config
        files["content/world/calm.md"] = story(categories: ["World"], breaking: false)
        return try TemporarySite(files: files)
    }

    static let tooManyTags = "its categories do not make a valid tag expression: 21 tags joined by || are too many; the hub allows at most 20"

    @Test func twentyOneTagsFailCheckAtTheCategoryLineAndTwentyPass() throws {
        let twenty = try Self.site(["content/world/twenty.md": Self.story(categories: Array(Self.categoryNames.prefix(20)))])
        let passes = try newsgen(["check"], in: twenty, environment: BuildFixtures.now)
        #expect(passes.status == 0, "\(passes.standardError)")
        #expect(passes.standardOutput.hasPrefix("checked 2 stories"))

        let site = try Self.site(["content/world/many.md": Self.story(categories: Self.categoryNames)])
        let result = try newsgen(["check"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 1)
        #expect(result.standardError == """
            content/world/many.md:2:11: error: newsgen publish would refuse this breaking story: \(Self.tooManyTags) (send several notifications instead)
            1 error; nothing was written

            """)
    }

    @Test func aPayloadOverFourKilobytesFailsCheckAtThePushText() throws {
        let long = String(repeating: "Très long texte. ", count: 130)
        let site = try Self.site(["content/world/long.md": Self.story(categories: ["World"], extra: "\npush:\n  revision: 2\n  text: { fr: \"\(long)\" }")])
        let result = try newsgen(["check"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 1)
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(result.standardError)")
        #expect(lines.first?.hasPrefix("content/world/long.md:8:9: error: newsgen publish would refuse this breaking story: the payload for ios-french (") == true,
                "\(result.standardError)")
        #expect(lines.first?.hasSuffix(" bytes) is over the 4096-byte platform limit; shorten the push text") == true)
        #expect(lines.last == "1 error; nothing was written")

        // Without a push text the title is the alert: a long title is pointed at.
        let title = try Self.site(["content/world/long.md": Self.story(categories: ["World"]).replacingOccurrences(of: "fr: Séisme", with: "fr: \"\(long)\"")])
        let byTitle = try newsgen(["check"], in: title, environment: BuildFixtures.now)
        #expect(byTitle.status == 1)
        #expect(byTitle.standardError.hasPrefix("content/world/long.md:5:8: error: newsgen publish would refuse this breaking story: the payload for ios-french ("),
                "\(byTitle.standardError)")
    }

    /// Between builds, a story's check is kept only while what it read is unchanged: the story becoming breaking,
    /// a device template added, `--base-url` and a changed config each make the next build check it again.
    @Test func aStoryIsCheckedAgainWhenWhatItsCheckReadChanges() throws {
        let long = String(repeating: "Très long texte. ", count: 130)
        let quiet = Self.story(categories: ["World"], breaking: false).replacingOccurrences(of: "fr: Séisme", with: "fr: \"\(long)\"")
        let site = try Self.site(["content/world/long.md": quiet, "content/world/short.md": Self.story(categories: ["World"])])
        func build(_ extra: [String] = []) throws -> ProgramResult {
            try newsgen(["build", "--quiet"] + extra, in: site, environment: BuildFixtures.now)
        }
        func refused(_ result: ProgramResult, _ file: String) -> Bool {
            result.status == 1 && result.standardError.contains("content/world/\(file):") && result.standardError.contains("would refuse this breaking story")
        }
        #expect(try build().status == 0)
        try site.write("content/world/long.md", quiet.replacingOccurrences(of: "breaking: false", with: "breaking: true"))
        #expect(refused(try build(), "long.md"))
        try site.write("content/world/long.md", quiet)
        #expect(try build().status == 0)

        // A device template that makes every payload too long.
        let padding = String(repeating: "x", count: 4100)
        try site.write("templates/devices/padded.json", #"{"aps":{"alert":"$(News_English)","pad":"\#(padding)"}}"#)
        #expect(refused(try build(), "short.md"))
        try FileManager.default.removeItem(atPath: site.path + "/templates/devices/padded.json")
        #expect(try build().status == 0)

        // A base URL long enough to take the French payload over the limit: from the option, then from the config.
        let url = "https://news.example.com/" + String(repeating: "n", count: 4100) + "/"
        #expect(refused(try build(["--base-url", url]), "short.md"))
        #expect(try build().status == 0)
        let config = try site.read("newsgen.yml")
        let withURL = config.split(separator: "\n").map { $0.hasPrefix("base_url:") ? "base_url: \(url)" : String($0) }.joined(separator: "\n")
        try #require(withURL != config)
        try site.write("newsgen.yml", withURL)
        #expect(refused(try build(), "short.md"))
    }

    /// Drafts and stories dated in the future are published later without another check: they are held to the
    /// hub's rules now. A story that is not breaking is never announced, so its categories are not.
    @Test func draftsAndFutureStoriesAreCheckedAndStoriesThatAreNotBreakingAreNot() throws {
        let site = try Self.site([
            "content/world/draft.md": Self.story(categories: Self.categoryNames, extra: "\ndraft: true"),
            "content/world/future.md": Self.story(categories: Self.categoryNames, published: "2027-01-15T09:00:00Z"),
            "content/world/not-breaking.md": Self.story(categories: Self.categoryNames, breaking: false),
        ])
        for flags in [[], ["--drafts", "--future"]] {
            let result = try newsgen(["check"] + flags, in: site, environment: BuildFixtures.now)
            #expect(result.status == 1)
            #expect(result.standardError == """
                content/world/draft.md:2:11: error: newsgen publish would refuse this breaking story: \(Self.tooManyTags) (send several notifications instead)
                content/world/future.md:2:11: error: newsgen publish would refuse this breaking story: \(Self.tooManyTags) (send several notifications instead)
                2 errors; nothing was written

                """)
        }
    }

    @Test func aDeviceTemplateTheHubWouldRefuseFailsCheckAtItsLine() throws {
        let site = try Self.site()
        try site.write("templates/devices/broken.json", "{\"aps\":\n  {\"alert\": \"$(News_French\"}}")
        try site.write("templates/devices/not-json.json", "{\"a\": tru}")
        let result = try newsgen(["check"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 1)
        #expect(result.standardError == """
            templates/devices/broken.json:2:13: error: aps.alert: invalid expression "$(News_French": the expression ends before its closing ")"
            templates/devices/not-json.json:1:7: error: a: expected a JSON value but found "t"
            2 errors; nothing was written

            """)
    }

    /// Every category is a push tag: the hub's tag rules apply to newsgen.yml, where the name is.
    @Test func aCategoryThatCannotBeATagFailsCheckInTheConfig() throws {
        let config = FixtureConfig.threeLanguages(title: "Test News", categories: FixtureConfig.worldAndSports + "\n  - name: World News")
        let site = try Self.site(config: config)
        let result = try newsgen(["check"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("newsgen.yml:16:11: error: category \"World News\" cannot be a push tag: "), "\(result.standardError)")
        #expect(result.standardError.hasSuffix("\n1 error; nothing was written\n"))
    }

    /// The test audience of `publish --test` is held to the same tag rules, in newsgen.yml.
    @Test func aTestTagThatCannotBeATagFailsCheckInTheConfig() throws {
        for (tags, column) in [("[newsroom, news room]", 25), ("news room", 14)] {
            let site = try Self.site(config: Self.config + "\npush:\n  test_tags: \(tags)\n")
            let result = try newsgen(["check"], in: site, environment: BuildFixtures.now)
            #expect(result.status == 1)
            #expect(result.standardError == "newsgen.yml:36:\(column): error: push.test_tags: \"news room\" cannot be a push tag: U+0020 at position 5 is not allowed in a tag; use ASCII letters, digits and _ @ # . : -\n1 error; nothing was written\n",
                    "\(result.standardError)")
        }
    }

    @Test func buildFailsTheSameWayAndLeavesThePreviousSiteAlone() throws {
        let site = try Self.site(["content/world/quake.md": Self.story(categories: ["World", "Sports"])])
        let first = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(first.status == 0, "\(first.standardError)")
        let before = site.snapshot()
        #expect(!before.isEmpty)

        try site.write("content/world/many.md", Self.story(categories: Self.categoryNames))
        let check = try newsgen(["check"], in: site, environment: BuildFixtures.now)
        for arguments in [["build"], ["build", "--clean"]] {
            let build = try newsgen(arguments, in: site, environment: BuildFixtures.now)
            #expect(build.status == 1)
            #expect(build.standardError == check.standardError)
            #expect(build.standardOutput.isEmpty)
            #expect(site.snapshot() == before)
        }
        #expect(check.standardError.hasPrefix("content/world/many.md:2:11: error: newsgen publish would refuse this breaking story: "))
    }

    @Test func theSampleSitePasses() throws {
        let site = try TemporarySite.sample()
        let result = try newsgen(["check", "--drafts", "--future"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty)
    }
}
