import Foundation
@testable import LiveSite
import News
import Site
import Synchronization
import Testing
import TestSupport

@Suite struct SiteRequestsTests {
    @Test func onlyCleanPathsAreDecoded() {
        #expect(SiteRequests.decodedPath("/en/world/") == "/en/world/")
        #expect(SiteRequests.decodedPath("/fr/%C3%A9t%C3%A9/") == "/fr/été/")
        #expect(SiteRequests.decodedPath("/a%20b") == "/a b")
        for bad in ["/../x", "/a/../../x", "/%2e%2e/x", "/%2E%2e/x", "/a/%2e/x", "/./x", "/a%2Fb", "/a%2fb", "/a%5cb",
                    "/a\\b", "/%00", "/%zz", "/%4", "x", "", "/%C3"] {
            #expect(SiteRequests.decodedPath(bad) == nil, "\(bad)")
        }
        #expect(SiteRequests.decodedPath("/a..b/...") == "/a..b/...")
    }

    @Test func theLiveScriptGoesBeforeTheLastClosingBodyAndBannersAfterTheBodyTag() {
        let page = Array("<html><body class=\"x\"><p>&lt;/body&gt;</p></body></html>".utf8)
        #expect(SiteRequests.afterBodyTag(page) == "<html><body class=\"x\">".utf8.count)
        #expect(SiteRequests.closingBodyTag(page) == "<html><body class=\"x\"><p>&lt;/body&gt;</p>".utf8.count)
        let bare = Array("<p>no body</p>".utf8)
        #expect(SiteRequests.afterBodyTag(bare) == 0)
        #expect(SiteRequests.closingBodyTag(bare) == bare.count)
    }

    @Test func contentTypesFollowTheExtension() {
        #expect(SiteRequests.contentType("/s/a.HTML") == "text/html; charset=utf-8")
        #expect(SiteRequests.contentType("/s/feed.json") == "application/json")
        #expect(SiteRequests.contentType("/s/style.css") == "text/css; charset=utf-8")
        #expect(SiteRequests.contentType("/s/photo.jpeg") == "image/jpeg")
        #expect(SiteRequests.contentType("/s/LICENSE") == "application/octet-stream")
    }

    @Test func bannersNameDraftsAndTheScheduledTimeInTheSitesZone() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        #expect(LiveSite.scheduled(Timestamp(secondsSinceEpoch: 1_795_957_500), timeZone: paris) == "Scheduled for 29 November 2026, 14:05 CET")
        #expect(LiveSite.scheduled(Timestamp(secondsSinceEpoch: 1_784_023_200), timeZone: paris) == "Scheduled for 14 July 2026, 12:00 CEST")
        let notes = PageNotes(banners: ["Draft"], pushStoryID: "a&b")
        #expect(notes.html?.contains(">Draft</strong>") == true)
        #expect(notes.html?.contains("href=\"/_newsgen/push/#story-a&amp;b\"") == true)
        #expect(PageNotes().html == nil)
    }
}

@Suite struct LiveReloadTests {
    @Test func aPageIsToldTheBuildAndAnyProblemsWhenItConnects() {
        let live = LiveReload()
        live.built(3, styleOnly: false)
        live.failed(["content/a.md:3:11: error: unknown category \"Wrld\""])
        let page = live.connect()
        live.built(4, styleOnly: true)
        live.closeAll()
        #expect(!page.isOpen)
        let fresh = live.connect()
        #expect(live.build == 4)
        fresh.close()
        #expect(LiveReload.problemsEvent(["a <b>"]) == "event: problems\ndata: {\"problems\":[\"a \\u003cb\\u003e\"]}\n\n")
        #expect(LiveReload.event("reload", [("build", .integer(2))]) == "event: reload\ndata: {\"build\":2}\n\n")
    }
}

@Suite struct SourceWatchTests {
    /// The batches a watcher reports.
    final class Batches: Sendable {
        let value = Mutex<[[String]]>([])
        func wait(timeout: Double = 10, _ condition: ([[String]]) -> Bool) -> Bool {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while Date() < deadline {
                if value.withLock({ condition($0) }) { return true }
                usleep(5_000)
            }
            return false
        }
    }

