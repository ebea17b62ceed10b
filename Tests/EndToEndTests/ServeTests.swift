import Foundation
import Testing
import TestSupport

/// `newsgen serve` as an editor runs it: the built binary on a free loopback port, with the site's files edited
/// under it and its pages and events read as a browser reads them.
@Suite(.serialized) struct ServeTests {
    static let quakePages = ["en/2026/11/29/quake/", "fr/2026/11/29/quake/", "zh-hans/2026/11/29/quake/"]
    static let quakeTitles = ["Magnitude 7.1 earthquake strikes off the coast", "Un séisme de magnitude 7,1 frappe au large des côtes", "近海发生7.1级地震"]

    /// Runs `body` with serve started in a copy of the fixture site, on a thread of its own (it waits on sockets).
    func serving(_ arguments: [String] = [], files: [String: String] = BuildFixtures.files,
                 _ body: @escaping @Sendable (TemporarySite, ServeProcess) throws -> Void) async throws {
        try await offThePool {
            let site = try TemporarySite(files: files)
            let serve = try ServeProcess(site: site, arguments: arguments, environment: BuildFixtures.now)
            defer { serve.stop() }
            try body(site, serve)
        }
    }

    @Test func servesEveryLanguageWithLocalLinksHeadNotFoundAndContentTypes() async throws {
        try await serving { site, serve in
            #expect(serve.url == "http://127.0.0.1:\(serve.port)/")
            // Printed just after the line the start waits for: waited for too.
            #expect(serve.waitForOutput(timeout: 10) { _ in
                serve.standardOutput.contains("phone preview: http://127.0.0.1:\(serve.port)/_newsgen/push/")
            })
            for (page, title) in zip(Self.quakePages, Self.quakeTitles) {
                let response = try serve.get("/" + page)
                #expect(response.status == 200)
                #expect(response.headers["content-type"] == "text/html; charset=utf-8")
                #expect(response.text.contains(title))
                // Links point at this server, not at base_url's host.
                #expect(response.text.contains("href=\"http://127.0.0.1:\(serve.port)/\(page)\""))
                #expect(!response.text.contains("news.example.com"))
                #expect(response.text.contains("<script src=\"/_newsgen/live.js\""))
            }
            for language in ["en/", "fr/", "zh-hans/"] {
                #expect(try serve.get("/" + language).status == 200)
            }
            let head = try serve.get("/" + Self.quakePages[0], method: "HEAD")
            let get = try serve.get("/" + Self.quakePages[0])
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.headers["content-length"] == String(get.body.count))
            #expect(head.headers["content-type"] == "text/html; charset=utf-8")

            let missing = try serve.get("/en/no-such-story/")
            #expect(missing.status == 404)
            let notFoundPage = try String(contentsOf: site.url.appendingPathComponent(".newsgen/serve-\(serve.port)/404.html"), encoding: .utf8)
            #expect(missing.text.hasPrefix(String(notFoundPage.prefix(200))))
            #expect(try serve.get("/en/no-such-story/", method: "HEAD").status == 404)

            let types = ["/static/style.css": "text/css; charset=utf-8", "/robots.txt": "text/plain; charset=utf-8",
                         "/sitemap.xml": "application/xml", "/_newsgen/live.js": "text/javascript; charset=utf-8",
                         "/en/feed.json": "application/json", "/en/feed.xml": "application/xml", "/en/atom.xml": "application/xml"]
            for (path, type) in types {
                let response = try serve.get(path)
                #expect(response.status == 200, "\(path)")
                #expect(response.headers["content-type"] == type, "\(path)")
            }
            #expect(try serve.get("/en", method: "GET").status == 302)
            #expect(try serve.get("/en/", method: "POST").status == 405)
        }
    }

    @Test func refusesEveryPathThatCouldLeaveTheOutputFolder() async throws {
        try await serving { site, serve in
            try site.write("secret.txt", "not for the web")
            for target in ["/../secret.txt", "/en/../../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt",
                           "/en/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt", "/en%2f..%2f..%2fsecret.txt",
                           "/%2e%2e%5csecret.txt", "/en/%00", "/./en/", "/en/.newsgen-lock", "/.newsgen-lock"] {
                let response = try serve.get(target)
                #expect([400, 404].contains(response.status), "\(target): \(response.status)")
                #expect(!response.text.contains("not for the web"), "\(target)")
            }
        }
    }

    @Test func editsReloadOpenPagesAndABadEditShowsItsErrorWhileTheLastGoodSiteStaysServed() async throws {
        try await serving { site, serve in
            let page = "/" + Self.quakePages[0]
            let browsers = try (0..<3).map { _ in try serve.events() }
            for browser in browsers { #expect(browser.next { $0.name == "hello" } != nil) }

            // An edit: every open page hears of it, and the page has the new text.
            let quake = try site.read("content/world/quake.md")
            try site.write("content/world/quake.md", quake.replacingOccurrences(of: "en: Magnitude 7.1 earthquake strikes off the coast",
                                                                               with: "en: Magnitude 7.3 earthquake strikes off the coast"))
            for browser in browsers { #expect(browser.next(where: { $0.name == "reload" }) != nil) }
            #expect(try serve.get(page).text.contains("Magnitude 7.3 earthquake"))

            // A bad edit: its error with file:line:col, in the terminal and over the stream; the old page stays.
            let seen = browsers[0].events.count
            try site.write("content/world/quake.md", try site.read("content/world/quake.md").replacingOccurrences(of: "category: [World, Sports]", with: "category: [Wrld, Sports]"))
            let problems = browsers[0].next(after: seen) { $0.name == "problems" }
            #expect(problems?.data.contains("content/world/quake.md:3:") == true)
            #expect(problems?.data.contains("unknown category \\\"Wrld\\\"") == true, "\(problems?.data ?? "none")")
            #expect(serve.waitForOutput { $0.contains("content/world/quake.md:3:") && $0.contains("the last good build is still served") })
            let stillServed = try serve.get(page)
            #expect(stillServed.status == 200 && stillServed.text.contains("Magnitude 7.3 earthquake"))
            // A page opened meanwhile is told at once.
            let late = try serve.events()
            #expect(late.next { $0.name == "problems" }?.data.contains("quake.md:3:") == true)

            // The fix: a reload, and the overlay's reason is gone.
            let beforeFix = browsers[0].events.count
            try site.write("content/world/quake.md", try site.read("content/world/quake.md").replacingOccurrences(of: "[Wrld, Sports]", with: "[World, Sports]"))
            #expect(browsers[0].next(after: beforeFix) { $0.name == "reload" } != nil)
            let fresh = try serve.events()
            #expect(fresh.next { $0.name == "hello" } != nil)
            #expect(fresh.next(timeout: 1) { $0.name == "problems" } == nil)

            // A new story gets its page; a deleted one loses it.
            let beforeAdd = browsers[1].events.count
            try site.write("content/world/ferry.md", ServeRebuildTests.ferry)
            #expect(browsers[1].next(after: beforeAdd) { $0.name == "reload" } != nil)
            let ferry = try serve.get("/en/2026/11/29/ferry/")
            #expect(ferry.status == 200 && ferry.text.contains("Ferry strike halts Channel crossings"))
            #expect(try serve.get("/en/").text.contains("Ferry strike halts Channel crossings"))
            let beforeDelete = browsers[1].events.count
            try site.remove("content/world/ferry.md")
            #expect(browsers[1].next(after: beforeDelete) { $0.name == "reload" } != nil)
            #expect(try serve.get("/en/2026/11/29/ferry/").status == 404)

            // A new folder of stories is watched too.
            let beforeFolder = browsers[1].events.count
            try site.write("content/world/2026/hail.md", """
                ---
                category: World
                published: 2026-11-29T11:00:00Z
                title: Hail flattens vineyards
                ---
                Body.
                """)
            #expect(browsers[1].next(after: beforeFolder) { $0.name == "reload" } != nil)
            #expect(try serve.get("/en/2026/11/29/hail/").status == 200)
            let beforeInner = browsers[1].events.count
            try site.write("content/world/2026/hail.md", try site.read("content/world/2026/hail.md").replacingOccurrences(of: "Hail flattens", with: "Hail spares"))
            #expect(browsers[1].next(after: beforeInner) { $0.name == "reload" } != nil)
            #expect(try serve.get("/en/2026/11/29/hail/").text.contains("Hail spares vineyards"))

            // A template: every page changes.
            let beforeTemplate = browsers[2].events.count
            let footer = try site.read("templates/partials/footer.mustache")
            try site.write("templates/partials/footer.mustache", footer + "\n<p>Edited footer line</p>\n")
            // The reload of the build that read the new footer, which is not always the first reload to come: a late
            // batch of the step before, or the first half of this save, can rebuild just before it.
            #expect(browsers[2].next(after: beforeTemplate) { event in
                event.name == "reload" && ((try? serve.get(page).text.contains("Edited footer line")) ?? false)
            } != nil)

            // The stylesheet alone: only the stylesheets reload. On a busy machine the footer's save can reach serve
            // as two batches; the stylesheet's must not be merged with the second, so that one comes first.
            while browsers[2].next(after: browsers[2].events.count, timeout: 0.5) != nil {}
            let beforeStyle = browsers[2].events.count
            try site.write("templates/static/style.css", try site.read("templates/static/style.css") + "\n.edited { color: red }\n")
            #expect(browsers[2].next(after: beforeStyle) { $0.name == "style" || $0.name == "reload" }?.name == "style")
            #expect(try serve.get("/static/style.css").text.contains(".edited { color: red }"))

            // newsgen.yml: a new site title on every page.
            let beforeConfig = browsers[2].events.count
            try site.write("newsgen.yml", try site.read("newsgen.yml").replacingOccurrences(of: "en: Test News", with: "en: Edited News"))
            #expect(browsers[2].next(after: beforeConfig) { $0.name == "reload" } != nil)
            #expect(try serve.get(page).text.contains("Edited News"))
        }
    }

    @Test func buildAndServeAtTheSameTimeNeitherCorruptsTheOther() async throws {
        try await serving { site, serve in
            let listener = try serve.events()
            #expect(listener.next { $0.name == "hello" } != nil)
            let quake = try site.read("content/world/quake.md")
            for round in 1...4 {
                let seen = listener.events.count
                try site.write("content/world/quake.md", quake.replacingOccurrences(of: "The quake struck", with: "Round \(round): the quake struck"))
                let build = try newsgen(["build"], in: site, environment: BuildFixtures.now)
                #expect(build.status == 0, "\(build.standardError)")
                #expect(listener.next(after: seen) { $0.name == "reload" } != nil)
                #expect(try serve.get("/" + Self.quakePages[0]).text.contains("Round \(round): the quake struck"))
            }
            // site/ is what build alone would write: nothing of serve's, links on base_url, the last text.
            let built = site.snapshot("site")
            let page = String(decoding: built["en/2026/11/29/quake/index.html"] ?? Data(), as: UTF8.self)
            #expect(page.contains("Round 4: the quake struck"))
            #expect(page.contains("https://news.example.com/"))
            for (path, bytes) in built {
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(!text.contains("_newsgen") && !text.contains("127.0.0.1"), "\(path)")
            }
            let check = try newsgen(["build"], in: site, environment: BuildFixtures.now)
            #expect(check.standardOutput.contains("0 written"), "\(check.standardOutput)")
        }
    }

    @Test func servesUnderABaseURLWithAPath() async throws {
        var files = BuildFixtures.files
        files["newsgen.yml"] = BuildFixtures.config.replacingOccurrences(of: "base_url: https://news.example.com/", with: "base_url: https://example.org/news/")
        try await serving(files: files) { _, serve in
            #expect(serve.url == "http://127.0.0.1:\(serve.port)/news/")
            let root = try serve.get("/")
            #expect(root.status == 302 && root.headers["location"] == "/news/")
            let page = try serve.get("/news/" + Self.quakePages[0])
            #expect(page.status == 200)
            #expect(page.text.contains("href=\"http://127.0.0.1:\(serve.port)/news/\(Self.quakePages[0])\""))
            #expect(page.text.contains("href=\"/news/static/style.css\""))
            #expect(try serve.get("/news/static/style.css").headers["content-type"] == "text/css; charset=utf-8")
            #expect(try serve.get("/" + Self.quakePages[0]).status == 404)
            #expect(try serve.get("/news/en/").status == 200)
            #expect(try serve.get("/_newsgen/push/").status == 200)
        }
    }

    @Test func draftsAndScheduledStoriesCarryBannersOnlyInServe() async throws {
        try await serving(["--drafts", "--future"]) { site, serve in
            let draft = try serve.get("/en/2026/11/27/draft/")
            #expect(draft.status == 200)
            #expect(draft.text.contains(">Draft</strong>"))
            let future = try serve.get("/en/2027/01/15/future/")
            #expect(future.status == 200)
            #expect(future.text.contains(">Scheduled for 15 January 2027, 10:00 CET</strong>"))
            let quake = try serve.get("/" + Self.quakePages[1])
            #expect(quake.text.contains("href=\"/_newsgen/push/#story-quake-off-coast\""))
            #expect(!quake.text.contains("newsgen-banner-text"))
            // build --drafts --future shows the same stories with no banner, no script, no preview link.
            let build = try newsgen(["build", "--drafts", "--future"], in: site, environment: BuildFixtures.now)
            #expect(build.status == 0, "\(build.standardError)")
            for (path, bytes) in site.snapshot("site") {
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(!text.contains("newsgen-banner") && !text.contains("_newsgen"), "\(path)")
            }
            #expect(site.exists("site/en/2026/11/27/draft/index.html"))
        }
        try await serving { (_: TemporarySite, serve: ServeProcess) throws in
            #expect(try serve.get("/en/2026/11/27/draft/").status == 404)
            #expect(try serve.get("/en/2027/01/15/future/").status == 404)
        }
    }

    @Test func thePhonePreviewShowsThePlanOfPublishDryRunAndNeverWritesTheLedger() async throws {
        try await serving { site, serve in
            let preview = try serve.get("/_newsgen/push/")
            #expect(preview.status == 200)
            let page = preview.text
            #expect(page.contains("id=\"story-quake-off-coast\""))
            #expect(page.contains("<strong>send</strong> (revision 1)"))
            #expect(page.contains("<code class=\"tags\">World || Sports</code>"))
            for (device, text) in [("ios-english", Self.quakeTitles[0]), ("ios-french", Self.quakeTitles[1]),
                                   ("ios-mandarin", Self.quakeTitles[2]), ("fcm-v1", Self.quakeTitles[0]), ("simple", Self.quakeTitles[0])] {
                guard let card = page.range(of: "data-device=\"\(device)\"") else {
                    Issue.record("no card for \(device)")
                    continue
                }
                let rest = page[card.upperBound...]
                let end = rest.range(of: "</article>")!.lowerBound
                let body = rest[..<end]
                #expect(body.contains("<div class=\"alert-text\">\(text)</div>"), "\(device)")
                #expect(body.contains("of 4096 bytes"), "\(device)")
            }
            #expect(page.contains("<div class=\"app\">Les Nouvelles Test</div>"))
            #expect(page.contains("https://news.example.com/en/2026/11/29/quake/"))
            // The byte sizes are the dry run's.
            let dryRun = try newsgen(["publish", "--dry-run"], in: site, environment: BuildFixtures.now)
            for line in dryRun.standardOutput.split(separator: "\n") where line.contains(" of 4096 bytes)") {
                let size = line.split(separator: "(")[1].split(separator: " ")[0]
                #expect(page.contains("<p class=\"size\">\(size) of 4096 bytes</p>"), "\(line)")
            }
            #expect(!site.exists(".newsgen/push-ledger.json"))

            // A text that a language lacks is the dry run's warning; the page follows the edit.
            let quake = try site.read("content/world/quake.md")
            try site.write("content/world/quake.md", quake.replacingOccurrences(of: "  fr: Un séisme de magnitude 7,1 frappe au large des côtes\n", with: ""))
            #expect(serve.waitForOutput { $0.components(separatedBy: "built ").count > 2 })
            let edited = try serve.get("/_newsgen/push/").text
            #expect(edited.contains("warning: no text in French (fr): those devices get the English text"))

            // Once sent (a ledger record), publish would skip it, and the page says why.
            try site.write("content/world/quake.md", quake)
            let record = """
            {"format":"newsgen-push-ledger-1","sends":[{"storyId":"quake-off-coast","revision":1,"sentAt":"2026-11-29T14:30:00Z","tags":"World || Sports","bodySHA256":"00"}]}
            """
            try site.write(".newsgen/push-ledger.json", record)
            let sent = try serve.get("/_newsgen/push/").text
            let planned = try newsgen(["publish", "--dry-run"], in: site, environment: BuildFixtures.now)
            if let skip = planned.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("skip    quake-off-coast: ") }) {
                let reason = skip.dropFirst("skip    quake-off-coast: ".count)
                #expect(sent.contains("<strong>skip</strong>: \(reason)"), "\(sent)")
            } else {
                Issue.record("publish --dry-run did not skip the sent story: \(planned.standardOutput) \(planned.standardError)")
            }
            #expect(try site.read(".newsgen/push-ledger.json") == record)
        }
    }

    @Test(arguments: [SIGINT, SIGTERM]) func aSignalStopsServeCleanlyWithPagesOpen(_ signal: Int32) async throws {
        try await offThePool {
            let site = try TemporarySite(files: BuildFixtures.files)
            let serve = try ServeProcess(site: site, environment: BuildFixtures.now)
            let listener = try serve.events()
            #expect(listener.next { $0.name == "hello" } != nil)
            #expect(serve.stop(signal: signal) == 0)
            #expect(listener.waitForEnd(timeout: 10))
            #expect(serve.standardOutput.hasSuffix("stopped\n"))
            #expect(throws: (any Error).self) { try RawHTTP.request(port: serve.port, method: "GET", target: "/") }
        }
    }

    @Test func takesTheNextFreePortAndWarnsOffLoopback() async throws {
        try await offThePool {
            let site = try TemporarySite(files: BuildFixtures.files)
            let first = try ServeProcess(site: site, environment: BuildFixtures.now)
            defer { first.stop() }
            let second = try ServeProcess(site: site, environment: BuildFixtures.now, firstPort: first.port)
            defer { second.stop() }
            #expect(second.port > first.port && second.port <= first.port + 100)
            #expect(!second.standardError.contains("warning"))
            let open = try ServeProcess(site: site, arguments: ["--host", "0.0.0.0"], environment: BuildFixtures.now)
            defer { open.stop() }
            #expect(open.standardError.contains("warning: serving on 0.0.0.0"))
        }
    }
}
