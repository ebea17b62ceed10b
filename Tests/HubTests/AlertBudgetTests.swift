import Testing
@testable import Hub
@testable import News
@testable import Site

/// The alert budget as a pure function of the ledger's sends, now and the config: one test per edge.
@Suite struct AlertBudgetTests {
    static let now = 1_795_964_400.0  // 2026-11-29T15:00:00Z
    static let four = AlertBudget(alerts: 4)

    static func sends(_ minutesAgo: [Double], tags: [String] = ["World"]) -> [CountedSend] {
        minutesAgo.map { CountedSend(time: now - $0 * 60, tags: tags) }
    }

    @Test func exactlyAtTheLimit() throws {
        #expect(Self.four.hold(tags: ["World"], sends: Self.sends([50, 40, 30]), now: Self.now) == nil)
        let hold = try #require(Self.four.hold(tags: ["World"], sends: Self.sends([50, 40, 30, 20]), now: Self.now))
        #expect(hold.count == 4)
        #expect(hold.tag == nil)
        #expect(hold.nextSlot.rfc3339 == "2026-11-29T15:10:00Z")   // when the send of 14:10 leaves the hour
        // Over the limit (an exempt story went out too): the slot opens when two have left.
        #expect(Self.four.hold(tags: ["World"], sends: Self.sends([50, 40, 30, 20, 10]), now: Self.now)?.nextSlot.rfc3339 == "2026-11-29T15:20:00Z")
    }

    @Test func theWindowIsOpenAtItsFarEnd() {
        // A send exactly an hour ago no longer counts; one a second later still does.
        #expect(Self.four.hold(tags: ["World"], sends: Self.sends([60, 40, 30, 20]), now: Self.now) == nil)
        let hold = Self.four.hold(tags: ["World"], sends: Self.sends([60 - 1.0 / 60, 40, 30, 20]), now: Self.now)
        #expect(hold?.nextSlot.rfc3339 == "2026-11-29T15:00:01Z")
        // The slot is exactly when the oldest leaves: asking again at that moment finds room.
        #expect(Self.four.hold(tags: ["World"], sends: Self.sends([60 - 1.0 / 60, 40, 30, 20]), now: Self.now + 1) == nil)
        // A longer window counts further back.
        let day = AlertBudget(alerts: 4, window: 86400)
        #expect(day.hold(tags: ["World"], sends: Self.sends([600, 500, 400, 300]), now: Self.now)?.nextSlot.rfc3339 == "2026-11-30T05:00:00Z")
    }

    @Test func perTagAgainstOverall() throws {
        let world = Self.sends([50, 40, 30, 20], tags: ["World"])
        // Overall, a Sports alert waits behind four World alerts; per tag it does not.
        #expect(Self.four.hold(tags: ["Sports"], sends: world, now: Self.now) != nil)
        let perTag = AlertBudget(alerts: 4, perTag: true)
        #expect(perTag.hold(tags: ["Sports"], sends: world, now: Self.now) == nil)
        // A story in World and Sports waits for World, and names it.
        let both = try #require(perTag.hold(tags: ["Sports", "World"], sends: world, now: Self.now))
        #expect(both.tag == "World")
        #expect(both.count == 4)
        // Two full tags: it waits until both have room.
        let sports = Self.sends([45, 35, 25, 5], tags: ["Sports"])
        #expect(perTag.hold(tags: ["Sports", "World"], sends: world + sports, now: Self.now)?.nextSlot.rfc3339 == "2026-11-29T15:15:00Z")
        // A send to several tags counts once for each.
        let multi = Self.sends([50, 40, 30, 20], tags: ["World", "Sports"])
        #expect(perTag.hold(tags: ["Sports"], sends: multi, now: Self.now)?.tag == "Sports")
    }

    @Test func sendsFromAClockThatWasAheadCount() {
        #expect(Self.four.hold(tags: ["World"], sends: Self.sends([30, 20, 10, -5]), now: Self.now) != nil)
    }

    @Test func theLedgerIsWhatTheBudgetCounts() {
        let records = [
            LedgerRecord(storyId: "a", revision: 1, sentAt: "2026-11-29T14:10:00Z", tags: "World || Sports", bodySHA256: ""),
            LedgerRecord(storyId: "b", revision: 1, sentAt: "not a time", tags: "World", bodySHA256: ""),
        ]
        #expect(AlertBudget.sends(from: records) == [CountedSend(time: Self.now - 50 * 60, tags: ["World", "Sports"])])
    }
}

/// The budget inside the plan: the fifth due story of an hour waits, an exempt one does not, max_age still rules.
@Suite struct BudgetPlanTests {
    static let config = PublishCoreTests.config + "\n  budget: { alerts: 4, window: 1h }\n"

    static func story(_ id: String, published: String, extra: String = "") -> String {
        "---\nid: \(id)\ncategory: World\npublished: \(published)\nbreaking: true\ntitle: \(id)\n\(extra)---\nBody.\n"
    }

