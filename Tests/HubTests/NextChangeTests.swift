import Testing
@testable import Hub
@testable import News
@testable import Site

/// `next-change` as a pure function of the edition, the ledger and now.
@Suite struct NextChangeTests {
    static let now = PublishCoreTests.now  // 2026-11-29T15:00:00Z

    static func story(_ id: String, _ published: String, _ extra: String = "") -> String {
        "---\nid: \(id)\ncategory: World\npublished: \(published)\ntitle: \(id)\n\(extra)---\nBody.\n"
    }

    func changes(_ stories: [String: String], sent: [LedgerRecord] = [], config: String = PublishCoreTests.config,
                 now: Timestamp = now) throws -> [String] {
        let (edition, site) = try PublishCoreTests.edition(stories, config: config)
        _ = site
        let byKey = Dictionary(uniqueKeysWithValues: sent.map { ($0.key, $0) })
        return NextChange.upcoming(edition: edition, sent: byKey, now: now).map { "\($0.time.rfc3339) \($0.kind.rawValue) \($0.storyID)" }
    }

    @Test func futureStoriesAndTheNewsWindow() throws {
        let found = try changes([
            "content/a.md": Self.story("later", "2026-11-29T19:00:00+01:00"),
            "content/b.md": Self.story("embargo", "2026-11-29T16:00:00Z", "draft: true\n"),   // drafts never appear
            "content/c.md": Self.story("recent", "2026-11-29T14:00:00Z"),
            "content/d.md": Self.story("edge", "2026-11-27T15:00:00Z"),        // exactly 48 h ago: still listed
            "content/e.md": Self.story("gone", "2026-11-27T14:59:59Z"),        // already out of the window
        ])
        #expect(found == [
            "2026-11-29T15:00:01Z leaves-news-window edge",
            "2026-11-29T18:00:00Z story-appears later",
            "2026-12-01T14:00:01Z leaves-news-window recent",
        ])
        let (edition, site) = try PublishCoreTests.edition(["content/a.md": Self.story("later", "2026-11-29T18:00:00Z")])
        _ = site
        #expect(NextChange.next(edition: edition, sent: [:], now: Self.now)?.time.rfc3339 == "2026-11-29T18:00:00Z")
        // At the very moment a story appears it is no longer to come.
        #expect(NextChange.next(edition: edition, sent: [:], now: Timestamp(secondsSinceEpoch: Self.now.secondsSinceEpoch + 3 * 3600))?.kind == .leavesNewsWindow)
    }

    @Test func nothingScheduled() throws {
        #expect(try changes(["content/a.md": Self.story("old", "2026-11-01T10:00:00Z")]) == [])
    }

    @Test func aHeldAlertsNextSlot() throws {
        let config = PublishCoreTests.config + "\n  budget: { alerts: 1, window: 1h }\n"
        let sent = [LedgerRecord(storyId: "x", revision: 1, sentAt: "2026-11-29T14:40:00Z", tags: "World", bodySHA256: "")]
        let stories = ["content/a.md": Self.story("held", "2026-11-29T14:50:00Z", "breaking: true\n")]
        #expect(try changes(stories, sent: sent, config: config) == [
            "2026-11-29T15:40:00Z budget-slot held",
            "2026-12-01T14:50:01Z leaves-news-window held",
        ])
        // A slot after push.max_age would find the story no longer due: no change then.
        let short = PublishCoreTests.config + "\n  max_age: 30m\n  budget: { alerts: 1, window: 1h }\n"
        #expect(try changes(stories, sent: sent, config: short) == ["2026-12-01T14:50:01Z leaves-news-window held"])
    }
}
