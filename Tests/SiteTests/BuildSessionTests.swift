import Foundation
@testable import News
@testable import Site
import Testing
import TestSupport

/// A session looks again only at the paths it is told changed, and what it then knows is what a fresh look finds.
struct BuildSessionTests {
    static let story = "---\ncategory: World\npublished: 2026-11-29T10:00:00Z\ntitle: A story\n---\nBody.\n"

    func site() throws -> TemporarySite {
        try TemporarySite(files: ["newsgen.yml": "title: Test\n", "content/world/a.md": Self.story, "content/world/b.md": Self.story])
    }

    func paths(_ snapshot: InputSnapshot) -> [String] { snapshot.storyFiles?.files.map(\.path) ?? [] }

    @Test func aSnapshotBroughtUpToDateFromTheChangedPathsIsWhatAFreshLookFinds() throws {
        let site = try site()
        let session = BuildSession()
        let first = session.snapshot(directory: site.url.path, baseURLOverride: nil)
        #expect(first.key == InputSnapshot.take(directory: site.url.path, baseURLOverride: nil).key)
        let changes: [(String, (() throws -> Void))] = [
            ("content/world/a.md", { try site.write("content/world/a.md", Self.story + "More.\n") }),
            ("content/world/c.md", { try site.write("content/world/c.md", Self.story) }),
            ("content/world/b.md", { try site.remove("content/world/b.md") }),
            ("content/.trash", { try site.write("content/.trash/e.md", Self.story) }),
            ("content/world/notes.txt", { try site.write("content/world/notes.txt", "not a story") }),
            ("newsgen.yml", { try site.write("newsgen.yml", "title: Edited\n") }),
            ("templates/partials/footer.mustache", { try site.write("templates/partials/footer.mustache", "<p>footer</p>\n") }),
            ("content/sports", { try site.write("content/sports/2026/d.md", Self.story) }),
        ]
        for (path, change) in changes {
            try change()
            session.sourcesChanged([path])
            let updated = session.snapshot(directory: site.url.path, baseURLOverride: nil)
            let fresh = InputSnapshot.take(directory: site.url.path, baseURLOverride: nil)
            #expect(paths(updated) == paths(fresh), "\(path)")
            #expect(updated.key == fresh.key, "\(path)")
        }
        #expect(paths(session.snapshot(directory: site.url.path, baseURLOverride: nil))
            == ["world/a.md", "world/c.md", "sports/2026/d.md"].sorted(by: FileSystem.precedes))
    }

    @Test func onlyThePathsItIsToldOfAreLookedAtAgainAndAnEmptyPathMeansEverything() throws {
        let site = try site()
        let session = BuildSession()
        let first = session.snapshot(directory: site.url.path, baseURLOverride: nil)
        try site.write("content/world/a.md", Self.story + "Unannounced.\n")
        try site.write("content/world/new.md", Self.story)
        session.sourcesChanged(["content/world/b.md"])   // unchanged
        let told = session.snapshot(directory: site.url.path, baseURLOverride: nil)
        #expect(told.key == first.key)
        // What a watcher says when its queue overflowed: anything may have changed.
        session.sourcesChanged([""])
        let everything = session.snapshot(directory: site.url.path, baseURLOverride: nil)
        #expect(everything.key == InputSnapshot.take(directory: site.url.path, baseURLOverride: nil).key)
        #expect(paths(everything).contains("world/new.md"))
    }
}