    static func record(_ id: String, _ sentAt: String) -> LedgerRecord {
        LedgerRecord(storyId: id, revision: 1, sentAt: sentAt, tags: "World", bodySHA256: "")
    }

    func plan(_ stories: [String: String], sent: [LedgerRecord] = [], now: Timestamp = PublishCoreTests.now,
              config: String = config) throws -> [PlanEntry] {
        let (edition, site) = try PublishCoreTests.edition(stories, config: config)
        _ = site
        return NotificationPlanner(edition: edition, now: now, sent: Dictionary(uniqueKeysWithValues: sent.map { ($0.key, $0) })).plan()
    }

    func summary(_ entries: [PlanEntry]) -> [String] {
        entries.map { entry in
            switch entry {
            case .send(let n): "send \(n.story.id)"
            case .held(let n, let reason, _): "held \(n.story.id): \(reason)"
            case .skip(let story, let reason): "skip \(story.id): \(reason)"
            case .fail(let story, let reason): "fail \(story.id): \(reason)"
            }
        }
    }

    @Test func theFifthDueStoryOfAnHourIsHeldAndSentWhenASlotOpens() throws {
        var stories: [String: String] = [:]
        for n in 1...5 { stories["content/s\(n).md"] = Self.story("s\(n)", published: "2026-11-29T14:0\(n):00Z") }
        let first = try plan(stories)
        #expect(summary(first) == ["send s1", "send s2", "send s3", "send s4",
                                   "held s5: over the alert budget (4 in the last hour, next slot at 2026-11-29T16:00:00Z)"])
        guard case .held(_, _, let slot) = first[4] else { Issue.record("not held"); return }
        // The four went out at 15:00; at the slot the window has room again.
        let sent = (1...4).map { Self.record("s\($0)", "2026-11-29T15:00:00Z") }
        #expect(summary(try plan(stories, sent: sent, now: Timestamp(secondsSinceEpoch: slot.secondsSinceEpoch - 1))).last?.hasPrefix("held s5") == true)
        #expect(summary(try plan(stories, sent: sent, now: slot)).last == "send s5")
    }

    @Test func anEditorCanLetAStoryThatCannotWaitGoOverTheBudget() throws {
        let sent = ["a", "b", "c", "d"].map { Self.record($0, "2026-11-29T14:30:00Z") }
        let stories = [
            "content/urgent.md": Self.story("urgent", published: "2026-11-29T14:50:00Z", extra: "push: { budget: exempt }\n"),
            "content/later.md": Self.story("later", published: "2026-11-29T14:55:00Z"),
        ]
        #expect(summary(try plan(stories, sent: sent)) == [
            "send urgent",
            "held later: over the alert budget (5 in the last hour, next slot at 2026-11-29T15:30:00Z)",
        ])
        #expect(summary(try plan(stories, sent: sent, config: PublishCoreTests.config)) == ["send urgent", "send later"])
    }

    @Test func maxAgeEndsAHoldThatLastsTooLong() throws {
        let config = PublishCoreTests.config + "\n  max_age: 1h\n  budget: { alerts: 1, window: 2h }\n"
        let stories = ["content/old.md": Self.story("old", published: "2026-11-29T14:30:00Z")]
        let sent = [Self.record("x", "2026-11-29T14:45:00Z")]
        let held = summary(try plan(stories, sent: sent, config: config))
        #expect(held == ["held old: over the alert budget (1 in the last 2 h, next slot at 2026-11-29T16:45:00Z); push.max_age ends before that, at 2026-11-29T15:30:00Z, so it will not be announced unless it is marked push.budget: exempt"])
        // Once max_age is over, the story is no longer due at all: never announced late.
        let later = summary(try plan(stories, sent: sent, now: Timestamp(secondsSinceEpoch: PublishCoreTests.now.secondsSinceEpoch + 45 * 60), config: config))
        #expect(later == ["skip old: published 1 h 15 min ago, older than push.max_age (1 h); never announced late"])
    }

    @Test func perTagBudgetNamesTheFullTag() throws {
        let config = PublishCoreTests.config + "\n  budget: { alerts: 2, per: tag }\n"
        let sent = [Self.record("a", "2026-11-29T14:30:00Z"), Self.record("b", "2026-11-29T14:40:00Z")]
        let stories = [
            "content/w.md": Self.story("w", published: "2026-11-29T14:50:00Z"),
            "content/p.md": "---\nid: p\ncategory: Politics\npublished: 2026-11-29T14:51:00Z\nbreaking: true\ntitle: p\n---\nB.\n",
        ]
        #expect(summary(try plan(stories, sent: sent, config: config)) == [
            "held w: over the alert budget (2 World alerts in the last hour, next slot at 2026-11-29T15:30:00Z)",
            "send p",
        ])
    }
}
