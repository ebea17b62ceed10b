import Foundation
import Testing
@testable import News
@testable import Site

/// The output folder is written in two ways: a folder with no site yet gets its files staged at their real
/// paths and moved in by top-level entry; a folder with a site gets only changed files, one rename each.
@Suite struct OutputWriterTests {
    private func temporaryFolder() -> String {
        let path = NSTemporaryDirectory() + "newsgen-writer-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func text(_ path: String) -> String? {
        (try? FileSystem.readText(path))
    }

    @Test func folderHoldingAPath() {
        #expect(FileSystem.folder(holding: "en/2026/11/29/quake/index.html") == "en/2026/11/29/quake")
        #expect(FileSystem.folder(holding: "en/2026/11/29/quake") == "en/2026/11/29")
        #expect(FileSystem.folder(holding: "index.html") == "")
        #expect(FileSystem.folder(holding: "zh-hans/国际/index.html") == "zh-hans/国际")
    }

    /// Listings are sorted by UTF-8 bytes: the same order as `String`'s `<` for the (NFC) names of story files.
    @Test func pathsSortInStringOrder() {
        let pieces = ["a", "b", "z", "A", "-", ".", "/", "0", "é", "ü", "国", "际", "😀", "aa", ""]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let a = (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let b = (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(FileSystem.precedes(a, b) == (a < b), "\(a) vs \(b)")
        }
        #expect(FileSystem.precedes("world/quake.md", "world/quake2.md"))
        #expect(!FileSystem.precedes("world/quake.md", "world/quake.md"))
        // A bridged or shared string without contiguous UTF-8 takes the slow path, with the same answer.
        #expect(FileSystem.precedes(String("politics/vote.md".utf16.map { Character(UnicodeScalar($0)!) }), "world/a.md"))
    }

    /// `stamps(of:under:)` answers as `FileStamp.of` (files, links followed) and `FileStamp.ofFolder` (folders, links
    /// not followed) would for the joined paths.
    @Test func stampsFromTheOpenFolderMatchStampsOfFullPaths() throws {
        let root = temporaryFolder()
        defer { FileSystem.removeTree(root) }
        try FileSystem.createDirectories(root + "/en/2026/quake")
        _ = try FileSystem.write(Array("page".utf8), to: root + "/en/2026/quake/index.html")
        _ = try FileSystem.write(Array("top".utf8), to: root + "/index.html")
        #expect(symlink(root + "/en/2026", root + "/folder-link") == 0)
        #expect(symlink(root + "/index.html", root + "/file-link") == 0)
        let paths = ["", "en", "en/2026/quake", "en/2026/quake/index.html", "index.html", "folder-link", "file-link",
                     "missing", "en/missing/index.html"]
        let files = FileSystem.stamps(of: paths, under: root)
        let folders = FileSystem.stamps(of: paths, under: root, folders: true)
        for (index, path) in paths.enumerated() {
            let full = path.isEmpty ? root : root + "/" + path
            #expect(files[index] == FileStamp.of(full), "\(path)")
            #expect(folders[index] == FileStamp.ofFolder(full), "\(path)")
        }
        #expect(files[3] != nil && files[6] != nil && files[5] == nil)
        #expect(folders[0] != nil && folders[2] != nil && folders[5] == nil && folders[3] == nil)
        #expect(FileSystem.stamps(of: ["a"], under: root + "/none") == [nil])
    }

    /// Removing a tree, or the empty folders of one, never follows a link: a link to a folder elsewhere goes (with
    /// the tree), and the folders it leads to, empty or not, stay.
    @Test func removingNeverFollowsALink() throws {
        let root = temporaryFolder()
        let elsewhere = temporaryFolder()
        defer { FileSystem.removeTree(root); FileSystem.removeTree(elsewhere) }
        try FileSystem.createDirectories(elsewhere + "/empty/deeper")
        _ = try FileSystem.write(Array("keep".utf8), to: elsewhere + "/keep.txt")
        try FileSystem.createDirectories(root + "/en/empty")
        try FileSystem.createDirectories(root + "/old/2026")
        _ = try FileSystem.write(Array("page".utf8), to: root + "/old/2026/index.html")
        #expect(symlink(elsewhere, root + "/en/link") == 0)
        #expect(symlink(elsewhere, root + "/old/2026/link") == 0)
        #expect(symlink(elsewhere + "/keep.txt", root + "/old/file-link") == 0)

        FileSystem.removeEmptyDirectories(root, keepRoot: true)
        #expect(!FileSystem.exists(root + "/en/empty"))
        #expect(FileStamp.ofFolder(root + "/en") != nil, "it holds a link")
        #expect(FileSystem.isDirectory(elsewhere + "/empty/deeper"))

        FileSystem.removeTree(root + "/old")
        #expect(FileStamp.ofFolder(root + "/old") == nil && !FileSystem.exists(root + "/old"))
        #expect(FileSystem.isDirectory(elsewhere + "/empty/deeper"))
        #expect(text(elsewhere + "/keep.txt") == "keep")

        FileSystem.removeTree(root)
        #expect(!FileSystem.exists(root) && FileStamp.ofFolder(root) == nil)
        #expect(FileSystem.isDirectory(elsewhere + "/empty/deeper"))
    }

    @Test func aNewFolderGetsTheWholeTreeAndNoStagingIsLeft() throws {
        let root = temporaryFolder()
        defer { FileSystem.removeTree(root) }
        let output = root + "/site"   // does not exist yet
        let writer = try OutputWriter(directory: output)
        try writer.stage("index.html", Array("home".utf8))
        try writer.stage("en/2026/11/29/quake/index.html", Array("quake".utf8))
        try writer.stage("en/2026/11/29/storm/index.html", Array("storm".utf8))
        try writer.stage("static/style.css", Array("css".utf8))
        let summary = try writer.commit(files: ["index.html", "en/2026/11/29/quake/index.html",
                                                "en/2026/11/29/storm/index.html", "static/style.css"], existing: [])
        #expect(summary.written == 4 && summary.removed == 0)
        #expect(summary.writtenFiles.contains("en/2026/11/29/quake/index.html"))
        #expect(text(output + "/en/2026/11/29/quake/index.html") == "quake")
        #expect(text(output + "/en/2026/11/29/storm/index.html") == "storm")
        #expect(text(output + "/static/style.css") == "css")
        #expect(FileSystem.entries(of: output) == [OutputWriter.marker, "en", "index.html", "static"])
    }

    @Test func aFolderWithOnlyNewsgensOwnEntriesCountsAsNew() throws {
        let output = temporaryFolder()
        defer { FileSystem.removeTree(output) }
        // What a crashed first build leaves: a staging folder with half a site in it.
        try FileSystem.createDirectories(output + "/.newsgen-staging/en")
        try FileSystem.write(Array("half".utf8), to: output + "/.newsgen-staging/en/old.html")
        let writer = try OutputWriter(directory: output)
        try writer.stage("en/index.html", Array("front".utf8))
        _ = try writer.commit(files: ["en/index.html"], existing: [])
        #expect(FileSystem.files(under: output, includeHidden: true).sorted() == [OutputWriter.marker, "en/index.html"])
    }

    @Test func abortingANewSiteLeavesNoFile() throws {
        let root = temporaryFolder()
        defer { FileSystem.removeTree(root) }
        let writer = try OutputWriter(directory: root + "/site")
        try writer.stage("en/index.html", Array("front".utf8))
        writer.abort()
        #expect(FileSystem.files(under: root, includeHidden: true).isEmpty)
    }

    @Test func removingATreeTakesAFileOrAFolderButNeverFollowsALink() throws {
        let root = temporaryFolder()
        defer { FileSystem.removeTree(root) }
        try FileSystem.createDirectories(root + "/kept/inner")
        try FileSystem.write(Array("keep".utf8), to: root + "/kept/inner/file.txt")
        try FileSystem.createDirectories(root + "/gone/inner")
        try FileSystem.write(Array("x".utf8), to: root + "/gone/inner/file.txt")
        try FileSystem.write(Array("x".utf8), to: root + "/single.html")
        #expect(symlink(root + "/kept", root + "/link") == 0)
        FileSystem.removeTree(root + "/gone")
        FileSystem.removeTree(root + "/single.html")
        FileSystem.removeTree(root + "/link")
        #expect(FileSystem.entries(of: root) == ["kept"])
        #expect(text(root + "/kept/inner/file.txt") == "keep")
    }

    @Test func aFileWhereANewSiteNeedsAFolderIsAnErrorNotACrash() throws {
        let root = temporaryFolder()
        defer { FileSystem.removeTree(root) }
        let writer = try OutputWriter(directory: root + "/site")
        try writer.stage("en/news", Array("a file".utf8))
        #expect(throws: FileSystem.Failure.self) { try writer.stage("en/news/index.html", Array("page".utf8)) }
        writer.abort()
    }

    @Test func anExistingSiteOnlyGetsWhatChangedAndLosesWhatLeft() throws {
        let output = temporaryFolder()
        defer { FileSystem.removeTree(output) }
        let first = try OutputWriter(directory: output)
        try first.stage("en/a/index.html", Array("a".utf8))
        try first.stage("en/b/index.html", Array("b".utf8))
        _ = try first.commit(files: ["en/a/index.html", "en/b/index.html"], existing: [])
        let before = try #require(FileStamp.of(output + "/en/a/index.html"))

        let second = try OutputWriter(directory: output)
        try second.stage("en/a/index.html", Array("a".utf8))    // same bytes: left alone
        try second.stage("en/c/index.html", Array("c".utf8))    // new
        let summary = try second.commit(files: ["en/a/index.html", "en/c/index.html"],
                                        existing: FileSystem.files(under: output, includeHidden: true))
        #expect(summary.written == 1 && summary.unchanged == 1 && summary.removed == 1)
        #expect(FileStamp.of(output + "/en/a/index.html") == before)
        #expect(!FileSystem.exists(output + "/en/b"))
        #expect(text(output + "/en/c/index.html") == "c")

        // The same files again, listed as the folder holds them: nothing is removed, the changed one is replaced.
        let third = try OutputWriter(directory: output)
        #expect(try third.stage("en/c/index.html", Array("c2".utf8)) != nil)
        let same = try third.commit(files: ["en/a/index.html", "en/c/index.html"],
                                    existing: ["en/a/index.html", "en/c/index.html"])
        #expect(same.written == 1 && same.unchanged == 1 && same.removed == 0 && same.unplanned.isEmpty)
        #expect(text(output + "/en/c/index.html") == "c2" && text(output + "/en/a/index.html") == "a")
    }

    /// What `stage` says a file's stamp will be is the stamp it has once the build is in place, whether it was
    /// written or already held the bytes.
    @Test func stagedStampsAreTheStampsAfterTheCommit() throws {
        let output = temporaryFolder()
        defer { FileSystem.removeTree(output) }
        let first = try OutputWriter(directory: output)
        let fresh = try first.stage("en/a/index.html", Array("a".utf8))
        _ = try first.commit(files: ["en/a/index.html"], existing: [])
        #expect(fresh != nil && fresh == FileStamp.of(output + "/en/a/index.html"))
        let second = try OutputWriter(directory: output)
        let same = try second.stage("en/a/index.html", Array("a".utf8))
        let changed = try second.stage("en/b/index.html", Array("b".utf8))
        _ = try second.commit(files: ["en/a/index.html", "en/b/index.html"], existing: ["en/a/index.html"])
        #expect(same == FileStamp.of(output + "/en/a/index.html"))
        #expect(changed != nil && changed == FileStamp.of(output + "/en/b/index.html"))
    }

    /// Two outputs that want the same file stop the commit before anything is moved: the site stays as it was.
    @Test func twoOutputsWithOneFileStopTheCommit() throws {
        let output = temporaryFolder()
        defer { FileSystem.removeTree(output) }
        let first = try OutputWriter(directory: output)
        try first.stage("en/a/index.html", Array("a".utf8))
        _ = try first.commit(files: ["en/a/index.html"], existing: [])
        let second = try OutputWriter(directory: output)
        try second.stage("en/a/index.html", Array("new".utf8))
        do {
            _ = try second.commit(files: ["en/a/index.html", "en/b/index.html", "en/a/index.html"], existing: ["en/a/index.html"])
            Issue.record("a file wanted twice was committed")
        } catch {
            #expect(error.path == "en/a/index.html" && error.reason == "two outputs want the same file")
        }
        second.abort()
        #expect(text(output + "/en/a/index.html") == "a")
    }
}

@Suite struct FolderStampsTests {
    static func stamp(_ n: Int) -> FileStamp { FileStamp(size: n, modified: Int64(n), inode: UInt64(n)) }

