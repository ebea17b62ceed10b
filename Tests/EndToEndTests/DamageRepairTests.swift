import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Damage is repaired by the next plain build: whatever happened to the output folder or to the build cache since
/// the last build (a file or folder deleted or replaced, the cache damaged or another site's, a build killed), the
/// next `newsgen build` without `--clean` gives the tree a clean build gives.
@Suite struct DamageRepairTests {
    /// A generated site of 24 stories (see `GeneratedSite`), built.
    static func builtSite(seed: UInt64 = 12) async throws -> GeneratedSite {
        let generated = try GeneratedSite(stories: 24, seed: seed)
        let first = try await generated.build()
        try #require(first.status == 0, "\(first.standardError)")
        return generated
    }

    /// Builds without `--clean` and expects the clean build's tree; the build's result.
    @discardableResult
    static func expectRepaired(_ generated: GeneratedSite, after damage: String,
                               sourceLocation: SourceLocation = #_sourceLocation) async throws -> ProgramResult {
        let result = try await generated.build()
        #expect(result.status == 0, "after \(damage): \(result.standardError)", sourceLocation: sourceLocation)
        if let difference = OutputTree.difference(OutputTree(generated.site), try await generated.cleanTree(), names: ("rebuilt", "clean")) {
            Issue.record("after \(damage): \(difference)", sourceLocation: sourceLocation)
        }
        return result
    }

    /// The line a build prints when it could not start from the site's trace, and had to build everything again.
    static func rebuiltEverything(_ result: ProgramResult) -> String? {
        result.standardOutput.split(separator: "\n").first { $0.hasPrefix("built everything again: ") }.map(String.init)
    }

    /// The first output path (relative to `site/`) that matches `pattern`, files or folders as asked.
    static func output(_ generated: GeneratedSite, matching pattern: String, folder: Bool = false) throws -> String {
        let regex = try Regex(pattern)
        let tree = OutputTree(generated.site)
        let match = tree.entries.filter { entry in
            if case .folder = entry.value { return folder } else { return !folder }
        }.keys.sorted().first { $0.wholeMatch(of: regex) != nil }
        return try #require(match, "no output \(folder ? "folder" : "file") matches \(pattern)")
    }

    /// Output files of every kind: a story page, front page, category index and archive page, feeds, the sitemaps,
    /// robots.txt, the root page, the 404 page and a static file.
    static let files = [
        #"fr/\d{4}/\d\d/\d\d/[^/]+/index\.html"#, #"en/index\.html"#, #"zh-hans/world/index\.html"#,
        #"en/sports/page/1/index\.html"#, #"en/feed\.xml"#, #"fr/science/feed\.json"#, #"sitemap\.xml"#,
        #"sitemap-\d{4}-\d\d\.xml"#, #"news-sitemap\.xml"#, #"robots\.txt"#, #"index\.html"#, #"404\.html"#,
        #"static/style\.css"#,
    ]

    @Test(arguments: files)
    func aDeletedOutputFileIsWrittenAgain(_ pattern: String) async throws {
        let generated = try await Self.builtSite()
        let file = try Self.output(generated, matching: pattern)
        try generated.site.remove("site/" + file)
        try await Self.expectRepaired(generated, after: "deleting \(file)")
    }

    /// Replaced as any tool replaces a file: other bytes written to a new file, renamed over the old one.
    @Test(arguments: files)
    func aFileRenamedOverAnOutputFileIsReplaced(_ pattern: String) async throws {
        let generated = try await Self.builtSite()
        let file = try Self.output(generated, matching: pattern)
        try generated.site.write("site/\(file).tmp", "<p>not what newsgen wrote</p>\n")
        try FileManager.default.removeItem(atPath: generated.site.path + "/site/" + file)
        try FileManager.default.moveItem(atPath: generated.site.path + "/site/\(file).tmp", toPath: generated.site.path + "/site/" + file)
        try await Self.expectRepaired(generated, after: "replacing \(file) by a rename")
    }

