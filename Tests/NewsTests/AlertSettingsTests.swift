import Testing
@testable import News
import NewsFixtures

/// The newsgen.yml and front-matter keys of an alert's life: test audience, expiry, priority, budget.
@Suite struct AlertSettingsTests {
    func problems(_ text: String) -> [String] { ConfigTests().problems(text) }

    @Test func testTagsAreAListOfTags() {
        #expect(Fixtures.siteConfig(Fixtures.config + "\npush:\n  test_tags: [newsroom, desk@night]\n").push.testTags == ["newsroom", "desk@night"])
        #expect(Fixtures.siteConfig(Fixtures.config + "\npush:\n  test_tags: newsroom\n").push.testTags == ["newsroom"])
        #expect(Fixtures.siteConfig().push.testTags == [])
        #expect(problems(Fixtures.config + "\npush:\n  test_tag: newsroom\n").first?.contains("did you mean \"test_tags\"?") == true)
    }
}

@Suite struct AlertFrontMatterTests {
    static func story(_ push: String) -> String {
        "---\ncategory: World\npublished: 2026-11-29T14:05:00Z\nbreaking: true\ntitle: Quake\npush:\n\(push)---\nBody.\n"
    }

    @Test func expiresAndPriorityInNewsgenYml() {
        #expect(Fixtures.siteConfig().push.expires == 3 * 3600)
        #expect(Fixtures.siteConfig().push.priority == .high)
        let config = Fixtures.siteConfig(Fixtures.config + "\npush:\n  expires: 90m\n  priority: normal\n")
        #expect(config.push.expires == 5400)
        #expect(config.push.priority == .normal)
        #expect(ConfigTests().problems(Fixtures.config + "\npush:\n  priority: hihg\n") == ["newsgen.yml:18:13: error: unknown push.priority \"hihg\" (known: high, normal; did you mean \"high\"?)"])
    }

    @Test func aStoryCanShortenOrLengthenItsAlertsLife() throws {
        let (story, problems) = Fixtures.parseStory(Self.story("  expires: 45m\n"))
        #expect(problems.isEmpty)
        #expect(try #require(story).push.expires == 2700)
        #expect(Fixtures.parseStory(Self.story("  revision: 2\n")).0?.push.expires == nil)
        #expect(Fixtures.parseStory(Self.story("  expires: soon\n")).1.map(\.description) ==
                ["content/world/quake.md:7:12: error: push.expires must be a duration such as 6h, 90m or 30s, found \"soon\""])
        #expect(Fixtures.parseStory(Self.story("  expires: 0s\n")).1.map(\.description) ==
                ["content/world/quake.md:7:12: error: push.expires must be longer than 0s"])
        let typo = Fixtures.parseStory(Self.story("  expire: 1h\n")).1.map(\.description)
        #expect(typo.first?.hasPrefix("content/world/quake.md:7:3: error: unknown key \"expire\"") == true)
        #expect(typo.first?.contains("did you mean \"expires\"?") == true)
    }
}

@Suite struct BudgetSettingsTests {
    func problems(_ push: String) -> [String] { ConfigTests().problems(Fixtures.config + "\npush:\n" + push) }

    @Test func budgetInNewsgenYml() {
        #expect(Fixtures.siteConfig().push.budget == nil)
        #expect(Fixtures.siteConfig(Fixtures.config + "\npush:\n  budget: { alerts: 4 }\n").push.budget == AlertBudget(alerts: 4, window: 3600))
        #expect(Fixtures.siteConfig(Fixtures.config + "\npush:\n  budget:\n    alerts: 10\n    window: 1d\n".replacingOccurrences(of: "1d", with: "24h") + "    per: tag\n").push.budget
                == AlertBudget(alerts: 10, window: 86400, perTag: true))
        #expect(problems("  budget: { window: 1h }\n") == ["newsgen.yml:18:11: error: push.budget needs alerts, e.g. budget: { alerts: 4, window: 1h }"])
        #expect(problems("  budget: { alerts: 0 }\n") == ["newsgen.yml:18:21: error: push.budget.alerts must be a whole number from 1 to 1000, found \"0\""])
        #expect(problems("  budget: { alerts: 4, per: tags }\n") == ["newsgen.yml:18:29: error: unknown push.budget.per \"tags\" (known: overall, tag; did you mean \"tag\"?)"])
        #expect(problems("  budget: { alerts: 4, windw: 1h }\n").first?.contains("did you mean \"window\"?") == true)
        #expect(problems("  budget: { alerts: 4, window: 0s }\n") == ["newsgen.yml:18:32: error: push.budget.window must be longer than 0s"])
    }

    @Test func aStoryMayBeExemptFromTheBudget() throws {
        #expect(Fixtures.parseStory(AlertFrontMatterTests.story("  budget: exempt\n")).0?.push.budgetExempt == true)
        #expect(Fixtures.parseStory(AlertFrontMatterTests.story("  revision: 1\n")).0?.push.budgetExempt == false)
        #expect(Fixtures.parseStory(AlertFrontMatterTests.story("  budget: exmept\n")).1.map(\.description) ==
                ["content/world/quake.md:7:11: error: unknown push.budget value \"exmept\" (known: exempt; did you mean \"exempt\"?)"])
    }
}
