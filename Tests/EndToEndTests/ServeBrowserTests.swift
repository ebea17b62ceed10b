import Foundation
import Testing
import TestSupport

/// `newsgen serve` in a real browser: Debian's chromium, driven through chromium-driver by selenium (installed by
/// scripts/setup) from Browser/serve_in_browser.py. Screenshots are kept in .build/test-artifacts/.
@Suite struct ServeBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser/serve_in_browser.py")
    static let artifacts = Repository.root.appendingPathComponent(".build/test-artifacts")

    @Test func aStoryPageShowsItsNewTitleByItselfAndThePhonePreviewShowsEveryDevicesText() async throws {
        try await offThePool {
            let site = try TemporarySite(files: BuildFixtures.files)
            let serve = try ServeProcess(site: site, environment: BuildFixtures.now)
            defer { serve.stop() }
            let configuration: [String: Any] = [
                "artifacts": Self.artifacts.path,
                "story_url": serve.url + ServeTests.quakePages[0],
                "story_file": site.url.appendingPathComponent("content/world/quake.md").path,
                "old_title": "Magnitude 7.1 earthquake strikes off the coast",
                "new_title": "Magnitude 7.4 earthquake strikes off the coast",
                "category_line": "category: [World, Sports]",
                "bad_category_line": "category: [Wrld, Sports]",
                "error_location": "content/world/quake.md:3:",
                "push_url": serve.url + "_newsgen/push/",
                "story_id": "quake-off-coast",
                "devices": [
                    "ios-english": "Magnitude 7.4 earthquake strikes off the coast",
                    "simple": "Magnitude 7.4 earthquake strikes off the coast",
                    "fcm-v1": "Magnitude 7.4 earthquake strikes off the coast",
                    "ios-french": ServeTests.quakeTitles[1],
                    "ios-mandarin": ServeTests.quakeTitles[2],
                ],
            ]
            let argument = String(decoding: try JSONSerialization.data(withJSONObject: configuration), as: UTF8.self)
            let run = try runProgram(URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.script.path, argument],
                                     environment: ["HOME": NSTemporaryDirectory()])
            #expect(run.status == 0, "\(run.standardOutput)\n\(run.standardError)")
            let report = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
            let steps = report?["steps"] as? [[String: Any]] ?? []
            #expect(steps.first?["reloaded"] as? Bool == true, "\(run.standardOutput)")
            for name in ["serve-story.png", "serve-push.png", "serve-story-error.png"] {
                #expect(FileManager.default.fileExists(atPath: Self.artifacts.appendingPathComponent(name).path), "\(name)")
            }
        }
    }
}
