import Foundation
import Testing
import TestSupport

/// An alert's whole life end to end, the real binary against the loopback hub double: the test send to the
/// newsroom's phones, expiry and replacement, the alert budget, the hub's telemetry and the next scheduled change.
@Suite(.serialized) struct AlertLifeTests {
    /// The seed phones plus two editors' phones registered under the newsroom's own tag.
    static var phones: [[String: Any]] {
        PublishTests.phones + [
            ["installationId": "editor-iphone", "platform": "apns", "pushChannel": "eeee", "tags": ["newsroom"],
             "templates": ["localizednewsTemplate": PublishTests.template(#"{"aps":{"alert":"$(News_English)"}}"#)]],
            ["installationId": "editor-pixel", "platform": "fcmv1", "pushChannel": "ffff", "tags": ["newsroom", "World"],
             "templates": ["fcmTemplate": PublishTests.template(#"{"message":{"notification":{"body":"$(News_English)"}}}"#)]],
        ]
    }

    static func site(extraConfig: String = "\n  test_tags: [newsroom]\n") throws -> TemporarySite {
        try PublishTests.site(extraConfig: extraConfig)
    }

    func newsgen(_ site: TemporarySite, _ hub: HubDouble, _ arguments: [String],
                 environment: [String: String]? = nil) throws -> ProgramResult {
        var env = environment ?? hub.environment()
        for (key, value) in PublishTests.now { env[key] = value }
        return try TestSupport.newsgen(arguments, in: site, environment: env)
    }

    // MARK: test send

    @Test func aTestSendReachesOnlyTheNewsroomAndRecordsNothingThenThePublishSendsOnce() throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        let before = site.snapshot(".")
        let test = try newsgen(site, hub, ["publish", "--test", "quake-off-coast"])
        #expect(test.status == 0, "\(test.standardOutput)\n\(test.standardError)")
        // Only the newsroom's phones, with the hub's test flag, and the outcome of each in the answer.
        let sends = try hub.sends()
        #expect(sends.count == 1)
        #expect((sends.first?["query"] as? [String: String])?.keys.contains("test") == true)
        #expect((sends.first?["headers"] as? [String: String])?["servicebusnotification-tags"] == "newsroom")
        let reached = try hub.deliveries().compactMap { $0["installationId"] as? String }.sorted()
        #expect(reached == ["editor-iphone", "editor-pixel"])
        #expect(test.standardOutput.contains("tested  quake-off-coast (revision 1) to newsroom: 2 succeeded, 0 failed"))
        #expect(test.standardOutput.contains("  apple editor-iphone/localizednewsTemplate: The Notification was successfully sent to the Push Notification System"))
        #expect(test.standardOutput.contains("  fcmv1 editor-pixel/fcmTemplate: "))
        // Exactly as the real send is built: same properties.
        let body = try #require(sends.first?["body"] as? String)
        #expect(body.contains(#""News_French":"Un séisme de magnitude 7,1 frappe au large des côtes""#))
        // Nothing written: no ledger, no cache, the site folder as it was.
        #expect(site.snapshot(".") == before)

        // The real publish still announces it, once, to its category.
        let real = try newsgen(site, hub, ["publish"])
        #expect(real.status == 0, "\(real.standardOutput)")
        #expect(real.standardOutput.contains("sent    quake-off-coast (revision 1) to World"))
        let realSends = try hub.sends().dropFirst()
        #expect(realSends.count == 2)
        #expect(realSends.allSatisfy { ($0["query"] as? [String: String])?.keys.contains("test") == false })
        let again = try newsgen(site, hub, ["publish"])
        #expect(again.standardOutput.contains("skip    quake-off-coast: already sent"))
        #expect(try hub.sends().count == 3)
    }

    @Test func aTestSendWorksForAnyStoryAndToOverridesTheAudience() throws {
        let hub = try HubDouble(installations: Self.phones)
        let site = try Self.site()
        try site.write("content/world/draft.md", "---\ncategory: World\npublished: 2026-11-30T09:00:00Z\ndraft: true\ntitle: Embargoed\n---\nLater.\n")
        // Not breaking, old, a future draft: all can be tried on the phones.
        for id in ["calm", "yesterday", "draft"] {
            let result = try newsgen(site, hub, ["publish", "--test", id, "--to", "newsroom && !World"])
            #expect(result.status == 0, "\(id): \(result.standardOutput)\(result.standardError)")
            #expect(result.standardOutput.contains("tested  \(id) (revision 1) to newsroom && !World: 1 succeeded, 0 failed"))
        }
        #expect(try hub.deliveries().allSatisfy { $0["installationId"] as? String == "editor-iphone" && $0["test"] as? Bool == true })
        let json = try newsgen(site, hub, ["publish", "--test", "calm", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let result = try #require(report["result"] as? [String: Any])
        #expect(result["status"] as? String == "tested")
        #expect((result["registrations"] as? [[String: Any]])?.compactMap { $0["platform"] as? String }.sorted() == ["apple", "fcmv1"])
        #expect(report["tags"] as? String == "newsroom")
        #expect(!json.standardOutput.contains("eeee"))   // device handles are not printed
        #expect(!FileManager.default.fileExists(atPath: site.url.appendingPathComponent(".newsgen/push-ledger.json").path))
    }

    @Test func aTestSendRefusesAnEmptyAudienceAnUnknownStoryAndAnOversizedPayload() throws {
        let hub = try HubDouble(installations: Self.phones)
        let noAudience = try Self.site(extraConfig: "")
        let empty = try newsgen(noAudience, hub, ["publish", "--test", "quake-off-coast"])
        #expect(empty.status == 1)
        #expect(empty.standardError.contains("error: no test audience: set push.test_tags in newsgen.yml"))
        let site = try Self.site()
        let unknown = try newsgen(site, hub, ["publish", "--test", "quake-of-coast"])
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("no story has the id \"quake-of-coast\" (did you mean \"quake-off-coast\"?)"))
        let badTo = try newsgen(site, hub, ["publish", "--test", "calm", "--to", "newsroom &&"])
        #expect(badTo.status == 1)
        #expect(badTo.standardError.contains("error: --to: "))
        let long = String(repeating: "Très long texte d’alerte. ", count: 200)
        try site.write("content/world/calm.md", "---\ncategory: World\npublished: 2026-11-29T14:00:00Z\ntitle: Calm news\npush:\n  text: { fr: \"\(long)\" }\n---\nCalm.\n")
        let big = try newsgen(site, hub, ["publish", "--test", "calm"])
        #expect(big.status == 1)
        #expect(big.standardError.contains("is over the 4096-byte platform limit; shorten the push text; nothing was sent"))
        let usage = try newsgen(site, hub, ["publish", "--to", "newsroom"])
        #expect(usage.status == 64)
        let dry = try newsgen(site, hub, ["publish", "--test", "calm", "--dry-run"])
        #expect(dry.status == 64)
        #expect(try hub.requests().isEmpty)
    }

    // MARK: expiry, replacement, priority

    /// One phone per sample device template of templates/devices/, registered exactly as the file says (an
    /// installation template with headers, or a bare body), all following World.
    static func sampleDevicePhones() throws -> [[String: Any]] {
        let folder = Repository.root.appendingPathComponent("templates/devices")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted().map { file in
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let template: [String: Any] = json["body"] is String ? json : ["body": text]
            let name = String(file.dropLast(5))
            return ["installationId": name, "platform": name.hasPrefix("fcm") ? "fcmv1" : "apns", "pushChannel": "ch-" + name,
                    "tags": ["World"], "templates": [name: template]]
        }
    }

    @Test func everySampleDeviceTemplateGetsExpiryPriorityAndCollapseIdAndAnUpdateReplacesTheAlert() throws {
        let phones = try Self.sampleDevicePhones()
        #expect(phones.count == 5)
        let hub = try HubDouble(installations: phones)
        let site = try Self.site()
        let first = try newsgen(site, hub, ["publish"])
        #expect(first.status == 0, "\(first.standardOutput)\(first.standardError)")
        // now = 2026-11-29T15:00:00Z; push.expires is 3 h by default. Both World stories reach every phone.
        let deliveries = try hub.deliveries()
        for name in ["ios-english", "ios-french", "ios-mandarin", "simple"] {
            let headers = deliveries.filter { $0["installationId"] as? String == name }.compactMap { $0["headers"] as? [String: String] }
            #expect(Set(headers.compactMap { $0["apns-collapse-id"] }) == ["quake-off-coast", "final"], "\(name)")
            #expect(headers.count == 2 && headers.allSatisfy {
                $0["apns-expiration"] == "1795975200" && $0["apns-priority"] == "10" && $0["apns-push-type"] == "alert"
            }, "\(name): \(headers)")
        }
        let quake = deliveries.filter { (($0["payloadText"] as? String) ?? "").contains("quake-off-coast") }
        let fcm = try #require(quake.first { $0["installationId"] as? String == "fcm-v1" }?["payload"] as? [String: Any])
        let android = try #require((fcm["message"] as? [String: Any])?["android"] as? [String: Any])
        #expect(android["ttl"] as? String == "10800s")
        #expect(android["priority"] as? String == "HIGH")
        #expect(android["collapse_key"] as? String == "quake-off-coast")
        #expect(((android["notification"] as? [String: Any])?["tag"] as? String) == "quake-off-coast")

        // An update of the story: a new alert with the same collapse id, so it replaces the first on the lock screen.
        try hub.control("reset", method: "POST")
        try site.write("content/world/quake.md", PublishTests.stories["content/world/quake.md"]!
            .replacingOccurrences(of: "breaking: true", with: "breaking: true\npush: { revision: 2, expires: 30m }"))
        let update = try newsgen(site, hub, ["publish"])
        #expect(update.standardOutput.contains("sent    quake-off-coast (revision 2) to World"))
        let again = try hub.deliveries()
        #expect(again.count == 5)
        for delivery in again where (delivery["platform"] as? String) == "apns" {
            let headers = try #require(delivery["headers"] as? [String: String])
            #expect(headers["apns-collapse-id"] == "quake-off-coast")
            #expect(headers["apns-expiration"] == "1795966200")   // the story's own 30 minutes
        }
        let body = try #require(try hub.sends().first?["body"] as? String)
        #expect(body.contains(#""notificationId":"quake-off-coast:2""#))
        #expect(body.contains(#""collapseId":"quake-off-coast""#))
    }

    @Test func theDryRunShowsEachDevicesHeadersAndCountsThemInTheBudget() throws {
        let hub = try HubDouble(installations: [])
        let site = try Self.site()
        let result = try newsgen(site, hub, ["publish", "--dry-run"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("      apns-collapse-id: quake-off-coast\n      apns-expiration: 1795975200\n      apns-priority: 10\n      apns-push-type: alert"))
        let json = try newsgen(site, hub, ["publish", "--dry-run", "--json"])
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let stories = try #require(plan["stories"] as? [[String: Any]])
        let devices = try #require(stories.last?["devices"] as? [[String: Any]])
        let french = try #require(devices.first { $0["device"] as? String == "ios-french" })
        let headers = try #require(french["headers"] as? [String: String])
        #expect(headers["apns-priority"] == "10")
        let payload = try #require(french["payload"] as? String)
        let headerBytes = headers.reduce(0) { $0 + $1.key.utf8.count + 2 + $1.value.utf8.count }
        #expect(french["bytes"] as? Int == payload.utf8.count + headerBytes)
    }

    // MARK: budget

    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// Five breaking World stories published in the last half hour of the real clock (the ledger's clock).
    static func busySite() throws -> TemporarySite {
        var files = ["newsgen.yml": BuildFixtures.config + "\npush:\n  hub: newsgen-test\n  budget: { alerts: 4, window: 1h }\n"]
        for n in 1...5 {
            let published = rfc3339(Date().addingTimeInterval(Double(-30 + n) * 60))
            files["content/world/s\(n).md"] = "---\nid: s\(n)\ncategory: World\npublished: \(published)\nbreaking: true\ntitle: Story \(n)\n---\nBody.\n"
        }
        return try TemporarySite(files: files)
    }

    @Test func theBudgetHoldsTheFifthAlertOfAnHourAndALaterRunSendsItWhenTheWindowOpens() throws {
        let hub = try HubDouble(installations: PublishTests.phones)
        let site = try Self.busySite()
        // The real clock, as in CI: the ledger's times and "now" agree.
        let first = try TestSupport.newsgen(["publish"], in: site, environment: hub.environment())
        #expect(first.status == 0, "\(first.standardOutput)\(first.standardError)")
        #expect(try hub.sends().count == 4)
        #expect(first.standardOutput.contains("held    s5 (revision 1) to World: over the alert budget (4 in the last hour, next slot at "), "\(first.standardOutput)")
        #expect(first.standardOutput.hasSuffix("4 sent, 0 skipped, 1 held, 0 failed\n"))
        let json = try TestSupport.newsgen(["publish", "--dry-run", "--json"], in: site, environment: hub.environment())
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let held = try #require((plan["stories"] as? [[String: Any]])?.first { $0["action"] as? String == "held" })
        #expect(held["id"] as? String == "s5")
        #expect((held["nextSlot"] as? String)?.hasSuffix("Z") == true)

        // A run inside the hour still holds it; nothing is dropped and nothing more is sent.
        let second = try TestSupport.newsgen(["publish"], in: site, environment: hub.environment())
        #expect(second.standardOutput.contains("held    s5"))
        #expect(try hub.sends().count == 4)

        // An hour later (the four sends age out of the window): the next run sends it, once.
        let ledgerPath = ".newsgen/push-ledger.json"
        var ledger = try #require(try JSONSerialization.jsonObject(with: Data(try site.read(ledgerPath).utf8)) as? [String: Any])
        var records = try #require(ledger["sends"] as? [[String: Any]])
        for index in records.indices {
            let sentAt = try #require(ISO8601DateFormatter().date(from: records[index]["sentAt"] as? String ?? ""))
            records[index]["sentAt"] = Self.rfc3339(sentAt.addingTimeInterval(-3601))
        }
        ledger["sends"] = records
        try site.write(ledgerPath, try JSONSerialization.data(withJSONObject: ledger))
        let third = try TestSupport.newsgen(["publish"], in: site, environment: hub.environment())
        #expect(third.standardOutput.contains("sent    s5 (revision 1) to World"), "\(third.standardOutput)")
        #expect(try hub.sends().count == 5)
        let fourth = try TestSupport.newsgen(["publish"], in: site, environment: hub.environment())
        #expect(fourth.standardOutput.contains("skip    s5: already sent"))
        #expect(try hub.sends().count == 5)
    }

    @Test func aStoryMarkedExemptGoesOutOverTheBudget() throws {
        let hub = try HubDouble(installations: PublishTests.phones)
        let site = try Self.busySite()
        let path = "content/world/s5.md"
        try site.write(path, try site.read(path).replacingOccurrences(of: "breaking: true", with: "breaking: true\npush: { budget: exempt }"))
        let result = try TestSupport.newsgen(["publish"], in: site, environment: hub.environment())
        #expect(result.standardOutput.hasSuffix("5 sent, 0 skipped, 0 failed\n"), "\(result.standardOutput)")
        #expect(try hub.sends().count == 5)
    }

    // MARK: status

    @Test func statusShowsTheHubsTelemetryOnStandardAndItsNotesOn403AndUnknownIds() throws {
        let hub = try HubDouble(installations: PublishTests.phones)
        let site = try Self.site()
        #expect(try newsgen(site, hub, ["publish"]).status == 0)
        let status = try newsgen(site, hub, ["status"])
        #expect(status.status == 0, "\(status.standardOutput)\(status.standardError)")
        let out = status.standardOutput
        #expect(out.contains("quake-off-coast (revision 1) sent "))
        #expect(out.contains(" to World\n  notification id "))
        #expect(out.contains("  Completed; apns: 2 Success\n"), "\(out)")   // the French phone and the old app
        #expect(out.contains("final (revision 1) sent "))
        #expect(out.contains("  Completed; apns: 3 Success"))
        let gets = try hub.requests().filter { $0["method"] as? String == "GET" }
        #expect(gets.count == 2)
        #expect(gets.allSatisfy { ($0["path"] as? String)?.hasPrefix("/newsgen-test/messages/") == true && ($0["status"] as? Int) == 200 })

        // One story, as JSON.
        let json = try newsgen(site, hub, ["status", "final", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let sends = try #require(report["sends"] as? [[String: Any]])
        #expect(sends.count == 1)
        let telemetry = try #require(sends.first?["telemetry"] as? [String: Any])
        #expect(telemetry["available"] as? Bool == true)
        #expect(telemetry["state"] as? String == "Completed")
        #expect((telemetry["outcomes"] as? [String: [String: Int]])?["apns"]?["Success"] == 3)

        // The same ledger asked of a Free hub (403) and of a hub that never saw these ids (404).
        let free = try HubDouble(installations: [], tier: "free")
        let refused = try newsgen(site, free, ["status", "quake-off-coast"])
        #expect(refused.status == 0)
        #expect(refused.standardOutput.contains("  telemetry not available: the hub answered 403 (per-message telemetry needs the Standard tier"))
        let other = try HubDouble(installations: [])
        let unknown = try newsgen(site, other, ["status", "--json"])
        #expect(unknown.status == 0)
        let unknownSends = try #require((try JSONSerialization.jsonObject(with: Data(unknown.standardOutput.utf8)) as? [String: Any])?["sends"] as? [[String: Any]])
        #expect(unknownSends.count == 2)
        #expect(unknownSends.allSatisfy { (($0["telemetry"] as? [String: Any])?["note"] as? String)?.contains("(HTTP 404)") == true })
        #expect(unknownSends.allSatisfy { ($0["telemetry"] as? [String: Any])?["available"] as? Bool == false })

        // Old sends are outside the default 24 hours; a story id asks for them anyway; a wrong id is explained.
        let later = try TestSupport.newsgen(["status"], in: site, environment: hub.environment().merging(["SOURCE_DATE_EPOCH": String(Int(Date().timeIntervalSince1970) + 2 * 86400)]) { $1 })
        #expect(later.standardOutput.contains("no sends in the last 24 h"))
        let typo = try newsgen(site, hub, ["status", "quake-of-coast"])
        #expect(typo.status == 1)
        #expect(typo.standardError.contains("the ledger has no send of \"quake-of-coast\" (did you mean \"quake-off-coast\"?)"))
        let wrongKey = try newsgen(site, hub, ["status"], environment: hub.environment(key: "d3Jvbmc="))
        #expect(wrongKey.status == 1)
        #expect(wrongKey.standardOutput.contains("telemetry could not be read: HTTP 401"))
    }

    @Test func aSendWithoutANotificationIdHasNoTelemetryToAskFor() throws {
        let hub = try HubDouble(installations: PublishTests.phones, tier: "basic")
        let site = try Self.site()
        let waited = try newsgen(site, hub, ["publish", "--wait"])
        #expect(waited.status == 0)
        #expect(waited.standardOutput.contains("  hub: no notification id: the hub did not return one"))
        let status = try newsgen(site, hub, ["status"])
        #expect(status.standardOutput.contains("  no notification id: the hub did not return one when it accepted the send (Free and Basic hubs do not)"))
        #expect(try hub.requests().filter { $0["method"] as? String == "GET" }.isEmpty)
    }

    @Test func publishWaitPrintsTheFirstOutcome() throws {
        let hub = try HubDouble(installations: PublishTests.phones)
        // The hub takes a moment before it has telemetry: newsgen asks again until it does.
        try hub.control("telemetry", method: "POST", json: ["delay_ms": 1500])
        let site = try Self.site()
        let result = try newsgen(site, hub, ["publish", "--wait"])
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("sent    quake-off-coast (revision 1) to World: hub notification id "))
        #expect(result.standardOutput.contains("  hub: Completed; apns: 2 Success\n"), "\(result.standardOutput)")
        let gets = try hub.requests().filter { $0["method"] as? String == "GET" }
        #expect(gets.count >= 4)   // 404 at first, for each of the two stories
        #expect(gets.contains { $0["status"] as? Int == 404 })
        let json = try newsgen(try Self.site(), hub, ["publish", "--wait", "--json"])
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let sent = try #require((plan["stories"] as? [[String: Any]])?.compactMap { $0["result"] as? [String: Any] }.first)
        #expect((sent["telemetry"] as? [String: Any])?["state"] as? String == "Completed")
    }

    // MARK: next-change

    @Test func nextChangeNamesTheFirstFutureStoryTheNewsWindowAndAHeldAlert() throws {
        let hub = try HubDouble(installations: [])
        let site = try PublishTests.site()
        // now 2026-11-29T15:00:00Z: "yesterday" (published 2026-11-28T09:00:00Z) leaves the news sitemap first.
        let window = try newsgen(site, hub, ["next-change"])
        #expect(window.status == 0, "\(window.standardError)")
        #expect(window.standardOutput == "2026-11-30T09:00:01Z\n")
        // A story scheduled for this evening comes first.
        try site.write("content/world/evening.md", "---\ncategory: World\npublished: 2026-11-29T18:30:00+01:00\nbreaking: true\ntitle: Evening\n---\nLater.\n")
        #expect(try newsgen(site, hub, ["next-change"]).standardOutput == "2026-11-29T17:30:00Z\n")
        // With a budget and a full hour in the ledger, the held alert's slot is sooner still.
        try site.write("newsgen.yml", PublishTests.config + "\n  budget: { alerts: 1 }\n")
        try site.write(".newsgen/push-ledger.json", """
        {"format": "newsgen-push-ledger-1", "sends": [{"storyId": "other", "revision": 1, "sentAt": "2026-11-29T14:20:00Z",
         "tags": "World", "bodySHA256": "00"}]}
        """)
        let held = try newsgen(site, hub, ["next-change", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(held.standardOutput.utf8)) as? [String: Any])
        #expect(report["next"] as? String == "2026-11-29T15:20:00Z")
        let first = try #require((report["changes"] as? [[String: Any]])?.first)
        #expect(first["kind"] as? String == "budget-slot")
        #expect(first["story"] as? String == "final")   // both due stories wait for the same slot
        #expect(try newsgen(site, hub, ["next-change"]).standardOutput == "2026-11-29T15:20:00Z\n")
        // Nothing edited, nothing sent, nothing written.
        #expect(try hub.requests().isEmpty)
    }

    @Test func nextChangePrintsNothingWhenNothingIsScheduledAndExplainsErrors() throws {
        let hub = try HubDouble(installations: [])
        let site = try TemporarySite(files: ["newsgen.yml": PublishTests.config,
                                             "content/old.md": "---\ncategory: World\npublished: 2026-10-01T10:00:00Z\ntitle: Old\n---\nOld.\n"])
        let none = try newsgen(site, hub, ["next-change"])
        #expect(none.status == 0)
        #expect(none.standardOutput.isEmpty)
        try site.write(".newsgen/push-ledger.json", "{ damaged")
        let damaged = try newsgen(site, hub, ["next-change"])
        #expect(damaged.status == 1)
        #expect(damaged.standardError.contains("is damaged"))
        #expect(try newsgen(site, hub, ["next-change", "--soon"]).status == 64)
    }
}
