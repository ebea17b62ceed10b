import Foundation
import Testing
@testable import Hub
import Site
import TestSupport

/// The plan `publish` prints and serve's phone preview shows.
@Suite struct PublishPlanTests {
    static let draft = """
    ---
    category: World
    published: 2026-11-29T14:00:00Z
    breaking: true
    draft: true
    title: { en: Ferry strike halts crossings }
    ---
    Body.
    """

    static func story(_ title: String) -> String {
        """
        ---
        category: World
        published: 2026-11-29T14:00:00Z
        breaking: true
        title: { en: "\(title)" }
        ---
        Body.
        """
    }

    @Test func aPayloadOverTheLimitFailsWithItsPreviewsKeptAndASkippedStoryStillHasItsAlert() throws {
        let (edition, site) = try PublishCoreTests.edition(["content/long.md": Self.story(String(repeating: "x", count: 4200)),
                                                              "content/short.md": Self.story("Short"),
                                                              "content/ferry.md": Self.draft])
        _ = site
        let devices = DeviceCatalog.load(edition)
        #expect(devices.problems.isEmpty && !devices.kinds.isEmpty)
        let plan = PublishPlan(edition: edition, now: PublishCoreTests.now, sent: [:], devices: devices.kinds)
        var actions: [String: String] = [:]
        for entry in plan.entries {
            switch entry {
            case .send: actions[entry.story.id] = "send"
            case .fail(_, let reason): actions[entry.story.id] = "fail: " + reason
            case .skip(_, let reason): actions[entry.story.id] = "skip: " + reason
            case .held: actions[entry.story.id] = "held"
            }
        }
        #expect(actions["short"] == "send")
        #expect(actions["ferry"] == "skip: draft")
        #expect(actions["long"]?.hasPrefix("fail: the payload for ") == true, "\(actions)")
        #expect(plan.previews["long"]?.contains(where: \.isOverLimit) == true)
        #expect(plan.previews["short"]?.count == devices.kinds.count)
        let ferry = try #require(edition.stories.first { $0.id == "ferry" })
        let alert = try #require(plan.notification(ifSent: ferry))
        #expect(alert.properties["News_English"] == "Ferry strike halts crossings")
        #expect(alert.tags.headerValue == "World")
        #expect(alert.filledNote(defaultLanguage: edition.config.defaultLanguage) == "no text in French (fr), Arabic (ar): those devices get the English text")
    }
}
