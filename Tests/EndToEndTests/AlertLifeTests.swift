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
}
