import Testing
@testable import Site

/// The newsgen.yml and front-matter keys of an alert's life: test audience, expiry, priority, budget.
@Suite struct AlertSettingsTests {
    func problems(_ text: String) -> [String] {
        var diagnostics: [Diagnostic] = []
        _ = SiteConfig.parse(text, path: "newsgen.yml", diagnostics: &diagnostics)
        return diagnostics.map(\.description)
    }

    @Test func testTagsAreHubTags() {
        #expect(Fixtures.siteConfig(Fixtures.config + "\npush:\n  test_tags: [newsroom, desk@night]\n").push.testTags == ["newsroom", "desk@night"])
        #expect(Fixtures.siteConfig(Fixtures.config + "\npush:\n  test_tags: newsroom\n").push.testTags == ["newsroom"])
        #expect(Fixtures.siteConfig().push.testTags == [])
        #expect(problems(Fixtures.config + "\npush:\n  test_tags: [newsroom, news room]\n") ==
                ["newsgen.yml:18:25: error: push.test_tags: \"news room\" cannot be a push tag: \" \" is not allowed in a tag (letters, digits and _ @ # . : - only)"])
        #expect(problems(Fixtures.config + "\npush:\n  test_tag: newsroom\n").first?.contains("did you mean \"test_tags\"?") == true)
    }
}
