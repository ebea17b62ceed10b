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

    static let photoScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser/photos_in_browser.py")

    /// The sample site's photos as readers see them on a desktop window and on a phone's narrow, dense screen: each
    /// loads, from the WebP source, in a file at least as wide as it is drawn, in its stated proportions, without
    /// moving the page; the story's lead photo comes first, with the alt text of the page's language and its credit.
    @Test(arguments: [("desktop", "1280,1400", 1), ("phone", "412,915", 2)])
    func theSamplePhotosLoadInTheSizeTheyAreDrawnWithoutMovingThePage(screen: String, window: String, scale: Int) async throws {
        try await offThePool {
            let site = try TemporarySite.sample()
            let serve = try ServeProcess(site: site)
            defer { serve.stop() }
            let story = "2026/11/02/rhine-low-water/"
            let alt = ["en": "Sandbanks showing along the Rhine below green hills",
                       "fr": "Des bancs de sable apparents le long du Rhin sous des collines vertes",
                       "zh-hans": "绿色山丘下莱茵河沿岸露出的沙洲"]
            var pages: [[String: Any]] = [["url": serve.url + "en/", "screenshot": "photos-front-\(screen).png", "min_photos": 3]]
            for (language, text) in alt.sorted(by: { $0.key < $1.key }) {
                pages.append(["url": serve.url + "\(language)/\(story)", "screenshot": "photos-story-\(language)-\(screen).png",
                              "lead": true, "alt": text, "credit": "Lukas Brenner / Example News"])
            }
            let configuration: [String: Any] = ["artifacts": Self.artifacts.path, "window": window, "scale": scale, "pages": pages]
            let argument = String(decoding: try JSONSerialization.data(withJSONObject: configuration), as: UTF8.self)
            let run = try runProgram(URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.photoScript.path, argument],
                                     environment: ["HOME": NSTemporaryDirectory()])
            #expect(run.status == 0, "\(run.standardOutput)\n\(run.standardError)")
            let report = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
            #expect((report?["pages"] as? [Any])?.count == pages.count, "\(run.standardOutput)")
            for page in pages {
                let name = page["screenshot"] as! String
                #expect(FileManager.default.fileExists(atPath: Self.artifacts.appendingPathComponent(name).path), "\(name)")
            }
        }
    }
}