    /// A small site with `content/a.md` (and `folders`, empty) watched with `quiet`, and the batches it reports.
    static func watched(quiet: Double = SourceWatch.quietSeconds, folders: [String] = []) throws -> (TemporarySite, Batches, SourceWatch) {
        let site = try TemporarySite(files: ["newsgen.yml": "title: x\n", "content/a.md": "a"], copyingTemplatesFromRepository: false)
        for folder in folders {
            try FileManager.default.createDirectory(at: site.url.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let batches = Batches()
        let watch = try SourceWatch(site: site.path, quiet: quiet) { paths in batches.value.withLock { $0.append(paths) } }
        return (site, batches, watch)
    }

    @Test func reportsChangesToTheSourcesOnlyAndNewFoldersToo() async throws {
        try await offThePool {
            let (site, batches, watch) = try Self.watched(folders: ["templates"])
            defer { watch.stop() }
            try site.write("README.md", "not a source")
            try site.write("content/a.md", "changed")
            #expect(batches.wait { $0.joined().contains("content/a.md") })
            #expect(!batches.value.withLock { $0.joined().contains("README.md") })
            try site.write("content/new/deeper/b.md", "b")
            #expect(batches.wait { $0.joined().contains("content/new") })
            try site.write("content/new/deeper/b.md", "b again")
            #expect(batches.wait { $0.joined().contains("content/new/deeper/b.md") })
            try site.write("newsgen.yml", "title: y\n")
            #expect(batches.wait { $0.joined().contains("newsgen.yml") })
            // The new folder first: a file written at once into it can come before its watch, and is then told as
            // the folder (as content/new above).
            try FileManager.default.createDirectory(atPath: site.path + "/templates/static", withIntermediateDirectories: true)
            #expect(batches.wait { $0.joined().contains("templates/static") })
            try site.write("templates/static/style.css", "a{}")
            #expect(batches.wait { $0.joined().contains("templates/static/style.css") })
        }
    }

    /// An editor that truncates the story and writes it in steps, slower than the quiet time: the change is told once,
    /// after the file is closed, so that no rebuild reads it half-written; a hidden file held open holds nothing.
    @Test func aFileStillBeingWrittenIsToldOnceItIsClosed() async throws {
        try await offThePool {
            let (site, batches, watch) = try Self.watched(quiet: 0.02)
            defer { watch.stop() }
            let story = try FileHandle(forWritingTo: site.url.appendingPathComponent("content/a.md"))
            try story.truncate(atOffset: 0)
            try story.write(contentsOf: Data("---\ncategory: World\n".utf8))
            usleep(300_000)   // fifteen quiet times
            #expect(batches.value.withLock { $0.isEmpty }, "told while the file was still open")
            try story.write(contentsOf: Data("title: Done\n---\nBody.\n".utf8))
            try story.close()
            #expect(batches.wait { !$0.isEmpty })
            usleep(200_000)
            let seen = batches.value.withLock { $0 }
            #expect(seen.count == 1 && seen.first?.contains("content/a.md") == true, "\(seen)")

            // A swap file kept open does not hold the story's change.
            let swap = site.url.appendingPathComponent("content/.a.md.swp")
            FileManager.default.createFile(atPath: swap.path, contents: nil)
            let editor = try FileHandle(forWritingTo: swap)
            defer { try? editor.close() }
            try editor.write(contentsOf: Data("swap".utf8))
            try site.write("content/a.md", "saved")
            let started = Date()
            #expect(batches.wait { $0.dropFirst(seen.count).joined().contains("content/a.md") })
            #expect(Date().timeIntervalSince(started) < SourceWatch.holdSeconds * 0.8, "the open swap file held the save")
        }
    }

    @Test func aBurstOfEventsIsOneBatch() async throws {
        try await offThePool {
            // A long quiet time, so that a busy machine cannot split the burst.
            let (site, batches, watch) = try Self.watched(quiet: 0.5)
            defer { watch.stop() }
            // An editor's save: a temporary file, written, renamed over the story.
            let temporary = site.url.appendingPathComponent("content/.a.md.swp")
            try Data("new text".utf8).write(to: temporary)
            _ = rename(temporary.path, site.url.appendingPathComponent("content/a.md").path)
            #expect(batches.wait { !$0.isEmpty })
            usleep(700_000)
            let seen = batches.value.withLock { $0 }
            #expect(seen.count == 1, "\(seen)")
            #expect(seen.first?.contains("content/a.md") == true)
        }
    }
}