    /// Overwritten in place with other bytes of the same length: the file's inode stays and so does its folder's
    /// time; its own modification time moves. (With that time put back as well, only the change time, which no
    /// stamp of newsgen records, or the bytes themselves tell; that case is not tested.)
    @Test(arguments: [files[0], files[4], files[7], files[12]])
    func anOutputFileEditedInPlaceIsWrittenAgain(_ pattern: String) async throws {
        let generated = try await Self.builtSite()
        let file = try Self.output(generated, matching: pattern)
        let path = generated.site.path + "/site/" + file
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data("#".utf8))
        try handle.close()
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64 == size)
        await withKnownIssue("a file rewritten in place leaves its folder's time alone, and a rebuild looks only into folders whose time changed") {
            try await Self.expectRepaired(generated, after: "editing \(file) in place")
        }
    }

    @Test(arguments: [#"zh-hans"#, #"static"#, #"en/sports"#, #"fr/\d{4}"#, #"en/\d{4}/\d\d"#, #"zh-hans/sports/page"#])
    func aDeletedOutputFolderIsWrittenAgain(_ pattern: String) async throws {
        let generated = try await Self.builtSite()
        let folder = try Self.output(generated, matching: pattern, folder: true)
        try generated.site.remove("site/" + folder)
        try await Self.expectRepaired(generated, after: "deleting the folder \(folder)")
    }

    @Test func aDeletedOutputFolderIsBuiltAgain() async throws {
        let generated = try await Self.builtSite()
        try generated.site.remove("site")
        try await Self.expectRepaired(generated, after: "deleting the output folder")
    }

    @Test(arguments: [#"index\.html"#, #"en/\d{4}/\d\d/\d\d/[^/]+/index\.html"#, #"static/style\.css"#, #"news-sitemap\.xml"#])
    func anOutputFileReplacedByAFolderIsWrittenAgain(_ pattern: String) async throws {
        let generated = try await Self.builtSite()
        let file = try Self.output(generated, matching: pattern)
        try generated.site.remove("site/" + file)
        try generated.site.write("site/\(file)/inside.html", "<p>a folder where a page was</p>\n")
        try await Self.expectRepaired(generated, after: "replacing the file \(file) by a folder")
    }

    /// A file standing where a folder of the site goes, at any depth: until the writer removed it, every build
    /// (even `--clean`) stopped with "Not a directory" when the folder was not the one right above a page.
    @Test(arguments: [#"static"#, #"en/\d{4}"#, #"fr/sports/page"#, #"zh-hans/\d{4}/\d\d/\d\d/[^/]+"#])
    func anOutputFolderReplacedByAFileIsWrittenAgain(_ pattern: String) async throws {
        let generated = try await Self.builtSite()
        let folder = try Self.output(generated, matching: pattern, folder: true)
        try generated.site.remove("site/" + folder)
        try generated.site.write("site/" + folder, "a file where a folder was\n")
        try await Self.expectRepaired(generated, after: "replacing the folder \(folder) by a file")
    }

    enum CacheDamage: String, CaseIterable, Sendable { case truncated, garbage, anotherSites = "another site's" }

    /// The build cache's files (`.newsgen/` but for the lock), by the start of their names.
    static let cacheFiles = ["trace", "build-", "feed-entries"]

    /// Each cache file damaged in turn, then a story edited (so that the cache matters): the next build is right.
    /// "Another site's": the same-named file of a site made from the same generator but with other stories' texts,
    /// built into this site's output folder (the output cache is named for the output folder), after which this
    /// site built again.
    @Test(arguments: cacheFiles, CacheDamage.allCases)
    func aDamagedCacheFileLeadsToACorrectBuild(_ prefix: String, _ damage: CacheDamage) async throws {
        let generated = try await Self.builtSite()
        let caches = generated.site.path + "/.newsgen"
        if damage == .anotherSites {
            let other = try GeneratedSite(stories: 24, seed: 12)
            for place in stride(from: 0, to: other.stories.count, by: 3) {
                var story = other.stories[place]
                story.titles["en"] = "Another site's story \(place)"
                story.bodies = story.bodies.mapValues { $0 + " Told otherwise." }
                try other.save(story)
            }
            let intoOurs = try await offThePool { [site = other.site, environment = other.environment, output = generated.site.path + "/site"] in
                try newsgen(["build", "--quiet", "--output", output], in: site, environment: environment)
            }
            try #require(intoOurs.status == 0, "\(intoOurs.standardError)")
            let ours = try await generated.build()
            try #require(ours.status == 0, "\(ours.standardError)")
            let name = try #require(try FileManager.default.contentsOfDirectory(atPath: other.site.path + "/.newsgen").first { $0.hasPrefix(prefix) })
            try FileManager.default.removeItem(atPath: caches + "/" + name)
            try FileManager.default.copyItem(atPath: other.site.path + "/.newsgen/" + name, toPath: caches + "/" + name)
        } else {
            let name = try #require(try FileManager.default.contentsOfDirectory(atPath: caches).first { $0.hasPrefix(prefix) })
            let bytes = try Data(contentsOf: URL(fileURLWithPath: caches + "/" + name))
            let damaged = damage == .truncated
                ? bytes.prefix(bytes.count / 2)
                : Data((0..<bytes.count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
            try damaged.write(to: URL(fileURLWithPath: caches + "/" + name))
        }
        var story = generated.stories[4]
        story.bodies = story.bodies.mapValues { $0 + " Corrected." }
        story.titles["fr"] = "Un titre corrigé"
        try generated.save(story)
        let repaired = try await Self.expectRepaired(generated, after: "\(damage.rawValue) \(prefix)… and an edit of \(story.file)")
        // Only a trace that cannot be used costs a full build, and the build says so; another site's is sound, and
        // the stories whose files it does not describe are parsed as any changed story is.
        if prefix == "trace" && damage != .anotherSites {
            #expect(Self.rebuiltEverything(repaired)?.hasPrefix("built everything again: .newsgen/trace could not be used (") == true,
                    "\(repaired.standardOutput)")
        } else {
            #expect(Self.rebuiltEverything(repaired) == nil, "\(repaired.standardOutput)")
        }
    }

    /// Caches are tied to the newsgen binary that wrote them: another build of newsgen (here a copy, which is another
    /// file) trusts none of them, writes its own, and gives the clean tree.
    @Test func cachesWrittenByAnotherNewsgenBinaryAreNotTrusted() async throws {
        let generated = try await Self.builtSite(seed: 14)
        let trace = generated.site.path + "/.newsgen/trace"
        func world() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: trace))[12..<20] }
        let ours = try world()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("newsgen-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("newsgen")
        try FileManager.default.copyItem(at: Repository.newsgenBinary, to: copy)
        let result = try await offThePool { [site = generated.site, environment = generated.environment] in
            try runProgram(copy, ["build", "--quiet"], in: site.url, environment: environment)
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try world() != ours, "the copy wrote a trace of its own")
        let because = "built everything again: .newsgen/trace was written by another newsgen binary"
        #expect(Self.rebuiltEverything(result) == because, "the copy says why its first build is a full one: \(result.standardOutput)")
        let back = try await Self.expectRepaired(generated, after: "a build by a copy of the binary")
        #expect(try world() == ours, "and the original does not trust the copy's")
        #expect(Self.rebuiltEverything(back) == because, "\(back.standardOutput)")
        let again = try await generated.build()
        #expect(Self.rebuiltEverything(again) == nil, "a build from its own trace says nothing: \(again.standardOutput)")
    }
}