    @Test func updatesReplaceAddAndRemoveAndKeepTheOrder() {
        let start = FolderStamps(sorted: [("", Self.stamp(0)), ("en", Self.stamp(1)), ("en/2026", Self.stamp(2)),
                                          ("fr", Self.stamp(3)), ("zh-hans", Self.stamp(4))])
        #expect(start.isSorted)
        let next = start.updated(with: [("fr", nil), ("en/2026", Self.stamp(20)), ("de", Self.stamp(5)),
                                        ("zz", Self.stamp(6)), ("a", nil), ("", Self.stamp(10))])
        #expect(next.folders.map(\.path) == ["", "de", "en", "en/2026", "zh-hans", "zz"])
        #expect(next.folders.map(\.stamp) == [Self.stamp(10), Self.stamp(5), Self.stamp(1), Self.stamp(20), Self.stamp(4), Self.stamp(6)])
        #expect(next.isSorted)
        #expect(start.updated(with: []) == start)
    }

    @Test func aBuildWithoutStampsStartsFromNothing() {
        var generator = SystemRandomNumberGenerator()
        let paths = Set((0..<500).map { _ in "en/\(Int.random(in: 0..<10_000, using: &generator))/\(Int.random(in: 0..<9, using: &generator))" })
        let built = FolderStamps().updated(with: paths.map { ($0, Self.stamp($0.count)) })
        #expect(built.count == paths.count)
        #expect(built.isSorted)
        #expect(Set(built.folders.map(\.path)) == paths)
        #expect(!FolderStamps(sorted: [("b", Self.stamp(1)), ("a", Self.stamp(2))]).isSorted)
    }
}
