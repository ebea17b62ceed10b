import Foundation
import Testing
import TestSupport

/// serve keeps what it can between rebuilds (the engine, its look at the sources, its record of the folder it
/// serves) and looks again only at the paths its watcher reports. Whatever the change, the folder it serves must
/// then hold exactly what a clean `newsgen build` with the same base URL writes.
@Suite(.serialized) struct ServeRebuildTests {
    static let ferry = """
        ---
        category: World
        published: 2026-11-29T10:00:00Z
        title: Ferry strike halts Channel crossings
        ---
        Crossings stopped at dawn.
        """

    static func story(_ title: String, category: String = "World", published: String = "2026-11-29T11:00:00Z") -> String {
        "---\ncategory: \(category)\npublished: \(published)\ntitle: \(title)\n---\n\(title): the body.\n"
    }

    @Test func afterEveryKindOfChangeTheServedFolderIsWhatACleanBuildWrites() async throws {
        try await offThePool {
            let site = try TemporarySite(files: BuildFixtures.files)
            let serve = try ServeProcess(site: site, environment: BuildFixtures.now)
            defer { serve.stop() }
            let listener = try serve.events()
            #expect(listener.next { $0.name == "hello" } != nil)
            let served = ".newsgen/serve-\(serve.port)"
            var step = 0

            /// The files of an output folder, without newsgen's own (lock, marker).
            func files(_ folder: String) -> [String: Data] { site.snapshot(folder).filter { !$0.key.hasPrefix(".newsgen") } }

            /// Makes a change, waits for serve to tell the open page (`event`; nil: no change), and holds the served
            /// folder to a clean build of the site as it now is.
            func after(_ change: String, event: String? = "reload", _ edit: () throws -> Void) throws {
                step += 1
                let seen = listener.events.count
                try edit()
                if let event {
                    #expect(listener.next(after: seen) { $0.name == event } != nil, "\(change): no \(event) event")
                }
                let clean = "clean-\(step)"
                let build = try newsgen(["build", "--clean", "--base-url", serve.url, "--output", clean], in: site,
                                        environment: BuildFixtures.now)
                #expect(build.status == 0, "\(change): \(build.standardError)")
                let expected = files(clean)
                #expect(expected.count > 20, "\(change): the clean build wrote \(expected.count) files")
                // One change can reach serve as two batches (and two events): the folder must come to the clean
                // build's state, and a change serve missed never does.
                var actual = files(served)
                let deadline = Date(timeIntervalSinceNow: 10)
                while actual != expected, Date() < deadline {
                    usleep(50_000)
                    actual = files(served)
                }
                #expect(actual.keys.sorted() == expected.keys.sorted(), "\(change)")
                for (path, bytes) in expected.sorted(by: { $0.key < $1.key }) where actual[path].map({ $0 != bytes }) == true {
                    Issue.record("\(change): \(path) is not what a clean build writes")
                }
                try site.remove(clean)
            }

            /// Writes `file` again with `old` replaced by `new`, as an editor's save.
            func replace(_ old: String, with new: String, in file: String) throws {
                try site.write(file, try site.read(file).replacingOccurrences(of: old, with: new))
            }

            try after("the first build", event: nil) {}
            try after("a body") {
                try replace("The quake struck", with: "The strong quake struck", in: "content/world/quake.md")
            }
            try after("a title") {
                try replace("fr: Un séisme de magnitude 7,1", with: "fr: Un fort séisme de magnitude 7,1", in: "content/world/quake.md")
            }
            try after("a story's date, which moves it among the others") {
                try replace("published: 2026-11-29T14:05:00Z", with: "published: 2026-11-26T08:00:00Z", in: "content/world/quake.md")
            }
            try after("a language taken out of a story") {
                try replace("<!-- lang: zh-Hans -->\n**东京电** 地震发生于黎明。", with: "", in: "content/world/quake.md")
            }
            try after("a category") {
                try replace("category: World", with: "category: Sports", in: "content/world/2026-11-28-english-only.md")
            }
            try after("a new story") { try site.write("content/world/ferry.md", Self.ferry) }
            try after("a new story in a new folder") { try site.write("content/world/2026/hail.md", Self.story("Hail flattens vineyards")) }
            try after("a save as editors make it: a temporary file renamed over the story") {
                try site.write("content/world/.ferry.md.swp", Self.ferry.replacingOccurrences(of: "at dawn", with: "before dawn"))
                try FileManager.default.removeItem(at: site.url.appendingPathComponent("content/world/ferry.md"))
                try FileManager.default.moveItem(at: site.url.appendingPathComponent("content/world/.ferry.md.swp"),
                                                 to: site.url.appendingPathComponent("content/world/ferry.md"))
            }
            try after("a story moved to another folder") {
                try FileManager.default.moveItem(at: site.url.appendingPathComponent("content/world/ferry.md"),
                                                 to: site.url.appendingPathComponent("content/sports/ferry.md"))
            }
            try after("a deleted story") { try site.remove("content/world/2026-11-28-english-only.md") }
            try after("a story in a hidden folder, which is not part of the site") {
                try site.write("content/.trash/old.md", Self.story("Thrown away"))
            }
            try after("a draft published") {
                try replace("draft: true\n", with: "", in: "content/sports/draft.md")
            }
            try after("a template") {
                try site.write("templates/partials/footer.mustache", try site.read("templates/partials/footer.mustache") + "\n<p>Edited footer</p>\n")
            }
            // A late batch of the template's save, merged with the stylesheet's, would rightly reload whole pages.
            while listener.next(after: listener.events.count, timeout: 0.5) != nil {}
            try after("the stylesheet", event: "style") {
                try site.write("templates/static/style.css", try site.read("templates/static/style.css") + "\n.edited { color: red }\n")
            }
            try after("newsgen.yml") {
                try replace("en: Test News", with: "en: Edited News", in: "newsgen.yml")
            }
            try after("a burst of saves to several stories") {
                try replace("The strong quake", with: "The very strong quake", in: "content/world/quake.md")
                try replace("2027-01-15T09:00:00Z", with: "2026-11-29T12:00:00Z", in: "content/sports/future.md")
                try site.write("content/sports/relay.md", Self.story("Relay team wins gold", category: "Sports"))
                try replace("## What we know", with: "## What we know now", in: "content/world/quake.md")
            }
            // A bad edit keeps the last good site; fixing it brings the site the fix makes.
            let seen = listener.events.count
            try site.write("content/sports/relay.md", Self.story("Relay team wins gold", category: "Sprots"))
            #expect(listener.next(after: seen) { $0.name == "problems" } != nil)
            try after("a fix") { try site.write("content/sports/relay.md", Self.story("Relay team wins silver", category: "Sports")) }
            try after("the served folder deleted under serve, then a story edited") {
                try FileManager.default.removeItem(at: site.url.appendingPathComponent(served))
                try site.write("content/sports/relay.md", Self.story("Relay team wins bronze", category: "Sports"))
            }
            try after("a folder of stories deleted") { try site.remove("content/world/2026") }
            // Photos are sources too: a story that names a photo not there yet waits for it.
            let waiting = listener.events.count
            try site.write("content/world/harbour.md", Self.story("Storm closes the harbour")
                .replacingOccurrences(of: "title:", with: "image: /media/2026/harbour.jpg\ntitle:"))
            #expect(listener.next(after: waiting) { $0.name == "problems" } != nil, "a story naming a missing photo")
            try after("the photo it names added to media/") {
                try site.write("media/2026/harbour.jpg", try Data(contentsOf: Repository.root.appendingPathComponent("media/rhine-low-water.jpg")))
            }
            try after("the photo replaced by another") {
                try site.write("media/2026/harbour.jpg", try Data(contentsOf: Repository.root.appendingPathComponent("media/shenzhen-port.jpg")))
            }
            try after("a document added to media/") { try site.write("media/2026/tide-table.pdf", "%PDF-1.4 tide table\n") }
            try after("a photo deleted from media/") {
                try site.remove("media/2026/tide-table.pdf")
                try site.write("content/world/harbour.md", Self.story("Storm closes the harbour"))
                try site.remove("media/2026/harbour.jpg")
            }
        }
    }
}
