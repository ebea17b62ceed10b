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
    static func builtSite(seed: UInt64 = 12) throws -> GeneratedSite {
        let generated = try GeneratedSite(stories: 24, seed: seed)
        let first = try generated.build()
        try #require(first.status == 0, "\(first.standardError)")
        return generated
    }

    /// Builds without `--clean` and expects the clean build's tree.
    static func expectRepaired(_ generated: GeneratedSite, after damage: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try generated.build()
        #expect(result.status == 0, "after \(damage): \(result.standardError)", sourceLocation: sourceLocation)
        if let difference = OutputTree.difference(OutputTree(generated.site), try generated.cleanTree(), names: ("rebuilt", "clean")) {
            Issue.record("after \(damage): \(difference)", sourceLocation: sourceLocation)
        }
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

    /// A file standing where a folder of the site goes, at any depth: until the writer removed it, every build
    /// (even `--clean`) stopped with "Not a directory" when the folder was not the one right above a page.
    @Test(arguments: [#"static"#, #"en/\d{4}"#, #"fr/sports/page"#, #"zh-hans/\d{4}/\d\d/\d\d/[^/]+"#])
    func anOutputFolderReplacedByAFileIsWrittenAgain(_ pattern: String) throws {
        let generated = try Self.builtSite()
        let folder = try Self.output(generated, matching: pattern, folder: true)
        try generated.site.remove("site/" + folder)
        try generated.site.write("site/" + folder, "a file where a folder was\n")
        try Self.expectRepaired(generated, after: "replacing the folder \(folder) by a file")
    }
}
