import Foundation
import Testing
@testable import Site
import TestSupport

@Suite struct ContentFolderTests {
    /// A content folder in a temporary folder (removed at the end of the test) with `build` run in it.
    static func listing(_ build: (String) throws -> Void) throws -> FileSystem.SourceListing {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("newsgen-listing-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/content", withIntermediateDirectories: true)
        try build(root)
        return Edition.storyFiles(in: root + "/content")
    }

    static func file(_ path: String, _ text: String = "x") throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    static func link(_ path: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    /// Stories in hidden folders (an editor's `.trash/`, `.git/`) are not part of the site; a hidden file name is
    /// (so that `.draft.md` gets a message instead of vanishing).
    @Test func hiddenFoldersAreLeftOutButNotHiddenFiles() throws {
        let listing = try Self.listing { root in
            for path in [".trash/quake.md", "world/.old/quake.md", "world/.draft.md", "world/quake.md", "wor.ld/quake.md",
                         ".draft.md", "world/notes.txt"] {
                try Self.file(root + "/content/" + path)
            }
        }
        #expect(listing.files.map(\.path) == [".draft.md", "wor.ld/quake.md", "world/.draft.md", "world/quake.md"])
        #expect(listing.problems.isEmpty)
    }

    /// A link to a story file inside content/ is followed (with the stamp of the file, so that editing it is
    /// seen); every other link that could hold stories is a problem, and so is a `.md` that is not a file.
    @Test func linksAreFollowedOnlyToFilesInsideTheContentFolder() throws {
        var targetStamp: FileStamp?
        let listing = try Self.listing { root in
            try Self.file(root + "/content/_drafts/story.txt", "a story")
            try Self.file(root + "/outside.md")
            try FileManager.default.createDirectory(atPath: root + "/content/world", withIntermediateDirectories: true)
            try Self.link(root + "/content/world/inside.md", to: "../_drafts/story.txt")
            try Self.link(root + "/content/world/outside.md", to: "../../outside.md")
            try Self.link(root + "/content/world/absolute.md", to: root + "/outside.md")
            try Self.link(root + "/content/world/dangling.md", to: "nowhere.md")
            try Self.link(root + "/content/world/loop.md", to: "loop.md")
            try Self.link(root + "/content/sports", to: "world")
            try Self.link(root + "/content/world/image.jpg", to: "../../outside.md")   // not a story: ignored
            #expect(mkfifo(root + "/content/world/fifo.md", 0o644) == 0)
            #expect(mkfifo(root + "/content/world/fifo.txt", 0o644) == 0)
            targetStamp = FileStamp.of(root + "/content/_drafts/story.txt")
        }
        #expect(listing.files.map(\.path) == ["world/inside.md"])
        #expect(listing.files.first?.stamp == targetStamp)
        let problems = listing.problems.sorted { $0.path < $1.path }.map { "\($0.path): \($0.reason)" }
        #expect(problems.count == 6, "\(problems)")
        #expect(problems.contains("sports: a link to the folder world; newsgen follows links only to files: move the folder here instead"))
        #expect(problems.contains { $0.hasPrefix("world/absolute.md: a link to /") && $0.hasSuffix("/outside.md, outside content/; newsgen follows links only to files inside it: copy the file here instead") })
        #expect(problems.contains("world/dangling.md: a link to nowhere.md, which cannot be followed: No such file or directory"))
        #expect(problems.contains("world/fifo.md: not a regular file but a FIFO"))
        #expect(problems.contains("world/loop.md: a link to loop.md, which cannot be followed: Too many levels of symbolic links"))
        #expect(problems.contains("world/outside.md: a link to ../../outside.md, outside content/; newsgen follows links only to files inside it: copy the file here instead"))
    }
}
