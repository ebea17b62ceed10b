import Foundation
import Testing
import TestSupport

/// A breaking story with a photo carries the picture's URL in its notification (`image`), which the sample
/// device templates put where each platform shows it; a story without one carries no image property at all.
@Suite struct RichNotificationTests {
    static func site() throws -> TemporarySite {
        let site = try PublishTests.site()
        let quake = try #require(PublishTests.stories["content/world/quake.md"])
        try site.write("content/world/quake.md", quake.replacingOccurrences(of: "breaking: true", with: "breaking: true\nimage: /media/coast.jpg"))
        try site.write("media/coast.jpg", try Data(contentsOf: PhotoTests.flatPhoto))
        return site
    }

    @Test func theNotificationOfAStoryWithAPhotoCarriesItsCardCrop() throws {
        let site = try Self.site()
        let hub = try HubDouble(installations: PublishTests.phones)
        var env = hub.environment()
        for (key, value) in PublishTests.now { env[key] = value }
        let json = try newsgen(["publish", "--dry-run", "--json"], in: site, environment: env)
        #expect(json.status == 0, "\(json.standardError)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let stories = try #require(plan["stories"] as? [[String: Any]])
        var bodies: [String: [String: String]] = [:]
        for story in stories {
            guard let id = story["id"] as? String ?? story["story"] as? String,
                  let body = (story["request"] as? [String: Any])?["body"] as? [String: String] else { continue }
            bodies[id] = body
        }
        let quake = try #require(bodies["quake-off-coast"], "\(stories)")
        #expect(quake["image"] == "https://news.example.com/media/coast-1200x630.jpg")
        let final = try #require(bodies["final"], "\(bodies.keys)")
        #expect(final["image"] == nil, "a story without a photo must send no image property")

        // The sample device templates as `publish --dry-run` shows them.
        let text = try newsgen(["publish", "--dry-run"], in: site, environment: env)
        #expect(text.status == 0, "\(text.standardError)")
        let devices = text.standardOutput.split(separator: "\n")
            .filter { $0.hasPrefix("    fcm-v1 (") || $0.hasPrefix("    ios-english (") }
            .map { String($0.drop { $0 != "{" }) }
        #expect(devices.count == 4, "\(text.standardOutput)")
        let golden = Repository.root.appendingPathComponent("Tests/EndToEndTests/Golden/payloads/rich-notifications.txt")
        let problem = GoldenFile.problem(devices.joined(separator: "\n") + "\n", golden: golden)
        #expect(problem == nil, "\(problem ?? "")")
        #expect(devices.contains { $0.contains(#""image":"https://news.example.com/media/coast-1200x630.jpg""#) })
        #expect(devices.contains { $0.contains(#""mutable-content":1},"imageUrl":"https://news.example.com/media/coast-1200x630.jpg""#) })
    }
}
